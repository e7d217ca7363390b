import { chmodSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from './sqlite.ts';

const mode = (path: string) => statSync(path).mode & 0o777;

describe('SQLite file permissions (the database holds the private signing key)', () => {
  let previous: number;
  beforeEach(() => {
    previous = process.umask(0o022);
  });
  afterEach(() => {
    process.umask(previous);
  });

  it('creates its directory 0700 and the database, WAL and SHM files 0600 under umask 022', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'signet-perm-')), 'data');
    const warnings: string[] = [];
    const store = createSqliteStore(join(dir, 'signet.db'), { warn: (message) => warnings.push(message) });
    await store.set('k', 'v');
    expect(mode(dir)).toBe(0o700);
    for (const file of ['signet.db', 'signet.db-wal', 'signet.db-shm']) expect(mode(join(dir, file)), file).toBe(0o600);
    expect(warnings).toEqual([]);
    await store.close();
  });

  it('warns at start about an existing database or directory that others can read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'signet-perm-'));
    chmodSync(dir, 0o755);
    const path = join(dir, 'old.db');
    writeFileSync(path, '');
    chmodSync(path, 0o644);
    const warnings: string[] = [];
    const store = createSqliteStore(path, { warn: (message) => warnings.push(message) });
    await store.close();
    expect(warnings.join('\n')).toMatch(/old\.db is readable by other users \(mode 644\)/);
    expect(warnings.join('\n')).toMatch(/directory .* is accessible to other users \(mode 755\)/);
  });
});
