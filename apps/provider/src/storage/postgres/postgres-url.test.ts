import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { describePostgres, parsePostgresUrl, tlsOptions } from './postgres-url.ts';

describe('PostgreSQL URLs', () => {
  it('reads user, password, host, port, database and the defaults libpq has', () => {
    expect(parsePostgresUrl('postgres://signet:p%40ss%3Aword@db.example:6543/idp')).toEqual({
      host: 'db.example',
      port: 6543,
      database: 'idp',
      user: 'signet',
      password: 'p@ss:word',
      sslMode: 'prefer',
      schema: 'signet',
    });
    expect(parsePostgresUrl('postgresql://db.example/idp')).toMatchObject({ host: 'db.example', port: 5432, sslMode: 'prefer' });
    expect(parsePostgresUrl('postgres://[::1]:5433/idp')).toMatchObject({ host: '::1', port: 5433 });
    expect(parsePostgresUrl('postgres:///idp?host=/var/run/postgresql')).toMatchObject({ host: '/var/run/postgresql' });
  });

  it('takes sslmode, sslrootcert, schema (or search_path in options), application_name and connect_timeout', () => {
    expect(
      parsePostgresUrl(
        'postgres://u@h/d?sslmode=verify-full&sslrootcert=/etc/ca.pem&schema=tenant_a&application_name=idp&connect_timeout=3',
      ),
    ).toMatchObject({
      sslMode: 'verify-full',
      sslRootCert: '/etc/ca.pem',
      schema: 'tenant_a',
      applicationName: 'idp',
      connectTimeoutSeconds: 3,
    });
    expect(parsePostgresUrl('postgres://u@h/d?options=-c%20search_path%3Dother')).toMatchObject({
      schema: 'other',
      options: '-c search_path=other',
    });
  });

  it('refuses what libpq would refuse, and typos, in words without the password', () => {
    const cases: [string, RegExp][] = [
      [
        'postgres://u:secret@h/d?sslmode=requre',
        /sslmode must be one of disable, allow, prefer, require, verify-ca, verify-full/,
      ],
      ['postgres://u:secret@h/d?ssl=true', /unknown parameter ssl/],
      ['postgres://u:secret@h:99999/d', /not a valid postgres:\/\/ URL|bad port/],
      ['postgres://u:secret@h/', /needs a database name/],
      ['postgres://u:secret@h/d?schema=Bad-Name', /schema must be a lower-case name/],
      ['postgres://u:secret@h/d?sslcert=/a.pem', /sslcert and sslkey go together/],
      ['postgres://u:secret@h/d?connect_timeout=soon', /connect_timeout must be whole seconds/],
    ];
    for (const [url, message] of cases) {
      expect(() => parsePostgresUrl(url)).toThrow(message);
      try {
        parsePostgresUrl(url);
      } catch (error) {
        expect((error as Error).message).not.toContain('secret');
      }
    }
  });

  it('STORAGE_URL: a bad PostgreSQL URL stops the start naming the setting, never the password', () => {
    expect(() => loadConfig({ STORAGE_URL: 'postgres://u:hunter2@h/d?sslmode=nope' })).toThrow(/^STORAGE_URL: .*sslmode/);
    try {
      loadConfig({ STORAGE_URL: 'postgres://u:hunter2@h/d?sslmode=nope' });
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2');
    }
    const config = loadConfig({ STORAGE_URL: 'postgresql://u:pw@h:5432/d', STORAGE_POOL_SIZE: '4' });
    expect(config.storage).toMatchObject({ kind: 'postgres', postgres: { host: 'h', database: 'd' } });
    expect(config.storagePoolSize).toBe(4);
    expect(config.storageStatementTimeoutMs).toBe(5000);
    expect(() => loadConfig({ STORAGE_STATEMENT_TIMEOUT_MS: '5' })).toThrow(/^STORAGE_STATEMENT_TIMEOUT_MS/);
  });

  it('names a database as scheme://host:port/database, nothing more', () => {
    expect(describePostgres(parsePostgresUrl('postgres://u:secret@db:5433/idp?sslmode=require'))).toBe('postgres://db:5433/idp');
  });

  it('gives Node TLS what each sslmode means in libpq', () => {
    const dir = mkdtempSync(join(tmpdir(), 'signet-pg-url-'));
    const ca = join(dir, 'ca.pem');
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\n');
    const target = parsePostgresUrl('postgres://u@db.example/d');
    expect(tlsOptions(target, 'require')).toEqual({ rejectUnauthorized: false });
    // require with a root certificate is verify-ca, as in libpq.
    const withCa = { ...target, sslRootCert: ca };
    expect(tlsOptions(withCa, 'require')).toMatchObject({ rejectUnauthorized: true, ca: expect.any(String) });
    const verifyCa = tlsOptions(withCa, 'verify-ca') as { checkServerIdentity?: () => undefined };
    expect(verifyCa).toMatchObject({ rejectUnauthorized: true });
    expect(verifyCa.checkServerIdentity?.()).toBeUndefined();
    const full = tlsOptions(withCa, 'verify-full');
    expect(full).toMatchObject({ rejectUnauthorized: true });
    expect(full).not.toHaveProperty('checkServerIdentity');
    expect(() => tlsOptions({ ...target, sslRootCert: join(dir, 'missing.pem') }, 'verify-full')).toThrow(
      /cannot read sslrootcert .*missing\.pem \(ENOENT\)/,
    );
    rmSync(dir, { recursive: true, force: true });
  });
});
