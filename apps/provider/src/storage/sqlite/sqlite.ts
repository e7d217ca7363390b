import { closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { StorageUnavailableError, type Store, type StoredEntry, type Write } from '../store.ts';
import { recentValues } from './recent-values.ts';
import { loadDatabase } from './sqlite-driver.ts';

/**
 * The database holds the private signing key, cookie keys and the pairwise salt: only this
 * user may read it. A directory the provider creates is 0700 and a new database 0600 (SQLite
 * gives its -wal and -shm files the database's mode), whatever the umask. Existing files keep
 * their mode (an operator may have chosen it), but one that others can read is reported.
 */
function prepareFile(path: string, warn: (message: string) => void) {
  const dir = dirname(resolve(path));
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  else if (statSync(dir).mode & 0o007) {
    warn(
      `the directory ${dir} of the SQLite database is accessible to other users (mode ${(statSync(dir).mode & 0o777).toString(8)}); chmod 700 it`,
    );
  }
  if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600));
  else if (statSync(path).mode & 0o077) {
    warn(
      `the SQLite database ${path} is readable by other users (mode ${(statSync(path).mode & 0o777).toString(8)}); it holds private keys: chmod 600 it`,
    );
  }
}

/**
 * `kv` is an ordinary rowid table: its values are JSON documents of a few hundred bytes to a few
 * kilobytes (interactions, sessions, tokens), and a WITHOUT ROWID table keeps whole rows in its
 * key's B-tree, which suits rows of a few dozen bytes (`sets`) but made each write to `kv` cost
 * about twice as much CPU (bench/history.md). A database made by an earlier version is moved
 * to this layout once, at open, in one IMMEDIATE transaction (so two processes opening it at
 * once migrate it once).
 */
function createSchema(db: import('better-sqlite3').Database) {
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
/**
 * Rows one sweep statement deletes at most. SQLite runs in the provider's own thread: one
 * DELETE of every expired row held the event loop for as long as it took (a minute's expiry at
 * a thousand rows a second: 60,000 rows, hundreds of ms); in batches, requests run between them.
 * 200 rather than 1,000: a statement of 1,000 rows held the loop for tens of ms (each expired
 * record a random page of a large database), and with records expiring as fast as sign-ins made
 * them the p99 rose 2.6× (bench/history.md).
 */
export const SWEEP_BATCH = 200;

/** SQLite result codes that mean "the storage cannot serve now", not "this request is wrong". */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|READONLY|CANTOPEN|CORRUPT|NOTADB|PROTOCOL|NOMEM)/;

/**
 * The embedded default: one SQLite file (WAL mode), created on first start. Several
 * processes may open it (the CLI beside a running provider); writes that must be atomic run
 * in IMMEDIATE transactions. Expired rows are invisible at once and swept every minute.
 */
