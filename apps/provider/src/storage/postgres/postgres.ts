/**
 * PostgreSQL storage (`pg`): several provider replicas share one database, as they share a
 * Redis, with PostgreSQL's durability, backups and managed offerings. Tables (postgres-schema.ts):
 * `kv` (values with an optional expiry), `sets` and `set_members` (the grant index).
 *
 * - Every operation is one statement and one round trip, a named (prepared) statement on a pooled
 *   connection; a request's writes (Store.batch) are one call of `apply_writes`: one statement,
 *   one transaction, one round trip, however many writes (reduced to what they leave behind and
 *   ordered by key, so concurrent batches lock rows in one order: orderedWrites). A read that
 *   follows references (getWithReferences: a token with its grant and session) is one call of
 *   `read_with_references`.
 * - setIfAbsent and increment are single INSERT … ON CONFLICT statements: atomic under
 *   concurrency, an expired row counting as absent.
 * - Expiry uses the database's clock (now()), the one clock every replica shares: reads never
 *   return an expired row; a sweep deletes expired rows in bounded batches through the expiry
 *   indexes (several replicas sweeping share the work: SKIP LOCKED). What the sweep deletes
 *   leaves dead rows for VACUUM: a server with autovacuum off is named in a warning at start.
 * - Failures that mean "the database cannot serve now" (connection refused or lost, a statement
 *   timeout, a pool with no free connection within the timeout, a read-only server, too many
 *   connections, a shutdown) become StorageUnavailableError: 503. A server that answers writes
 *   with read_only_sql_transaction (a primary demoted by a failover) makes the store drop every
 *   pooled connection and reconnect, and ping fails until a writable primary answers, so
 *   /health/ready says 503 meanwhile.
 */
import type pg from 'pg';
import { type Reference, StorageUnavailableError, type Store, type StoredEntry, type Write } from '../store.ts';
import { type CachedReads, cachedReads } from './postgres-cache.ts';
import { connectionConfig, notAnswering, prepareServer } from './postgres-connect.ts';
import { StatementPool } from './postgres-pool.ts';
import { ANNOUNCED_PREFIX, changesChannel } from './postgres-schema.ts';
import { orderedWrites, prefixEnd, statementsFor, sweepStatementsFor } from './postgres-statements.ts';
import { describePostgres, type PostgresTarget, parsePostgresUrl } from './postgres-url.ts';

export { migratePostgresSchema } from './postgres-connect.ts';
export { prefixEnd } from './postgres-statements.ts';

export type PostgresStoreOptions = {
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /**
   * Bound on every statement, in ms (default 5000): the server's statement_timeout, and the
   * client's own wait for an answer (a frozen server or network) a second later. Waiting for a
   * free pooled connection, and connecting, are bounded by it too.
   */
  statementTimeoutMs?: number;
  /** Bound on the wait for a free pooled connection and on connecting, ms (default: statementTimeoutMs). */
  connectionTimeoutMs?: number;
  /** Run pending migrations at start (default true); false: only check the schema is current. */
  migrate?: boolean;
  /** How long to wait for another process's migration lock (ms, default 30 s). */
  lockTimeoutMs?: number;
  sweepIntervalMs?: number;
  /** Rows deleted per sweep statement (default 1000). */
  sweepBatch?: number;
  /** Told at start of what the operator should fix but that does not stop the store (autovacuum off). */
  warn?: (message: string) => void;
  /** Told of each statement this store sends (its name): for tests and measurements. */
  onStatement?: (name: string) => void;
  /**
   * Answer reads of client records from process memory, dropped when any replica changes one
   * (postgres-cache.ts): a long-running provider, not the CLI. Told when that starts or stops.
   */
  cacheClients?: (active: boolean, reason?: string) => void;
};

export type PostgresStore = Store & {
  readonly schema: string;
  getWithReferences: NonNullable<Store['getWithReferences']>;
  /** Deletes expired rows now, in bounded batches; resolves to how many rows went. */
  sweep(): Promise<number>;
  /** Statements sent so far, by name (also with onStatement). */
  readonly statements: Map<string, number>;
  /** Round trips so far: the ReadyForQuery answers on pooled connections once connected (set-up not counted). */
  roundTrips(): number;
};

const ttl = (seconds?: number) => (seconds === undefined ? null : seconds);
const rangeOf = (prefix: string) => [prefix, prefixEnd(prefix) ?? null] as const;
const left = (ttlMs: number | null) => (ttlMs === null ? {} : { ttlMs });

