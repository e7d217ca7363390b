import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StorageUnavailableError } from '../store.ts';
import { createSqliteStore } from './sqlite.ts';
import { loadDatabase } from './sqlite-driver.ts';

describe('SQLite failures a request cannot fix are StorageUnavailableError (503), as for Redis', () => {
  it('a database locked by another process beyond the busy timeout; all works again once it is released', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'signet-locked-')), 'signet.db');
    const store = createSqliteStore(file, { busyTimeoutMs: 50 });
    await store.set('before', '1');
    // Another process (the CLI, a backup) holds an exclusive lock.
    const Database = loadDatabase();
    const other = new Database(file);
    other.exec('BEGIN EXCLUSIVE');
    try {
      await expect(store.set('k', 'v')).rejects.toBeInstanceOf(StorageUnavailableError);
      await expect(store.increment('counter', 60)).rejects.toThrow(/SQLITE_BUSY/);
      // WAL: readers are not blocked by a writer's lock.
      expect(await store.get('before')).toBe('1');
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    await store.set('k', 'v');
    expect(await store.get('k')).toBe('v');
    expect(await store.increment('counter', 60)).toBe(1);
    await store.close();
  });

  it('programming errors are not disguised as unavailability', async () => {
    const store = createSqliteStore(':memory:');
    await expect(store.set('k', undefined as unknown as string)).rejects.not.toBeInstanceOf(StorageUnavailableError);
    await store.close();
  });
});
