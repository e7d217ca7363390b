import type { Database } from 'better-sqlite3';
import type { Store, StoredEntry, Write } from '../store.ts';
import { GroupCommit, unavailable } from './group-commit.ts';
import { type RecentValues, recentValues } from './recent-values.ts';
import { prepareDatabaseFile } from './sqlite-file.ts';
import { openDatabase, prepareStatements, type Statements } from './sqlite-schema.ts';

export { SWEEP } from './sqlite-schema.ts';

/**
 * Rows one sweep statement deletes at most. SQLite runs in the provider's own thread: one
 * DELETE of every expired row held the event loop for as long as it took (a minute's expiry at
 * a thousand rows a second: 60,000 rows, hundreds of ms); in batches, requests run between them.
 * 200 rather than 1,000: a statement of 1,000 rows held the loop for tens of ms (each expired
 * record a random page of a large database), and with records expiring as fast as sign-ins made
 * them the p99 rose 2.6× (bench/history.md).
 */
export const SWEEP_BATCH = 200;

export type SqliteStoreOptions = {
  sweepIntervalMs?: number;
  now?: () => number;
  warn?: (message: string) => void;
  busyTimeoutMs?: number;
  /** Bound of the values held in memory for reads, in characters (recent-values.ts). */
  cacheChars?: number;
};

type Row = { value: string; expires_at: number | null };

/** A store's synchronous operations throw; the Store's promises reject, a database that cannot serve as a 503. */
function guard<T>(operation: () => T): Promise<T> {
  try {
    return Promise.resolve(operation());
  } catch (error) {
    return Promise.reject(unavailable(error) ?? error);
  }
}

/**
 * The embedded default: one SQLite file (WAL mode), created on first start. Several
 * processes may open it (the CLI beside a running provider); writes that must be atomic run
 * in IMMEDIATE transactions, committed by turns of the event loop (group-commit.ts). Expired
 * rows are invisible at once and swept every minute.
 *
 * Reads are answered from the values this process read or stored lately (recent-values.ts): a
 * sign-in's requests read the client on each request and read back what the request before
 * stored. The first read of each event-loop turn asks SQLite's PRAGMA data_version, which
 * changes when another connection (the CLI, another process on the same file) has committed:
 * then everything held is dropped and read again. So a read sees every commit another process
 * finished before the turn it runs in began (asking once per turn instead of once per read
 * saves a statement per read: about 60 µs of a sign-in's CPU). This process's own writes
 * update what is held only after their commit, so a value held is always one that is stored.
 */
class SqliteStore implements Store {
  readonly kind = 'sqlite';
  readonly #q: Statements;
  readonly #writes: GroupCommit;
  readonly #recent: RecentValues;
  readonly #now: () => number;
  readonly #timer: NodeJS.Timeout;
  #version: unknown;
  #askedThisTurn = false;
  #sweeping = false;

  constructor(
    private readonly db: Database,
    options: SqliteStoreOptions,
  ) {
    this.#q = prepareStatements(db);
    this.#writes = new GroupCommit(db);
    this.#recent = recentValues(options.cacheChars ?? 2_000_000);
    this.#now = options.now ?? Date.now;
    this.#timer = setInterval(() => void this.sweep(), options.sweepIntervalMs ?? 60_000);
    this.#timer.unref();
  }