class PostgresStoreImpl implements PostgresStore {
  readonly kind = 'postgres';
  readonly statements: Map<string, number>;
  readonly #sql: ReturnType<typeof statementsFor>;
  readonly #sweepSql: ReturnType<typeof sweepStatementsFor>;
  readonly #cache: CachedReads | undefined;
  readonly #timer: NodeJS.Timeout;
  readonly #sweepBatch: number;
  #sweeping: Promise<unknown> | undefined;

  constructor(
    readonly schema: string,
    private readonly pool: StatementPool,
    private readonly where: string,
    options: PostgresStoreOptions & { cache?: CachedReads },
  ) {
    this.statements = pool.statements;
    this.#sql = statementsFor(`"${schema}"`);
    this.#sweepSql = sweepStatementsFor(`"${schema}"`);
    this.#cache = options.cache;
    this.#sweepBatch = options.sweepBatch ?? 1000;
    this.#timer = setInterval(() => this.#sweepInBackground(), options.sweepIntervalMs ?? 60_000);
    this.#timer.unref();
  }

  roundTrips(): number {
    return this.pool.roundTrips();
  }

  #run<R extends pg.QueryResultRow>(name: string, text: string, values: unknown[]) {
    return this.pool.run<R>(name, text, values);
  }

  /** Runs a write of `keys`: what memory holds of them is dropped before and after it. */
  async #writing<T>(keys: readonly string[], write: () => Promise<T>): Promise<T> {
    const cache = this.#cache;
    const covered = cache ? keys.filter((key) => cache.covers(key)) : [];
    if (!cache || covered.length === 0) return write();
    cache.writing(covered);
    try {
      return await write();
    } finally {
      cache.writing(covered);
    }
  }

  async get(key: string): Promise<string | undefined> {
    if (this.#cache?.covers(key)) {
      return this.#cache.read(key, async () => {
        const { rows } = await this.#run<{ value: string; expires: boolean }>('get_cacheable', this.#sql.getCacheable, [key]);
        return { value: rows[0]?.value, expires: rows[0]?.expires ?? false };
      });
    }
    const { rows } = await this.#run<{ value: string }>('get', this.#sql.get, [key]);
    return rows[0]?.value;
  }

  async getMany(keys: string[]): Promise<(string | undefined)[]> {
    if (keys.length === 0) return [];
    const { rows } = await this.#run<{ key: string; value: string }>('get_many', this.#sql.getMany, [keys]);
    const found = new Map(rows.map((row) => [row.key, row.value]));
    return keys.map((key) => found.get(key));
  }

  async getWithReferences(keys: string[], references: readonly Reference[]): Promise<Map<string, string | undefined>> {
    const found = new Map<string, string | undefined>(keys.map((key) => [key, undefined]));
    if (keys.length === 0) return found;
    const { rows } = await this.#run<{ key: string; value: string | null }>('get_with_references', this.#sql.getWithReferences, [
      keys,
      references.map((reference) => `{${reference.path.map((part) => JSON.stringify(part)).join(',')}}`),
      references.map((reference) => reference.prefix),
      references.map((reference) => reference.via ?? null),
    ]);
    for (const row of rows) found.set(row.key, row.value ?? undefined);
    return found;
  }

  async set(key: string, value: string, ttlSeconds?: number): Promise<void> {
    await this.#writing([key], () => this.#run('set', this.#sql.set, [key, value, ttl(ttlSeconds)]));
  }

  async setIfAbsent(key: string, value: string, ttlSeconds?: number): Promise<boolean> {
    const result = await this.#writing([key], () =>
      this.#run('set_if_absent', this.#sql.setIfAbsent, [key, value, ttl(ttlSeconds)]),
    );
    return result.rowCount === 1;
  }

  async delete(...keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.#writing(keys, () => this.#run('delete', this.#sql.delete, [keys]));
  }

  async addToSet(key: string, member: string, ttlSeconds?: number): Promise<void> {
    await this.#run('add_to_set', this.#sql.addToSet, [key, member, ttl(ttlSeconds)]);
  }

  async members(key: string): Promise<string[]> {
    const { rows } = await this.#run<{ member: string }>('members', this.#sql.members, [key]);
    return rows.map((row) => row.member);
  }

  async increment(key: string, ttlSeconds: number, by = 1): Promise<number> {
    const { rows } = await this.#run<{ value: string }>('increment', this.#sql.increment, [
      key,
      String(Math.trunc(by)),
      ttlSeconds,
    ]);
    return Number(rows[0]?.value);
  }

  async batch(writes: readonly Write[]): Promise<void> {
    const ordered = orderedWrites(writes);
    if (ordered.touched.length === 0) return;
    await this.#writing(ordered.touched, () => this.#run('batch', this.#sql.batch, ordered.parameters));
  }

  async keys(prefix: string): Promise<string[]> {
    const [from, to] = rangeOf(prefix);
    const { rows } =
      to === null
        ? await this.#run<{ key: string }>('keys_from', this.#sql.keysFrom, [from])
        : await this.#run<{ key: string }>('keys_between', this.#sql.keysBetween, [from, to]);
    return rows.map((row) => row.key);
  }

  async entries(prefix: string): Promise<StoredEntry[]> {
    const range = rangeOf(prefix);
    const [values, sets] = await Promise.all([
      this.#run<{ key: string; value: string; ttl_ms: number | null }>('entries_values', this.#sql.valuesBetween, [...range]),
      this.#run<{ key: string; ttl_ms: number | null; members: string[] }>('entries_sets', this.#sql.setsBetween, [...range]),
    ]);
    return [
      ...values.rows.map((row) => ({ key: row.key, value: row.value, ...left(row.ttl_ms) })),
      ...sets.rows.map((row) => ({ key: row.key, members: row.members, ...left(row.ttl_ms) })),
    ];
  }

  /**
   * Expired rows, now. Each statement is bounded (sweepBatch rows, one short transaction, one
   * pooled connection for a moment); the sweep goes on until a statement finds fewer, so it keeps
   * up however fast records expire (a cap of 100 statements a minute fell behind at 1,700 expiring
   * rows a second: bench/history.md).
   */
  async sweep(): Promise<number> {
    let removed = 0;
    while (!this.pool.closed) {
      const kv = await this.#run('sweep_kv', this.#sweepSql.kv, [this.#sweepBatch]);
      const sets = (await this.#run<{ n: number }>('sweep_sets', this.#sweepSql.sets, [this.#sweepBatch])).rows[0]?.n ?? 0;
      removed += (kv.rowCount ?? 0) + sets;
      if ((kv.rowCount ?? 0) < this.#sweepBatch && sets < this.#sweepBatch) break;
    }
    return removed;
  }

  #sweepInBackground(): void {
    this.#sweeping ??= this.sweep()
      .catch(() => {
        // the database is away: the next sweep tries again
      })
      .finally(() => {
        this.#sweeping = undefined;
      });
  }

  async ping(): Promise<void> {
    const { rows } = await this.#run<{ readonly: boolean }>('ping', this.#sql.ping, []);
    if (rows[0]?.readonly) {
      // A standby or a demoted primary: reconnect, and stay unready until a writable primary answers.
      this.pool.recycle();
      throw new StorageUnavailableError(
        `PostgreSQL (${this.where}): the server is read-only (a standby, or a primary demoted by a failover)`,
      );
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#sweeping;
    await this.#cache?.close();
    await this.pool.close();
  }
}

/** Connects, checks the server takes writes and migrates the schema (postgres-connect.ts), then answers. */
export async function createPostgresStore(
  url: string | PostgresTarget,
  options: PostgresStoreOptions = {},
): Promise<PostgresStore> {
  const target = typeof url === 'string' ? parsePostgresUrl(url) : url;
  const where = describePostgres(target);
  const statementTimeoutMs = options.statementTimeoutMs ?? 5000;
  let config: pg.ClientConfig;
  try {
    config = await connectionConfig(target, {
      statement_timeout: statementTimeoutMs,
      query_timeout: statementTimeoutMs + 1000,
      connectionTimeoutMillis: options.connectionTimeoutMs ?? statementTimeoutMs,
      keepAlive: true,
      ...(target.connectTimeoutSeconds ? { connectionTimeoutMillis: target.connectTimeoutSeconds * 1000 } : {}),
    });
  } catch (error) {
    throw notAnswering(where, error);
  }
  await prepareServer(config, target, options);
  const pool = new StatementPool(config, { where, poolSize: options.poolSize, onStatement: options.onStatement });
  const cache = options.cacheClients
    ? cachedReads(config, {
        prefix: ANNOUNCED_PREFIX,
        channel: changesChannel(target.schema),
        onChange: options.cacheClients,
        announce: async (payload) => {
          await pool.run('announce', 'SELECT pg_notify($1, $2)', [changesChannel(target.schema), payload]);
        },
      })
    : undefined;
  return new PostgresStoreImpl(target.schema, pool, where, { ...options, cache });
}
