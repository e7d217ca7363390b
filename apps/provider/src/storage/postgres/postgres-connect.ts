import { SettingsError } from '@signet/settings';
import pg from 'pg';
import { StorageUnavailableError } from '../store.ts';
import { LATEST_VERSION, MigrationLockTimeout, type MigrationResult, migrate, schemaVersion } from './postgres-schema.ts';
import { describePostgres, type PostgresTarget, parsePostgresUrl, tlsOptions } from './postgres-url.ts';

/** SQLSTATE classes and codes that mean the database cannot serve now, not that the request is wrong. */
const UNAVAILABLE_CODE = /^(08|53|57|58|28|3D000|25006|40001|40P01|55P03|55000|XX000)/;
/** Errors that mean this connection points at a server that can no longer take writes, or is going away. */
export const RECONNECT_CODE = /^(25006|57P01|57P02|57P03|08)/;

export function classify(error: unknown, where: string): Error {
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
export async function connectionConfig(target: PostgresTarget, base: pg.ClientConfig): Promise<pg.ClientConfig> {
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

/** A SettingsError for a server that does not answer (start stops, naming STORAGE_URL). */
export const notAnswering = (where: string, error: unknown) =>
  new SettingsError(`STORAGE_URL: PostgreSQL at ${where} does not answer (${(error as Error).message})`);

/**
 * At start, over a direct connection: the server must take writes (not a standby, not read-only);
 * autovacuum off is named in a warning; then the schema is migrated (or, with `migrate: false`,
 * checked to be this build's). Any failure stops the start, naming STORAGE_URL.
 */
export async function prepareServer(
  config: pg.ClientConfig,
  target: PostgresTarget,
  options: { migrate?: boolean; lockTimeoutMs?: number; warn?: (message: string) => void },
): Promise<void> {
  const where = describePostgres(target);
  const direct = new pg.Client(config);
  direct.on('error', () => {});
  try {
    try {
      await direct.connect();
    } catch (error) {
      throw notAnswering(where, error);
    }
    await checkWritable(direct, target, options.warn);
    if (options.migrate === false) await checkVersion(direct, target);
    else await migrate(direct, target.schema, { lockTimeoutMs: options.lockTimeoutMs });
  } catch (error) {
    if (error instanceof SettingsError) throw error;
    if (error instanceof MigrationLockTimeout) throw new SettingsError(`STORAGE_URL: ${error.message}`);
    throw new SettingsError(`STORAGE_URL: PostgreSQL at ${where}: ${(error as Error).message}`);
  } finally {
    await direct.end().catch(() => {});
  }
}

async function checkWritable(direct: pg.Client, target: PostgresTarget, warn?: (message: string) => void): Promise<void> {
  const where = describePostgres(target);
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
    warn?.(
      `PostgreSQL at ${where} has autovacuum off: the rows Signet deletes (every expired record) and updates leave dead space that only VACUUM reclaims, so the schema ${target.schema}'s tables and indexes grow and reads slow; turn autovacuum on, or VACUUM them on a schedule`,
    );
  }
}

async function checkVersion(direct: pg.Client, target: PostgresTarget): Promise<void> {
  const version = await schemaVersion(direct, target.schema);
  if (version !== LATEST_VERSION) {
    throw new SettingsError(
      `STORAGE_URL: the schema ${target.schema} at ${describePostgres(target)} is at version ${version}, this build needs ${LATEST_VERSION}: run signet storage migrate`,
    );
  }
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
    throw notAnswering(where, error);
  }
  const client = new pg.Client(config);
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    throw notAnswering(where, error);
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
