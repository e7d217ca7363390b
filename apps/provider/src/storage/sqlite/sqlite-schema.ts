import type { Database, Statement } from 'better-sqlite3';
import { loadDatabase } from './sqlite-driver.ts';

/**
 * The database's settings, tables and statements. `kv` holds values with an optional expiry;
 * `sets` the members of sets (the grant index), each row carrying its set's expiry.
 */

/**
 * `kv` is an ordinary rowid table: its values are JSON documents of a few hundred bytes to a few
 * kilobytes (interactions, sessions, tokens), and a WITHOUT ROWID table keeps whole rows in its
 * key's B-tree, which suits rows of a few dozen bytes (`sets`) but made each write to `kv` cost
 * about twice as much CPU (bench/history.md). A database made by an earlier version is moved
 * to this layout once, at open, in one IMMEDIATE transaction (so two processes opening it at
 * once migrate it once).
 */
function createKvTable(db: Database) {
  const KV = 'kv (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER)';
  const withoutRowid = () =>
    /WITHOUT\s+ROWID/i.test(
      (db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'kv'").get() as { sql?: string } | undefined)
        ?.sql ?? '',
    );
  db.exec(`CREATE TABLE IF NOT EXISTS ${KV}`);
  if (!withoutRowid()) return;
  db.transaction(() => {
    if (!withoutRowid()) return; // another process moved it while this one waited for the lock
    db.exec(`
      CREATE TABLE kv_rowid ${KV.slice('kv '.length)};
      INSERT INTO kv_rowid (key, value, expires_at) SELECT key, value, expires_at FROM kv;
      DROP TABLE kv;
      ALTER TABLE kv_rowid RENAME TO kv;
    `);
  }).immediate();
}

/**
 * The expiry sweep's deletes: each reads only the rows that expired, through its table's expiry
 * index (an index-free sweep would read whole tables; bench/history.md).
 */
export const SWEEP = {
  kv: 'DELETE FROM kv WHERE key IN (SELECT key FROM kv WHERE expires_at IS NOT NULL AND expires_at <= ? LIMIT ?)',
  sets: `DELETE FROM sets WHERE (key, member) IN
    (SELECT key, member FROM sets WHERE expires_at IS NOT NULL AND expires_at <= ? LIMIT ?)`,
};

/** Opens (creating) the database in WAL mode with its tables and indexes. */
export function openDatabase(path: string, busyTimeoutMs = 5000): Database {
  const Database = loadDatabase();
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // Checkpoint every 10,000 pages (~40 MB of WAL) instead of SQLite's 1,000: a page that many
  // requests rewrite (the end of a table, of an expiry index) is copied back to the database
  // once per checkpoint, and the checkpoint's fsync runs a tenth as often (bench/history.md:
  // ~12 % less CPU for a flow's storage work). The WAL file is cut back to 64 MB after each.
  db.pragma('wal_autocheckpoint = 10000');
  db.pragma('journal_size_limit = 67108864');
  db.pragma(`busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
  createKvTable(db);
  db.exec(`
    CREATE TABLE IF NOT EXISTS sets (
      key TEXT NOT NULL, member TEXT NOT NULL, expires_at INTEGER, PRIMARY KEY (key, member)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS kv_expiry ON kv (expires_at) WHERE expires_at IS NOT NULL;
    CREATE INDEX IF NOT EXISTS sets_expiry ON sets (expires_at) WHERE expires_at IS NOT NULL;
  `);
  return db;
}

const ALIVE = '(expires_at IS NULL OR expires_at > @now)';

/** Every statement the store runs, prepared once. */
export type Statements = Record<
  | 'get'
  | 'dataVersion'
  | 'upsert'
  | 'insertIfAbsent'
  | 'deleteKey'
  | 'deleteSet'
  | 'setExpiry'
  | 'addMember'
  | 'extendSet'
  | 'members'
  | 'keys'
  | 'getCounter'
  | 'entryValues'
  | 'entrySets'
  | 'sweepKv'
  | 'sweepSets',
  Statement
>;

export function prepareStatements(db: Database): Statements {
  return {
    get: db.prepare(`SELECT value, expires_at FROM kv WHERE key = @key AND ${ALIVE}`),
    dataVersion: db.prepare('PRAGMA data_version').pluck(),
    upsert: db.prepare(
      'INSERT INTO kv (key, value, expires_at) VALUES (@key, @value, @expiresAt) ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at',
    ),
    insertIfAbsent: db.prepare(
      `INSERT INTO kv (key, value, expires_at) VALUES (@key, @value, @expiresAt)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at
       WHERE kv.expires_at IS NOT NULL AND kv.expires_at <= @now`,
    ),
    deleteKey: db.prepare('DELETE FROM kv WHERE key = ?'),
    deleteSet: db.prepare('DELETE FROM sets WHERE key = ?'),
    setExpiry: db.prepare(
      `SELECT MIN(CASE WHEN expires_at IS NULL THEN 0 ELSE 1 END) AS bounded, MAX(expires_at) AS until FROM sets WHERE key = @key AND ${ALIVE}`,
    ),
    addMember: db.prepare(
      'INSERT INTO sets (key, member, expires_at) VALUES (@key, @member, @expiresAt) ON CONFLICT (key, member) DO UPDATE SET expires_at = excluded.expires_at',
    ),
    extendSet: db.prepare('UPDATE sets SET expires_at = @expiresAt WHERE key = @key'),
    members: db.prepare(`SELECT member FROM sets WHERE key = @key AND ${ALIVE}`),
    keys: db.prepare(
      `SELECT key FROM kv WHERE key >= @prefix AND key < @end AND ${ALIVE} UNION SELECT DISTINCT key FROM sets WHERE key >= @prefix AND key < @end AND ${ALIVE}`,
    ),
    getCounter: db.prepare(`SELECT value, expires_at FROM kv WHERE key = @key AND ${ALIVE}`),
    entryValues: db.prepare(
      `SELECT key, value, expires_at FROM kv WHERE key >= @prefix AND key < @end AND ${ALIVE} ORDER BY key`,
    ),
    entrySets: db.prepare(
      `SELECT key, member, expires_at FROM sets WHERE key >= @prefix AND key < @end AND ${ALIVE} ORDER BY key`,
    ),
    sweepKv: db.prepare(SWEEP.kv),
    sweepSets: db.prepare(SWEEP.sets),
  };
}
