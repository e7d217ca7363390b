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
import { SettingsError } from '@signet/settings';
import pg from 'pg';
import { StorageUnavailableError, type Store, type StoredEntry, type Write } from '../store.ts';
import { type CachedReads, cachedReads } from './postgres-cache.ts';
import {
  ANNOUNCED_PREFIX,
  changesChannel,
  LATEST_VERSION,
  MigrationLockTimeout,
  type MigrationResult,
  migrate,
  schemaVersion,
} from './postgres-schema.ts';
import { describePostgres, type PostgresTarget, parsePostgresUrl, tlsOptions } from './postgres-url.ts';

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

/** SQLSTATE classes and codes that mean the database cannot serve now, not that the request is wrong. */
const UNAVAILABLE_CODE = /^(08|53|57|58|28|3D000|25006|40001|40P01|55P03|55000|XX000)/;
/** Errors that mean this connection points at a server that can no longer take writes, or is going away. */
const RECONNECT_CODE = /^(25006|57P01|57P02|57P03|08)/;

function classify(error: unknown, where: string): Error {
  const code = (error as { code?: unknown }).code;
  const message = (error as Error).message ?? String(error);
  // Node's own (ECONNREFUSED, ETIMEDOUT…) and pg's (connection terminated, timeouts) carry no SQLSTATE.
  const sqlstate = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
  if (sqlstate === undefined || UNAVAILABLE_CODE.test(sqlstate)) {
    const what = sqlstate === '25006' ? 'the server is read-only (a standby, or a primary demoted by a failover)' : message;
    return new StorageUnavailableError(`PostgreSQL (${where}): ${what}${sqlstate ? ` [${sqlstate}]` : ''}`, { cause: error });
  }
  return error as Error;
}

/** Where to connect and how, for pg: TLS decided per sslmode (prefer and allow probe once, at start). */
async function connectionConfig(target: PostgresTarget, base: pg.ClientConfig): Promise<pg.ClientConfig> {
  const config: pg.ClientConfig = {
    host: target.host,
    port: target.port,
    database: target.database,
    ...(target.user === undefined ? {} : { user: target.user }),
    ...(target.password === undefined ? {} : { password: target.password }),
    ...(target.options === undefined ? {} : { options: target.options }),
    application_name: target.applicationName ?? 'signet',
    ...base,
  };
  const mode = target.sslMode;
  if (mode === 'disable' || target.host.startsWith('/')) return { ...config, ssl: false };
  if (mode === 'require' || mode === 'verify-ca' || mode === 'verify-full') return { ...config, ssl: tlsOptions(target, mode) };
  // prefer: TLS (unverified) if the server offers it, else plain; allow: plain unless the server insists on TLS.
  // Neither verifies anything, so neither stops an active attacker: production uses verify-full.
  const tls = { ...config, ssl: tlsOptions(target, 'require') };
  const plain = { ...config, ssl: false as const };
  const order = mode === 'prefer' ? [tls, plain] : [plain, tls];
  let firstError: unknown;
  for (const candidate of order) {
    const client = new pg.Client(candidate);
    client.on('error', () => {});
    try {
      await client.connect();
      await client.end();
      return candidate;
    } catch (error) {
      await client.end().catch(() => {});
      firstError ??= error;
      const message = (error as Error).message;
      const noTls = /does not support SSL/.test(message);
      const needsTls = (error as { code?: string }).code === '28000' && /no encryption|SSL off/.test(message);
      if (!(noTls || needsTls)) throw error;
    }
  }
  throw firstError;
}

/**
 * `signet storage migrate`: brings the schema to this build's version over a direct connection
 * (as the provider does at start), and says what it did.
 */