  #expiry(ttl?: number): number | null {
    return ttl === undefined ? null : this.#now() + ttl * 1000;
  }

  /** Once per event-loop turn: drop what is held if another connection committed since. */
  #othersCommitted(): void {
    if (this.#askedThisTurn) return;
    this.#askedThisTurn = true;
    setImmediate(() => {
      this.#askedThisTurn = false;
    });
    const current = this.#q.dataVersion.get();
    if (current !== this.#version) {
      this.#version = current;
      this.#recent.clear();
    }
  }

  #read(key: string, t: number): string | undefined {
    const held = this.#recent.get(key, t);
    if (held !== undefined) return held;
    const row = this.#q.get.get({ key, now: t }) as Row | undefined;
    if (row) this.#recent.remember(key, row.value, row.expires_at);
    return row?.value;
  }

  get(key: string): Promise<string | undefined> {
    return guard(() => {
      this.#othersCommitted();
      return this.#read(key, this.#now());
    });
  }

  getMany(keys: string[]): Promise<(string | undefined)[]> {
    return guard(() => {
      this.#othersCommitted();
      const t = this.#now();
      return keys.map((key) => this.#read(key, t));
    });
  }

  // Each write as plain statements, run inside the turn's transaction.
  #deleteKeys(keys: readonly string[]): void {
    for (const key of keys) {
      this.#q.deleteKey.run(key);
      this.#q.deleteMembers.run(key);
      this.#q.deleteSet.run(key);
    }
  }

  /**
   * One member more: the set's one row takes the later expiry (never shorter; none stays none),
   * the member a row of its own, whatever the set's size. An expired set not swept yet is
   * dropped first, so its old members do not come back.
   */
  #addMember(key: string, member: string, ttl?: number): void {
    const current = this.#q.setExpiry.get(key) as { expires_at: number | null } | undefined;
    const requested = this.#expiry(ttl);
    let until = requested;
    if (current && current.expires_at !== null && current.expires_at <= this.#now()) {
      this.#q.deleteMembers.run(key);
    } else if (current) {
      until = requested === null || current.expires_at === null ? null : Math.max(requested, current.expires_at);
    }
    if (!current || until !== current.expires_at) this.#q.putSet.run({ key, expiresAt: until });
    this.#q.addMember.run({ key, member });
  }

  #increment(key: string, ttl: number, by: number): number {
    const row = this.#q.getCounter.get({ key, now: this.#now() }) as Row | undefined;
    const next = (row ? Number(row.value) : 0) + by;
    this.#q.upsert.run({ key, value: String(next), expiresAt: row ? row.expires_at : this.#expiry(ttl) });
    return next;
  }

  #forgetAll(keys: readonly string[]): void {
    for (const key of keys) this.#recent.forget(key);
  }

  set(key: string, value: string, ttl?: number): Promise<void> {
    const expiresAt = this.#expiry(ttl);
    return this.#writes.commit(
      () => {
        this.#q.upsert.run({ key, value, expiresAt });
      },
      () => this.#recent.remember(key, value, expiresAt),
    );
  }

  setIfAbsent(key: string, value: string, ttl?: number): Promise<boolean> {
    const expiresAt = this.#expiry(ttl);
    return this.#writes.commit(
      () => this.#q.insertIfAbsent.run({ key, value, expiresAt, now: this.#now() }).changes === 1,
      (won) => (won ? this.#recent.remember(key, value, expiresAt) : this.#recent.forget(key)),
    );
  }

  delete(...keys: string[]): Promise<void> {
    return this.#writes.commit(
      () => this.#deleteKeys(keys),
      () => this.#forgetAll(keys),
    );
  }

  addToSet(key: string, member: string, ttl?: number): Promise<void> {
    return this.#writes.commit(() => this.#addMember(key, member, ttl));
  }

  /** A request's writes, in order, in one transaction. */
  batch(writes: readonly Write[]): Promise<void> {
    if (writes.length === 0) return Promise.resolve();
    const expiresAt = writes.map((write) => (write.op === 'set' ? this.#expiry(write.ttlSeconds) : null));
    const apply = () =>
      writes.forEach((write, i) => {
        if (write.op === 'set') this.#q.upsert.run({ key: write.key, value: write.value, expiresAt: expiresAt[i] ?? null });
        else if (write.op === 'delete') this.#deleteKeys(write.keys);
        else this.#addMember(write.key, write.member, write.ttlSeconds);
      });
    const stored = () =>
      writes.forEach((write, i) => {
        if (write.op === 'set') this.#recent.remember(write.key, write.value, expiresAt[i] ?? null);
        else if (write.op === 'delete') this.#forgetAll(write.keys);
      });
    return this.#writes.commit(apply, stored);
  }

  members(key: string): Promise<string[]> {
    return guard(() => (this.#q.members.all({ key, now: this.#now() }) as { member: string }[]).map((r) => r.member));
  }

  increment(key: string, ttl: number, by = 1): Promise<number> {
    return this.#writes.commit(
      () => this.#increment(key, ttl, by),
      () => this.#recent.forget(key),
    );
  }

  /** Range scan: every key that starts with prefix sorts in [prefix, prefix + U+FFFF). */
  keys(prefix: string): Promise<string[]> {
    return guard(() =>
      (this.#q.keys.all({ prefix, end: `${prefix}\uffff`, now: this.#now() }) as { key: string }[]).map((r) => r.key),
    );
  }

  entries(prefix: string): Promise<StoredEntry[]> {
    return guard(() => {
      const t = this.#now();
      const range = { prefix, end: `${prefix}\uffff`, now: t };
      const left = (expiresAt: number | null) => (expiresAt === null ? {} : { ttlMs: expiresAt - t });
      const entries: StoredEntry[] = (this.#q.entryValues.all(range) as (Row & { key: string })[]).map((row) => ({
        key: row.key,
        value: row.value,
        ...left(row.expires_at),
      }));
      for (const [key, set] of this.#setsIn(range)) entries.push({ key, members: set.members, ...left(set.expiresAt) });
      return entries;
    });
  }

  /** The sets in a key range with their members and expiry. */
  #setsIn(range: { prefix: string; end: string; now: number }) {
    const sets = new Map<string, { members: string[]; expiresAt: number | null }>();
    for (const row of this.#q.entrySets.all(range) as { key: string; member: string; expires_at: number | null }[]) {
      const set = sets.get(row.key) ?? { members: [], expiresAt: row.expires_at };
      set.members.push(row.member);
      sets.set(row.key, set);
    }
    return sets;
  }

  /** Expired rows, SWEEP_BATCH at a time, with a turn of the event loop between batches. */
  async sweep(): Promise<number> {
    let removed = 0;
    if (this.#sweeping) return removed;
    this.#sweeping = true;
    try {
      while (this.db.open) {
        const t = this.#now();
        const kv = this.#q.sweepKv.run(t, SWEEP_BATCH).changes;
        const [members, sets] = this.#sweepSets(t);
        removed += kv + members;
        if (kv < SWEEP_BATCH && sets < SWEEP_BATCH) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
    } catch {
      // a locked or full database: the next sweep tries again
    } finally {
      this.#sweeping = false;
    }
    return removed;
  }

  /** Up to SWEEP_BATCH expired sets with their members, in one transaction: [members, sets] removed. */
  #sweepSets(t: number): [number, number] {
    const sweep = () => [this.#q.sweepSetMembers.run(t, SWEEP_BATCH).changes, this.#q.sweepSets.run(t, SWEEP_BATCH).changes];
    return this.db.transaction(sweep).immediate() as [number, number];
  }

  ping(): Promise<void> {
    return guard(() => {
      this.db.prepare('SELECT 1').get();
    });
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    // Writes already asked for are stored, not dropped.
    this.#writes.flush();
    if (this.db.open) this.db.close();
  }
}

/** Opens (creating) the SQLite store at `path` (`:memory:` for tests). */
export function createSqliteStore(path: string, options: SqliteStoreOptions = {}): Store & { sweep(): Promise<number> } {
  if (path !== ':memory:') prepareDatabaseFile(path, options.warn ?? (() => {}));
  return new SqliteStore(openDatabase(path, options.busyTimeoutMs), options);
}