export function createSqliteStore(
  path: string,
  options: {
    sweepIntervalMs?: number;
    now?: () => number;
    warn?: (message: string) => void;
    busyTimeoutMs?: number;
    /** Bound of the values held in memory for reads, in characters (recent-values.ts). */
    cacheChars?: number;
  } = {},
): Store & { sweep(): Promise<number> } {
  const now = options.now ?? Date.now;
  if (path !== ':memory:') prepareFile(path, options.warn ?? (() => {}));
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
  db.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
  createSchema(db);
  db.exec(`
    CREATE TABLE IF NOT EXISTS sets (
      key TEXT NOT NULL, member TEXT NOT NULL, expires_at INTEGER, PRIMARY KEY (key, member)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS kv_expiry ON kv (expires_at) WHERE expires_at IS NOT NULL;
    CREATE INDEX IF NOT EXISTS sets_expiry ON sets (expires_at) WHERE expires_at IS NOT NULL;
  `);

  const alive = '(expires_at IS NULL OR expires_at > @now)';
  const q = {
    get: db.prepare(`SELECT value, expires_at FROM kv WHERE key = @key AND ${alive}`),
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
      `SELECT MIN(CASE WHEN expires_at IS NULL THEN 0 ELSE 1 END) AS bounded, MAX(expires_at) AS until FROM sets WHERE key = @key AND ${alive}`,
    ),
    addMember: db.prepare(
      'INSERT INTO sets (key, member, expires_at) VALUES (@key, @member, @expiresAt) ON CONFLICT (key, member) DO UPDATE SET expires_at = excluded.expires_at',
    ),
    extendSet: db.prepare('UPDATE sets SET expires_at = @expiresAt WHERE key = @key'),
    members: db.prepare(`SELECT member FROM sets WHERE key = @key AND ${alive}`),
    keys: db.prepare(
      `SELECT key FROM kv WHERE key >= @prefix AND key < @end AND ${alive} UNION SELECT DISTINCT key FROM sets WHERE key >= @prefix AND key < @end AND ${alive}`,
    ),
    getCounter: db.prepare(`SELECT value, expires_at FROM kv WHERE key = @key AND ${alive}`),
    entryValues: db.prepare(
      `SELECT key, value, expires_at FROM kv WHERE key >= @prefix AND key < @end AND ${alive} ORDER BY key`,
    ),
    entrySets: db.prepare(
      `SELECT key, member, expires_at FROM sets WHERE key >= @prefix AND key < @end AND ${alive} ORDER BY key`,
    ),
    sweepKv: db.prepare(SWEEP.kv),
    sweepSets: db.prepare(SWEEP.sets),
  };
  const expiry = (ttl?: number) => (ttl === undefined ? null : now() + ttl * 1000);

  // Each write as plain statements; the callers below run them inside one transaction.
  const deleteKeys = (keys: readonly string[]) => {
    for (const key of keys) {
      q.deleteKey.run(key);
      q.deleteSet.run(key);
    }
  };
  const addMember = (key: string, member: string, ttl?: number) => {
    const current = q.setExpiry.get({ key, now: now() }) as { bounded: number | null; until: number | null };
    const requested = expiry(ttl);
    // Never shorten: an unbounded set stays unbounded, otherwise keep the later expiry.
    const unbounded = requested === null || (current.bounded !== null && current.bounded === 0);
    const until = unbounded ? null : Math.max(requested, current.until ?? 0);
    q.addMember.run({ key, member, expiresAt: until });
    q.extendSet.run({ key, expiresAt: until });
  };
  /** A request's writes (Store.batch), in order; `expiresAt[i]` is the expiry of a set. */
  const applyWrites = (writes: readonly Write[], expiresAt: readonly (number | null)[]) => {
    writes.forEach((write, i) => {
      if (write.op === 'set') q.upsert.run({ key: write.key, value: write.value, expiresAt: expiresAt[i] ?? null });
      else if (write.op === 'delete') deleteKeys(write.keys);
      else addMember(write.key, write.member, write.ttlSeconds);
    });
  };
  const increment = (key: string, ttl: number, by: number) => {
    const row = q.getCounter.get({ key, now: now() }) as { value: string; expires_at: number | null } | undefined;
    const next = (row ? Number(row.value) : 0) + by;
    q.upsert.run({ key, value: String(next), expiresAt: row ? row.expires_at : expiry(ttl) });
    return next;
  };
  let sweeping = false;
  /** Expired rows, SWEEP_BATCH at a time, with a turn of the event loop between batches. */
  const sweep = async () => {
    let removed = 0;
    if (sweeping) return removed;
    sweeping = true;
    try {
      while (db.open) {
        const t = now();
        const kv = q.sweepKv.run(t, SWEEP_BATCH).changes;
        const sets = q.sweepSets.run(t, SWEEP_BATCH).changes;
        removed += kv + sets;
        if (kv < SWEEP_BATCH && sets < SWEEP_BATCH) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
    } catch {
      // a locked or full database: the next sweep tries again
    } finally {
      sweeping = false;
    }
    return removed;
  };
  const timer = setInterval(() => void sweep(), options.sweepIntervalMs ?? 60_000);
  timer.unref();

  /**
   * SQLite failures a request cannot fix (the database locked by another process beyond the busy
   * timeout, a full disk, an I/O error, a read-only file) become StorageUnavailableError, which
   * the provider answers with 503, as it does for an unreachable Redis.
   */
  const unavailable = (error: unknown) => {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' && UNAVAILABLE.test(code)
      ? new StorageUnavailableError(`SQLite: ${code} (${(error as Error).message})`, { cause: error })
      : undefined;
  };
  const guard = <T>(operation: () => T): Promise<T> => {
    try {
      return Promise.resolve(operation());
    } catch (error) {
      return Promise.reject(unavailable(error) ?? error);
    }
  };

  /**
   * Group commit. Every write (a request's batch, a one-time claim, a counter) waits for the end
   * of the event-loop turn it was asked in; then all the writes of that turn run, in the order
   * they were asked, in one IMMEDIATE transaction: one commit, one WAL append and one set of
   * locks for the several requests a busy provider finishes at once, instead of one each. A
   * write's promise settles after that commit, so what a caller awaited is stored. Each write
   * still sees those before it (a claim made in the same turn as another gets false), and reads
   * see only what is committed. If the shared transaction fails because of one write, it is
   * rolled back and each write runs again in a transaction of its own, so the failure stays that
   * write's; if the database itself cannot serve (locked beyond the busy timeout, full), every
   * write of the turn gets the 503 it would have got alone.
   */
  type Job = {
    run: () => unknown;
    /** After its commit: what the write changes in the recent values. */
    stored?: (result: unknown) => void;
    resolve: (value: unknown) => void;
    reject: (error: unknown) => void;
  };
  let queued: Job[] = [];
  const runAll = db.transaction((jobs: readonly Job[]) => jobs.map((job) => job.run()));
  const commitQueued = () => {
    const jobs = queued;
    queued = [];
    if (jobs.length === 0 || !db.open) return;
    let results: unknown[];
    try {
      results = runAll.immediate(jobs);
    } catch (error) {
      const cause = unavailable(error);
      for (const job of jobs) {
        if (cause) job.reject(cause);
        else {
          try {
            const result = db.transaction(job.run).immediate();
            job.stored?.(result);
            job.resolve(result);
          } catch (alone) {
            job.reject(unavailable(alone) ?? alone);
          }
        }
      }
      return;
    }
    jobs.forEach((job, i) => {
      job.stored?.(results[i]);
      job.resolve(results[i]);
    });
  };
  const commit = <T>(run: () => T, stored?: (result: T) => void): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (!db.open) return reject(new StorageUnavailableError('SQLite: the database is closed'));
      if (queued.length === 0) setImmediate(commitQueued);
      queued.push({ run, stored: stored as Job['stored'], resolve: resolve as (value: unknown) => void, reject });
    });

  /**
   * Reads answered from the values this process read or stored lately (recent-values.ts): a
   * sign-in's requests read the client on each request and read back what the request before
   * stored. The first read of each event-loop turn asks SQLite's PRAGMA data_version, which
   * changes when another connection (the CLI, another process on the same file) has committed:
   * then everything held is dropped and read again. So a read sees every commit another process
   * finished before the turn it runs in began (asking once per turn instead of once per read
   * saves a statement per read: about 60 µs of a sign-in's CPU). This process's own writes
   * update what is held only after their commit, so a value held is always one that is stored.
   */
  const recent = recentValues(options.cacheChars ?? 2_000_000);
  let version: unknown;
  let askedThisTurn = false;
  const nextTurn = () => {
    askedThisTurn = false;
  };
  const read = (key: string, t: number): string | undefined => {
    const held = recent.get(key, t);
    if (held !== undefined) return held;
    const row = q.get.get({ key, now: t }) as { value: string; expires_at: number | null } | undefined;
    if (row) recent.remember(key, row.value, row.expires_at);
    return row?.value;
  };
  const othersCommitted = () => {
    if (askedThisTurn) return;
    askedThisTurn = true;
    setImmediate(nextTurn);
    const current = q.dataVersion.get();
    if (current !== version) {
      version = current;
      recent.clear();
    }
  };
  const forgetAll = (keys: readonly string[]) => {
    for (const key of keys) recent.forget(key);
  };

  return {
    sweep,
    kind: 'sqlite',
    get: (key) =>
      guard(() => {
        othersCommitted();
        return read(key, now());
      }),
    getMany: (keys) =>
      guard(() => {
        othersCommitted();
        const t = now();
        return keys.map((key) => read(key, t));
      }),
    set(key, value, ttl) {
      const expiresAt = expiry(ttl);
      return commit(
        () => {
          q.upsert.run({ key, value, expiresAt });
        },
        () => recent.remember(key, value, expiresAt),
      );
    },
    setIfAbsent(key, value, ttl) {
      const expiresAt = expiry(ttl);
      return commit(
        () => q.insertIfAbsent.run({ key, value, expiresAt, now: now() }).changes === 1,
        (won) => (won ? recent.remember(key, value, expiresAt) : recent.forget(key)),
      );
    },
    delete: (...keys) =>
      commit(
        () => deleteKeys(keys),
        () => forgetAll(keys),
      ),
    addToSet: (key, member, ttl) => commit(() => addMember(key, member, ttl)),
    batch(writes) {
      if (writes.length === 0) return Promise.resolve();
      const expiresAt = writes.map((write) => (write.op === 'set' ? expiry(write.ttlSeconds) : null));
      return commit(
        () => applyWrites(writes, expiresAt),
        () =>
          writes.forEach((write, i) => {
            if (write.op === 'set') recent.remember(write.key, write.value, expiresAt[i] ?? null);
            else if (write.op === 'delete') forgetAll(write.keys);
          }),
      );
    },
    members: (key) => guard(() => (q.members.all({ key, now: now() }) as { member: string }[]).map((r) => r.member)),
    increment: (key, ttl, by = 1) =>
      commit(
        () => increment(key, ttl, by),
        () => recent.forget(key),
      ),
    // Range scan: every key that starts with prefix sorts in [prefix, prefix + U+FFFF).
    keys: (prefix) =>
      guard(() => (q.keys.all({ prefix, end: `${prefix}\uffff`, now: now() }) as { key: string }[]).map((r) => r.key)),
    entries: (prefix) =>
      guard(() => {
        const t = now();
        const range = { prefix, end: `${prefix}\uffff`, now: t };
        const left = (expiresAt: number | null) => (expiresAt === null ? {} : { ttlMs: expiresAt - t });
        const entries: StoredEntry[] = (
          q.entryValues.all(range) as { key: string; value: string; expires_at: number | null }[]
        ).map((row) => ({ key: row.key, value: row.value, ...left(row.expires_at) }));
        const sets = new Map<string, { members: string[]; expiresAt: number | null }>();
        for (const row of q.entrySets.all(range) as { key: string; member: string; expires_at: number | null }[]) {
          const set = sets.get(row.key) ?? { members: [], expiresAt: row.expires_at };
          set.members.push(row.member);
          // Members share their set's expiry (addMember extends them all); the latest one counts.
          if (set.expiresAt !== null && (row.expires_at === null || row.expires_at > set.expiresAt))
            set.expiresAt = row.expires_at;
          sets.set(row.key, set);
        }
        for (const [key, set] of sets) entries.push({ key, members: set.members, ...left(set.expiresAt) });
        return entries;
      }),
    ping: () =>
      guard(() => {
        db.prepare('SELECT 1').get();
      }),
    async close() {
      clearInterval(timer);
      // Writes already asked for are stored, not dropped.
      commitQueued();
      if (db.open) db.close();
    },
  };
}