export async function migratePostgresSchema(
  url: string | PostgresTarget,
  options: { lockTimeoutMs?: number; statementTimeoutMs?: number } = {},
): Promise<MigrationResult & { where: string; schema: string }> {
  const target = typeof url === 'string' ? parsePostgresUrl(url) : url;
  const where = describePostgres(target);
  const timeout = options.statementTimeoutMs ?? 60_000;
  let config: pg.ClientConfig;
  try {
    config = await connectionConfig(target, { statement_timeout: timeout, connectionTimeoutMillis: 10_000 });
  } catch (error) {
    throw new SettingsError(`STORAGE_URL: PostgreSQL at ${where} does not answer (${(error as Error).message})`);
  }
  const client = new pg.Client(config);
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    throw new SettingsError(`STORAGE_URL: PostgreSQL at ${where} does not answer (${(error as Error).message})`);
  }
  try {
    return { ...(await migrate(client, target.schema, { lockTimeoutMs: options.lockTimeoutMs })), where, schema: target.schema };
  } catch (error) {
    if (error instanceof MigrationLockTimeout) throw new SettingsError(`STORAGE_URL: ${error.message}`);
    throw error;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * A batch of writes as `apply_writes`' arguments (ops, keys, values, ttls), reduced to what the
 * writes, applied in order, leave behind, and ordered by key: for each key, its delete if one
 * came (value, set and members go), then its last value if set after that, then the members added
 * after it, each with the expiry those adds give the set (the longest; none if any has none).
 * Writes to different keys do not touch the same rows, so the order between keys is free: sorted,
 * every transaction locks the rows of any two keys in the same order, and concurrent batches
 * over the same keys cannot deadlock (in the order written they did: 40P01, a 503).
 * `touched`: every key written.
 */
function orderedWrites(writes: readonly Write[]): {
  touched: string[];
  parameters: [string[], string[], (string | null)[], (number | null)[]];
} {
  type Left = { deleted: boolean; value?: { value: string; ttl: number | null }; members?: Set<string>; ttl?: number | null };
  const left = new Map<string, Left>();
  const at = (key: string) => {
    let entry = left.get(key);
    if (!entry) {
      entry = { deleted: false };
      left.set(key, entry);
    }
    return entry;
  };
  for (const write of writes) {
    if (write.op === 'delete') {
      for (const key of write.keys) left.set(key, { deleted: true });
    } else if (write.op === 'set') {
      at(write.key).value = { value: write.value, ttl: write.ttlSeconds ?? null };
    } else {
      const entry = at(write.key);
      const ttl = write.ttlSeconds ?? null;
      if (entry.members === undefined) {
        entry.members = new Set();
        entry.ttl = ttl;
      } else {
        entry.ttl = entry.ttl === null || ttl === null ? null : Math.max(entry.ttl as number, ttl);
      }
      entry.members.add(write.member);
    }
  }
  const touched = [...left.keys()].sort();
  const ops: string[] = [];
  const keys: string[] = [];
  const values: (string | null)[] = [];
  const ttls: (number | null)[] = [];
  for (const key of touched) {
    const entry = left.get(key) as Left;
    if (entry.deleted) {
      ops.push('d');
      keys.push(key);
      values.push(null);
      ttls.push(null);
    }
    if (entry.value) {
      ops.push('s');
      keys.push(key);
      values.push(entry.value.value);
      ttls.push(entry.value.ttl);
    }
    for (const member of [...(entry.members ?? [])].sort()) {
      ops.push('a');
      keys.push(key);
      values.push(member);
      ttls.push(entry.ttl ?? null);
    }
  }
  return { touched, parameters: [ops, keys, values, ttls] };
}

/** The first key after every key starting with `prefix` (code point order, the C collation's), or undefined. */
export function prefixEnd(prefix: string): string | undefined {
  const points = [...prefix];
  while (points.length > 0) {
    const last = (points.pop() as string).codePointAt(0) as number;
    let next = last + 1;
    if (next >= 0xd800 && next <= 0xdfff) next = 0xe000;
    if (next <= 0x10ffff) return points.join('') + String.fromCodePoint(next);
  }
  return undefined;
}

export async function createPostgresStore(
  url: string | PostgresTarget,
  options: PostgresStoreOptions = {},
): Promise<PostgresStore> {
  const target = typeof url === 'string' ? parsePostgresUrl(url) : url;
  const where = describePostgres(target);
  const s = `"${target.schema}"`;
  const statementTimeoutMs = options.statementTimeoutMs ?? 5000;
  const base: pg.ClientConfig = {
    statement_timeout: statementTimeoutMs,
    query_timeout: statementTimeoutMs + 1000,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? statementTimeoutMs,
    keepAlive: true,
    ...(target.connectTimeoutSeconds ? { connectionTimeoutMillis: target.connectTimeoutSeconds * 1000 } : {}),
  };

  let config: pg.ClientConfig;
  try {
    config = await connectionConfig(target, base);
  } catch (error) {
    throw new SettingsError(`STORAGE_URL: PostgreSQL at ${where} does not answer (${(error as Error).message})`);
  }

  // At start: a direct connection checks the server takes writes, then migrates (or checks the version).
  const direct = new pg.Client(config);
  direct.on('error', () => {});
  try {
    try {
      await direct.connect();
    } catch (error) {
      throw new SettingsError(`STORAGE_URL: PostgreSQL at ${where} does not answer (${(error as Error).message})`);
    }
    const { rows } = await direct.query<{ recovery: boolean; readonly: string; autovacuum: string }>(
      "SELECT pg_is_in_recovery() AS recovery, current_setting('transaction_read_only') AS readonly, current_setting('autovacuum') AS autovacuum",
    );
    if (rows[0]?.recovery || rows[0]?.readonly === 'on') {
      throw new SettingsError(
        `STORAGE_URL: PostgreSQL at ${where} is read-only (${rows[0]?.recovery ? 'a hot standby' : 'default_transaction_read_only is on'}); Signet writes on every sign-in: point STORAGE_URL at the primary`,
      );
    }
    if (rows[0]?.autovacuum === 'off') {
      // Every expired record the sweep deletes, and every update, leaves a dead row that only
      // VACUUM reclaims: without it the tables and their indexes grow for as long as sign-ins go on.
      options.warn?.(
        `PostgreSQL at ${where} has autovacuum off: the rows Signet deletes (every expired record) and updates leave dead space that only VACUUM reclaims, so the schema ${target.schema}'s tables and indexes grow and reads slow; turn autovacuum on, or VACUUM them on a schedule`,
      );
    }
    if (options.migrate === false) {
      const version = await schemaVersion(direct, target.schema);
      if (version !== LATEST_VERSION) {
        throw new SettingsError(
          `STORAGE_URL: the schema ${target.schema} at ${where} is at version ${version}, this build needs ${LATEST_VERSION}: run signet storage migrate`,
        );
      }
    } else {
      await migrate(direct, target.schema, { lockTimeoutMs: options.lockTimeoutMs });
    }
  } catch (error) {
    if (error instanceof SettingsError) throw error;
    if (error instanceof MigrationLockTimeout) throw new SettingsError(`STORAGE_URL: ${error.message}`);
    throw new SettingsError(`STORAGE_URL: PostgreSQL at ${where}: ${(error as Error).message}`);
  } finally {
    await direct.end().catch(() => {});
  }

  let roundTrips = 0;
  const newPool = () => {
    const created = new pg.Pool({ ...config, max: options.poolSize ?? 10, idleTimeoutMillis: 30_000 });
    // An idle connection the server closed (a restart, a failover): the pool drops it; nothing to do here.
    created.on('error', () => {});
    // Each ReadyForQuery ends one exchange with the server: a round trip (measured, not assumed).
    created.on('connect', (client) => {
      (client as unknown as { connection: import('node:events').EventEmitter }).connection.on('readyForQuery', () => {
        roundTrips += 1;
      });
    });
    return created;
  };
  let pool = newPool();
  let closed = false;
  let lastRecycle = 0;
  /**
   * Every pooled connection dropped at once: after a server said it is read-only (a demoted
   * primary) or shutting down, the connections still open lead to that server; new ones go where
   * the host name now points (the new primary). At most once a second.
   */
  const recycle = () => {
    if (closed || Date.now() - lastRecycle < 1000) return;
    lastRecycle = Date.now();
    const old = pool;
    pool = newPool();
    old.end().catch(() => {});
  };

  const statements = new Map<string, number>();
  const run = async <R extends pg.QueryResultRow>(name: string, text: string, values: unknown[]): Promise<pg.QueryResult<R>> => {
    if (closed) throw new StorageUnavailableError(`PostgreSQL (${where}): the store is closed`);
    statements.set(name, (statements.get(name) ?? 0) + 1);
    options.onStatement?.(name);
    try {
      return await pool.query<R>({ name: `signet_${name}`, text, values });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && RECONNECT_CODE.test(code)) recycle();
      throw classify(error, where);
    }
  };

  const alive = '(expires_at IS NULL OR expires_at > now())';
  const SQL = {
    get: `SELECT value FROM ${s}.kv WHERE key = $1 AND ${alive}`,
    getCacheable: `SELECT value, expires_at IS NOT NULL AS expires FROM ${s}.kv WHERE key = $1 AND ${alive}`,
    getMany: `SELECT key, value FROM ${s}.kv WHERE key = ANY($1::text[]) AND ${alive}`,
    // The keys asked for ($1), and what the first one's value names ($2 paths, $3 prefixes, $4 lookup prefixes).
    getWithReferences: `SELECT found_key AS key, found_value AS value FROM ${s}.read_with_references($1::text[], $2::text[], $3::text[], $4::text[])`,
    set: `INSERT INTO ${s}.kv (key, value, expires_at) VALUES ($1, $2, now() + $3::float8 * interval '1 second')
          ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
    setIfAbsent: `INSERT INTO ${s}.kv AS t (key, value, expires_at) VALUES ($1, $2, now() + $3::float8 * interval '1 second')
          ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at
          WHERE t.expires_at IS NOT NULL AND t.expires_at <= now()
          RETURNING 1`,
    delete: `WITH kv AS (DELETE FROM ${s}.kv WHERE key = ANY($1::text[])), sets AS (DELETE FROM ${s}.sets WHERE key = ANY($1::text[]))
          DELETE FROM ${s}.set_members WHERE key = ANY($1::text[])`,
    addToSet: `SELECT ${s}.add_to_set($1, $2, $3::float8)`,
    members: `SELECT m.member FROM ${s}.sets t JOIN ${s}.set_members m ON m.key = t.key
          WHERE t.key = $1 AND (t.expires_at IS NULL OR t.expires_at > now())`,
    increment: `INSERT INTO ${s}.kv AS t (key, value, expires_at) VALUES ($1, $2::bigint::text, now() + $3::float8 * interval '1 second')
          ON CONFLICT (key) DO UPDATE SET
            value = CASE WHEN t.expires_at IS NOT NULL AND t.expires_at <= now() THEN excluded.value
                         ELSE (t.value::bigint + $2::bigint)::text END,
            expires_at = CASE WHEN t.expires_at IS NOT NULL AND t.expires_at <= now() THEN excluded.expires_at ELSE t.expires_at END
          RETURNING value`,
    batch: `SELECT ${s}.apply_writes($1::text[], $2::text[], $3::text[], $4::float8[])`,
    keysFrom: `SELECT key FROM ${s}.kv WHERE key >= $1 AND ${alive} UNION SELECT key FROM ${s}.sets WHERE key >= $1 AND ${alive}`,
    keysBetween: `SELECT key FROM ${s}.kv WHERE key >= $1 AND key < $2 AND ${alive}
          UNION SELECT key FROM ${s}.sets WHERE key >= $1 AND key < $2 AND ${alive}`,
    valuesBetween: `SELECT key, value, ceil(extract(epoch FROM expires_at - now()) * 1000)::float8 AS ttl_ms FROM ${s}.kv
          WHERE key >= $1 AND ($2::text IS NULL OR key < $2) AND ${alive} ORDER BY key`,
    setsBetween: `SELECT t.key, ceil(extract(epoch FROM t.expires_at - now()) * 1000)::float8 AS ttl_ms, array_agg(m.member ORDER BY m.member) AS members
          FROM ${s}.sets t JOIN ${s}.set_members m ON m.key = t.key
          WHERE t.key >= $1 AND ($2::text IS NULL OR t.key < $2) AND (t.expires_at IS NULL OR t.expires_at > now())
          GROUP BY t.key, t.expires_at ORDER BY t.key`,
    ping: "SELECT pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on' AS readonly",
  };
  /** The sweep's deletes: expired rows found through the expiry indexes, at most `$1` a statement. */
  const SWEEP = {
    kv: `DELETE FROM ${s}.kv WHERE ctid = ANY(ARRAY(
          SELECT ctid FROM ${s}.kv WHERE expires_at <= now() LIMIT $1 FOR UPDATE SKIP LOCKED)) AND expires_at <= now()`,
    sets: `WITH gone AS (DELETE FROM ${s}.sets WHERE ctid = ANY(ARRAY(
          SELECT ctid FROM ${s}.sets WHERE expires_at <= now() LIMIT $1 FOR UPDATE SKIP LOCKED)) AND expires_at <= now() RETURNING key),
          members AS (DELETE FROM ${s}.set_members m USING gone WHERE m.key = gone.key)
          SELECT count(*)::int AS n FROM gone`,
  };
  const ttl = (seconds?: number) => (seconds === undefined ? null : seconds);

  const sweepBatch = options.sweepBatch ?? 1000;
  const sweep = async () => {
    let removed = 0;
    // Each statement is bounded (sweepBatch rows, one short transaction, one pooled connection
    // for a moment); the sweep goes on until a statement finds fewer, so it keeps up however
    // fast records expire (a cap of 100 statements a minute fell behind at 1,700 expiring rows
    // a second: bench/history.md).
    while (!closed) {
      const kv = await run('sweep_kv', SWEEP.kv, [sweepBatch]);
      const sets = (await run<{ n: number }>('sweep_sets', SWEEP.sets, [sweepBatch])).rows[0]?.n ?? 0;
      removed += (kv.rowCount ?? 0) + sets;
      if ((kv.rowCount ?? 0) < sweepBatch && sets < sweepBatch) break;
    }
    return removed;
  };
  let sweeping: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    sweeping ??= sweep()
      .catch(() => {
        // the database is away: the next sweep tries again
      })
      .finally(() => {
        sweeping = undefined;
      });
  }, options.sweepIntervalMs ?? 60_000);
  timer.unref();

  const rangeOf = (prefix: string) => [prefix, prefixEnd(prefix) ?? null] as const;

  const cache: CachedReads | undefined = options.cacheClients
    ? cachedReads(config, {
        prefix: ANNOUNCED_PREFIX,
        channel: changesChannel(target.schema),
        onChange: options.cacheClients,
        announce: async (payload) => {
          await run('announce', 'SELECT pg_notify($1, $2)', [changesChannel(target.schema), payload]);
        },
      })
    : undefined;
  /** Runs a write of `keys`: what memory holds of them is dropped before and after it. */
  const writing = async <T>(keys: readonly string[], write: () => Promise<T>): Promise<T> => {
    const covered = cache ? keys.filter((key) => cache.covers(key)) : [];
    if (covered.length === 0) return write();
    cache?.writing(covered);
    try {
      return await write();
    } finally {
      cache?.writing(covered);
    }
  };

  return {
    kind: 'postgres',
    schema: target.schema,
    statements,
    roundTrips: () => roundTrips,
    sweep,
    async get(key) {
      if (cache?.covers(key)) {
        return cache.read(key, async () => {
          const { rows } = await run<{ value: string; expires: boolean }>('get_cacheable', SQL.getCacheable, [key]);
          return { value: rows[0]?.value, expires: rows[0]?.expires ?? false };
        });
      }
      const { rows } = await run<{ value: string }>('get', SQL.get, [key]);
      return rows[0]?.value;
    },
    async getMany(keys) {
      if (keys.length === 0) return [];
      const { rows } = await run<{ key: string; value: string }>('get_many', SQL.getMany, [keys]);
      const found = new Map(rows.map((row) => [row.key, row.value]));
      return keys.map((key) => found.get(key));
    },
    async getWithReferences(keys, references) {
      const found = new Map<string, string | undefined>(keys.map((key) => [key, undefined]));
      if (keys.length === 0) return found;
      const { rows } = await run<{ key: string; value: string | null }>('get_with_references', SQL.getWithReferences, [
        keys,
        references.map((reference) => `{${reference.path.map((part) => JSON.stringify(part)).join(',')}}`),
        references.map((reference) => reference.prefix),
        references.map((reference) => reference.via ?? null),
      ]);
      for (const row of rows) found.set(row.key, row.value ?? undefined);
      return found;
    },
    async set(key, value, ttlSeconds) {
      await writing([key], () => run('set', SQL.set, [key, value, ttl(ttlSeconds)]));
    },
    async setIfAbsent(key, value, ttlSeconds) {
      const result = await writing([key], () => run('set_if_absent', SQL.setIfAbsent, [key, value, ttl(ttlSeconds)]));
      return result.rowCount === 1;
    },
    async delete(...keys) {
      if (keys.length === 0) return;
      await writing(keys, () => run('delete', SQL.delete, [keys]));
    },
    async addToSet(key, member, ttlSeconds) {
      await run('add_to_set', SQL.addToSet, [key, member, ttl(ttlSeconds)]);
    },
    async members(key) {
      const { rows } = await run<{ member: string }>('members', SQL.members, [key]);
      return rows.map((row) => row.member);
    },
    async increment(key, ttlSeconds, by = 1) {
      const { rows } = await run<{ value: string }>('increment', SQL.increment, [key, String(Math.trunc(by)), ttlSeconds]);
      return Number(rows[0]?.value);
    },
    async batch(writes) {
      const ordered = orderedWrites(writes);
      if (ordered.touched.length === 0) return;
      await writing(ordered.touched, () => run('batch', SQL.batch, ordered.parameters));
    },
    async keys(prefix) {
      const [from, to] = rangeOf(prefix);
      const { rows } =
        to === null
          ? await run<{ key: string }>('keys_from', SQL.keysFrom, [from])
          : await run<{ key: string }>('keys_between', SQL.keysBetween, [from, to]);
      return rows.map((row) => row.key);
    },
    async entries(prefix) {
      const range = rangeOf(prefix);
      const [values, sets] = await Promise.all([
        run<{ key: string; value: string; ttl_ms: number | null }>('entries_values', SQL.valuesBetween, [...range]),
        run<{ key: string; ttl_ms: number | null; members: string[] }>('entries_sets', SQL.setsBetween, [...range]),
      ]);
      const entries: StoredEntry[] = [
        ...values.rows.map((row) => ({ key: row.key, value: row.value, ...(row.ttl_ms === null ? {} : { ttlMs: row.ttl_ms }) })),
        ...sets.rows.map((row) => ({
          key: row.key,
          members: row.members,
          ...(row.ttl_ms === null ? {} : { ttlMs: row.ttl_ms }),
        })),
      ];
      return entries;
    },
    async ping() {
      const { rows } = await run<{ readonly: boolean }>('ping', SQL.ping, []);
      if (rows[0]?.readonly) {
        // A standby or a demoted primary: reconnect, and stay unready until a writable primary answers.
        recycle();
        throw new StorageUnavailableError(
          `PostgreSQL (${where}): the server is read-only (a standby, or a primary demoted by a failover)`,
        );
      }
    },
    async close() {
      clearInterval(timer);
      await sweeping;
      closed = true;
      await cache?.close();
      await pool.end().catch(() => {});
    },
  };
}
