import type { Database, Statement } from 'better-sqlite3';
import { loadDatabase } from './sqlite-driver.ts';

/**
 * The database's settings, tables and statements. `kv` holds values with an optional expiry;
 * `sets` each set's expiry (one row per set, as in PostgreSQL's layout) and `set_members` its
 * members (the grant indexes: a grant's tokens, a wallet's grants).
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
 * index (an index-free sweep would read whole tables; bench/history.md). An expired set's
 * members go first, then the set's row, the same sets in both (one transaction, same order).
 */
export const SWEEP = {
  kv: 'DELETE FROM kv WHERE key IN (SELECT key FROM kv WHERE expires_at IS NOT NULL AND expires_at <= ? LIMIT ?)',
  setMembers: `DELETE FROM set_members WHERE key IN
    (SELECT key FROM sets WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?)`,
  sets: `DELETE FROM sets WHERE key IN
    (SELECT key FROM sets WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?)`,
};

/** The layout this version writes (`PRAGMA user_version`): 1 since sets keep one expiry row each. */
export const LAYOUT_VERSION = 1;

const SETS = 'sets (key TEXT PRIMARY KEY, expires_at INTEGER) WITHOUT ROWID';
const SET_MEMBERS = 'set_members (key TEXT NOT NULL, member TEXT NOT NULL, PRIMARY KEY (key, member)) WITHOUT ROWID';

/**
 * Sets, from layout 1 on: one row per set holding its expiry (`sets`), its members beside it
 * (`set_members`). Before, every member's row carried the set's expiry, so adding a member
 * rewrote every row of the set: a wallet's 5,000th grant of a day cost 3.8 ms of the event
 * loop against 85 µs for its 10th (bench/history.md). A database of layout 0 is moved once, at
 * open, in one IMMEDIATE transaction: a set's expiry is its latest member's (none if any had
 * none), as the old reads computed it.
 */
function createSetTables(db: Database) {
  const oldLayout = () =>
    (db.prepare("SELECT name FROM pragma_table_info('sets')").all() as { name: string }[]).some((c) => c.name === 'member');
  if (!oldLayout()) {
    db.exec(`CREATE TABLE IF NOT EXISTS ${SETS}; CREATE TABLE IF NOT EXISTS ${SET_MEMBERS};`);
    return;
  }
  db.transaction(() => {
    if (!oldLayout()) return; // another process moved it while this one waited for the lock
    db.exec(`
      DROP INDEX IF EXISTS sets_expiry;
      ALTER TABLE sets RENAME TO sets_layout0;
      CREATE TABLE ${SETS};
      CREATE TABLE ${SET_MEMBERS};
      INSERT INTO sets (key, expires_at)
        SELECT key, CASE WHEN COUNT(expires_at) < COUNT(*) THEN NULL ELSE MAX(expires_at) END FROM sets_layout0 GROUP BY key;
      INSERT INTO set_members (key, member) SELECT key, member FROM sets_layout0;
      DROP TABLE sets_layout0;
    `);
  }).immediate();
}

/** A database written by a later Signet (a layout this version does not know) is refused, not misread. */
function checkLayout(db: Database, path: string): number {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > LAYOUT_VERSION) {
    throw new Error(
      `the SQLite database ${path} has layout ${version}, written by a later version of Signet; this version reads up to layout ${LAYOUT_VERSION}: run the later version, or restore a backup made before it`,
    );
  }
  return version;
}

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
  const layout = checkLayout(db, path);
  createKvTable(db);
  createSetTables(db);
  db.exec(`
    CREATE INDEX IF NOT EXISTS kv_expiry ON kv (expires_at) WHERE expires_at IS NOT NULL;
    CREATE INDEX IF NOT EXISTS sets_expiry ON sets (expires_at) WHERE expires_at IS NOT NULL;
  `);
  if (layout !== LAYOUT_VERSION) db.pragma(`user_version = ${LAYOUT_VERSION}`);
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
  | 'deleteMembers'
  | 'setExpiry'
  | 'putSet'
  | 'addMember'
  | 'members'
  | 'keys'
  | 'getCounter'
  | 'entryValues'
  | 'entrySets'
  | 'sweepKv'
  | 'sweepSetMembers'
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
    deleteMembers: db.prepare('DELETE FROM set_members WHERE key = ?'),
    // A set's expiry, expired or not (addToSet drops an expired set before adding to it).
    setExpiry: db.prepare('SELECT expires_at FROM sets WHERE key = ?'),
    putSet: db.prepare(
      'INSERT INTO sets (key, expires_at) VALUES (@key, @expiresAt) ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at',
    ),
    addMember: db.prepare('INSERT INTO set_members (key, member) VALUES (@key, @member) ON CONFLICT (key, member) DO NOTHING'),
    members: db.prepare(
      `SELECT m.member FROM sets s JOIN set_members m ON m.key = s.key WHERE s.key = @key AND ${ALIVE.replaceAll('expires_at', 's.expires_at')}`,
    ),
    keys: db.prepare(
      `SELECT key FROM kv WHERE key >= @prefix AND key < @end AND ${ALIVE} UNION SELECT key FROM sets WHERE key >= @prefix AND key < @end AND ${ALIVE}`,
    ),
    getCounter: db.prepare(`SELECT value, expires_at FROM kv WHERE key = @key AND ${ALIVE}`),
    entryValues: db.prepare(
      `SELECT key, value, expires_at FROM kv WHERE key >= @prefix AND key < @end AND ${ALIVE} ORDER BY key`,
    ),
    entrySets: db.prepare(
      `SELECT s.key, m.member, s.expires_at FROM sets s JOIN set_members m ON m.key = s.key
       WHERE s.key >= @prefix AND s.key < @end AND ${ALIVE.replaceAll('expires_at', 's.expires_at')} ORDER BY s.key`,
    ),
    sweepKv: db.prepare(SWEEP.kv),
    sweepSetMembers: db.prepare(SWEEP.setMembers),
    sweepSets: db.prepare(SWEEP.sets),
  };
}
