import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSqliteStore } from './sqlite.ts';
import { loadDatabase } from './sqlite-driver.ts';

const tableSql = (file: string) => {
  const db = new (loadDatabase())(file, { readonly: true });
  try {
    return {
      kv: (db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'kv'").get() as { sql: string }).sql,
      indexes: (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'kv'").all() as { name: string }[])
        .map((row) => row.name)
        .filter((name) => !name.startsWith('sqlite_autoindex')),
    };
  } finally {
    db.close();
  }
};

describe('the SQLite layout', () => {
  it('a new database keeps values in a rowid table, with the expiry index', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'signet-layout-')), 'signet.db');
    const store = createSqliteStore(file);
    await store.set('k', 'v', 60);
    await store.close();
    const { kv, indexes } = tableSql(file);
    expect(kv).not.toMatch(/WITHOUT\s+ROWID/i);
    expect(indexes).toEqual(['kv_expiry']);
  });

  it('a database made by an earlier version (kv WITHOUT ROWID) is moved once, keeping every value and expiry', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'signet-layout-')), 'signet.db');
    const old = new (loadDatabase())(file);
    old.exec(`
      CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER) WITHOUT ROWID;
      CREATE TABLE sets (key TEXT NOT NULL, member TEXT NOT NULL, expires_at INTEGER, PRIMARY KEY (key, member)) WITHOUT ROWID;
      CREATE INDEX kv_expiry ON kv (expires_at) WHERE expires_at IS NOT NULL;
    `);
    const insert = old.prepare('INSERT INTO kv (key, value, expires_at) VALUES (?, ?, ?)');
    insert.run('keys:signing', '{"kid":"a"}', null);
    insert.run('oidc:Session:s1', '{"uid":"u"}', Date.now() + 60_000);
    insert.run('oidc:Session:gone', '{"uid":"x"}', Date.now() - 1_000);
    old.prepare('INSERT INTO sets (key, member, expires_at) VALUES (?, ?, ?)').run('oidc:grant:g', 'oidc:AccessToken:t', null);
    old.close();

    const store = createSqliteStore(file);
    expect(await store.get('keys:signing')).toBe('{"kid":"a"}');
    expect(await store.get('oidc:Session:s1')).toBe('{"uid":"u"}');
    expect(await store.get('oidc:Session:gone')).toBeUndefined();
    expect(await store.members('oidc:grant:g')).toEqual(['oidc:AccessToken:t']);
    await store.set('after', '1');
    await store.close();
    const { kv, indexes } = tableSql(file);
    expect(kv).not.toMatch(/WITHOUT\s+ROWID/i);
    expect(indexes).toEqual(['kv_expiry']);

    // Opening it again changes nothing.
    const again = createSqliteStore(file);
    expect(await again.get('after')).toBe('1');
    expect(await again.keys('oidc:Session:')).toEqual(['oidc:Session:s1']);
    await again.close();
  });
});
