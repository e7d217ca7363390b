/**
 * The PostgreSQL schema and its versioned migrations. Each migration is SQL run once, in order;
 * `schema_migrations` records which ran. The provider migrates at start (several replicas
 * starting at once migrate once), and `signet storage migrate` does it as a separate step.
 *
 * Concurrency: a session advisory lock (pg_try_advisory_lock, polled until `lockTimeoutMs`) is
 * taken first, then all pending migrations run in one transaction begun after it (so it sees what
 * a process that migrated meanwhile committed): a second process waits, then finds nothing left to
 * do. A process killed mid-migration loses its session, and with it the lock and the transaction.
 * The lock needs the same server session from lock to unlock: a direct connection, or PgBouncer
 * in session mode (in transaction mode the unlock may reach another session, and the lock stays
 * held there: the next migration then waits and refuses in words). A process that finds the schema already at
 * the latest version takes no lock and changes nothing, so the provider needs no DDL right (and
 * no lock) once an operator migrated beforehand.
 */
import type { ClientBase } from 'pg';

/** Identifiers are checked by postgres-url.ts (lower-case letters, digits, underscores), then quoted. */
const q = (schema: string) => `"${schema}"`;

/**
 * Version 1. Keys sort in the C collation (byte order, which is code point order in UTF-8), so a
 * prefix is a range of the primary key's index (keys(prefix)) on any database locale. Expiry is
 * a timestamptz read against the database's clock (now()), the one clock every replica shares.
 * A set's expiry is the set's (never shortened, `sets`), its members a table of their own.
 * `add_to_set` and `apply_writes` (a request's writes in order: one statement, one round trip)
 * are functions so that a batch is one call.
 */
function version1(schema: string): string {
  const s = q(schema);
  return `
CREATE TABLE ${s}.kv (
  key text COLLATE "C" PRIMARY KEY,
  value text NOT NULL,
  expires_at timestamptz
);
CREATE INDEX kv_expiry ON ${s}.kv (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE ${s}.sets (
  key text COLLATE "C" PRIMARY KEY,
  expires_at timestamptz
);
CREATE INDEX sets_expiry ON ${s}.sets (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE ${s}.set_members (
  key text COLLATE "C" NOT NULL,
  member text NOT NULL,
  PRIMARY KEY (key, member)
);

-- Adds a member; the set lives at least ttl seconds more, never less than it already did (NULL: forever).
-- An expired set is dropped first, so its old members do not come back.
CREATE FUNCTION ${s}.add_to_set(k text, m text, ttl double precision) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  WITH expired AS (DELETE FROM ${s}.sets WHERE key = k AND expires_at <= now() RETURNING key)
  DELETE FROM ${s}.set_members WHERE key IN (SELECT key FROM expired);
  INSERT INTO ${s}.sets AS t (key, expires_at) VALUES (k, now() + ttl * interval '1 second')
  ON CONFLICT (key) DO UPDATE SET expires_at =
    CASE WHEN t.expires_at IS NULL OR excluded.expires_at IS NULL THEN NULL
         ELSE greatest(t.expires_at, excluded.expires_at) END;
  INSERT INTO ${s}.set_members (key, member) VALUES (k, m) ON CONFLICT DO NOTHING;
END
$fn$;

-- A request's writes, in order, in the caller's one transaction: op s (set), d (delete), a (add to set).
CREATE FUNCTION ${s}.apply_writes(ops text[], ks text[], vs text[], ttls double precision[]) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  FOR i IN 1 .. coalesce(array_length(ops, 1), 0) LOOP
    IF ops[i] = 's' THEN
      INSERT INTO ${s}.kv (key, value, expires_at) VALUES (ks[i], vs[i], now() + ttls[i] * interval '1 second')
      ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at;
    ELSIF ops[i] = 'd' THEN
      DELETE FROM ${s}.kv WHERE key = ks[i];
      DELETE FROM ${s}.sets WHERE key = ks[i];
      DELETE FROM ${s}.set_members WHERE key = ks[i];
    ELSIF ops[i] = 'a' THEN
      PERFORM ${s}.add_to_set(ks[i], vs[i], ttls[i]);
    ELSE
      RAISE EXCEPTION 'unknown write %', ops[i];
    END IF;
  END LOOP;
END
$fn$;
`;
}

/** The keys whose changes are announced (version 2): client records, which every request reads. */
export const ANNOUNCED_PREFIX = 'oidc:Client:';

/** The channel a schema's changes of announced keys go to (LISTEN / pg_notify; at most 63 bytes). */
export const changesChannel = (schema: string) => `signet_${schema}`.slice(0, 63);

/**
 * Version 2: every insert, update or delete of an announced key (ANNOUNCED_PREFIX) sends the key
 * on the schema's channel when its transaction commits, so that each provider may answer reads of
 * those keys from memory and drop a key the moment another replica changes it (postgres-cache.ts).
 */
function version2(schema: string): string {
  const s = q(schema);
  const channel = changesChannel(schema).replace(/'/g, "''");
  const prefix = ANNOUNCED_PREFIX.replace(/'/g, "''");
  return `
CREATE FUNCTION ${s}.announce_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM pg_notify('${channel}', CASE WHEN TG_OP = 'DELETE' THEN OLD.key ELSE NEW.key END);
  RETURN NULL;
END
$fn$;
CREATE TRIGGER kv_announce_write AFTER INSERT OR UPDATE ON ${s}.kv FOR EACH ROW
  WHEN (left(NEW.key, ${ANNOUNCED_PREFIX.length}) = '${prefix}') EXECUTE FUNCTION ${s}.announce_change();
CREATE TRIGGER kv_announce_delete AFTER DELETE ON ${s}.kv FOR EACH ROW
  WHEN (left(OLD.key, ${ANNOUNCED_PREFIX.length}) = '${prefix}') EXECUTE FUNCTION ${s}.announce_change();
`;
}

/**
 * Version 3: `read_with_references`, the keys asked for and what the first one's value names
 * (Store.getWithReferences): a token with its grant and session, one call. A function of plain
 * statements, each planned once per connection: the same reads as one statement of CTEs took
 * PostgreSQL ~1.5 ms to plan on every call (its generic plan looked dearer, so it was never
 * kept), more than the round trips it saved.
 */
function version3(schema: string): string {
  const s = q(schema);
  return `
CREATE FUNCTION ${s}.read_with_references(keys text[], paths text[], prefixes text[], lookups text[])
RETURNS TABLE (found_key text, found_value text) LANGUAGE plpgsql STABLE AS $fn$
DECLARE
  root text;
  doc jsonb;
  id text;
  val text;
BEGIN
  FOR i IN 1 .. coalesce(array_length(keys, 1), 0) LOOP
    SELECT t.value INTO val FROM ${s}.kv t WHERE t.key = keys[i] AND (t.expires_at IS NULL OR t.expires_at > now());
    found_key := keys[i]; found_value := val; RETURN NEXT;
    IF i = 1 THEN root := val; END IF;
  END LOOP;
  IF root IS NULL THEN RETURN; END IF;
  FOR i IN 1 .. coalesce(array_length(paths, 1), 0) LOOP
    IF cardinality(paths[i]::text[]) = 0 THEN
      id := root;
    ELSE
      doc := coalesce(doc, root::jsonb);
      IF jsonb_typeof(doc #> paths[i]::text[]) IS DISTINCT FROM 'string' THEN CONTINUE; END IF;
      id := doc #>> paths[i]::text[];
    END IF;
    found_key := prefixes[i] || id;
    SELECT t.value INTO val FROM ${s}.kv t WHERE t.key = found_key AND (t.expires_at IS NULL OR t.expires_at > now());
    found_value := val; RETURN NEXT;
    IF lookups[i] IS NOT NULL AND val IS NOT NULL THEN
      found_key := lookups[i] || val;
      SELECT t.value INTO val FROM ${s}.kv t WHERE t.key = found_key AND (t.expires_at IS NULL OR t.expires_at > now());
      found_value := val; RETURN NEXT;
    END IF;
  END LOOP;
END
$fn$;
`;
}

/** Every migration, in order: its version is its place in this list (1-based). Never edit one that shipped; add another. */
export const MIGRATIONS: readonly { name: string; sql: (schema: string) => string }[] = [
  { name: 'key-value, sets, batch function', sql: version1 },
  { name: 'client record changes announced', sql: version2 },
  { name: 'reads that follow references', sql: version3 },
];

export const LATEST_VERSION = MIGRATIONS.length;

/** The advisory lock migrations take: one per schema, named in errors. */
export const migrationLockName = (schema: string) => `signet migrations ${schema}`;

export class MigrationLockTimeout extends Error {}

export type MigrationResult = { from: number; to: number; applied: string[] };

/** The version a schema is at (0: not created yet), read without any lock. */
export async function schemaVersion(client: Pick<ClientBase, 'query'>, schema: string): Promise<number> {
  const table = await client.query<{ exists: boolean }>('SELECT to_regclass($1) IS NOT NULL AS exists', [
    `${q(schema)}.schema_migrations`,
  ]);
  if (!table.rows[0]?.exists) return 0;
  const found = await client.query<{ version: number | null }>(
    `SELECT max(version) AS version FROM ${q(schema)}.schema_migrations`,
  );
  return found.rows[0]?.version ?? 0;
}

/**
 * Brings `schema` to the latest version on this connection (a direct one: the caller's own
 * client, not a pooled statement), waiting at most `lockTimeoutMs` for another process's
 * migration. A schema newer than this build is refused (an older replica must not run against it).
 */
export async function migrate(
  client: ClientBase,
  schema: string,
  options: { lockTimeoutMs?: number } = {},
): Promise<MigrationResult> {
  const lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
  const current = await schemaVersion(client, schema);
  if (current > LATEST_VERSION) {
    throw new Error(
      `the schema ${schema} is at version ${current}, newer than this build of Signet knows (${LATEST_VERSION}): run a newer Signet`,
    );
  }
  if (current === LATEST_VERSION) return { from: current, to: current, applied: [] };
  const lock = migrationLockName(schema);
  const deadline = Date.now() + lockTimeoutMs;
  while (
    !(await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [lock])).rows[0]?.locked
  ) {
    if (Date.now() >= deadline) {
      throw new MigrationLockTimeout(
        `could not take the advisory lock "${lock}" (pg_advisory_lock(hashtext('${lock}'))) within ${lockTimeoutMs} ms: another process is migrating this schema, or holds that lock. Migrations need a direct connection to PostgreSQL (or PgBouncer in session mode): a transaction-pooling PgBouncer cannot keep a session's lock; run \`signet storage migrate\` against the database itself`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  try {
    // A transaction begun after the lock was taken sees what the process before committed.
    await client.query('BEGIN');
    try {
      const from = await schemaVersion(client, schema);
      const applied: string[] = [];
      if (from < LATEST_VERSION) {
        const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
        // CREATE SCHEMA needs the CREATE right on the database even with IF NOT EXISTS: only when absent.
        if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${q(schema)}`);
        await client.query(
          `CREATE TABLE IF NOT EXISTS ${q(schema)}.schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
        );
        for (let version = from + 1; version <= LATEST_VERSION; version++) {
          const migration = MIGRATIONS[version - 1] as (typeof MIGRATIONS)[number];
          await client.query(migration.sql(schema));
          await client.query(`INSERT INTO ${q(schema)}.schema_migrations (version, name) VALUES ($1, $2)`, [
            version,
            migration.name,
          ]);
          applied.push(`${version}: ${migration.name}`);
        }
      }
      await client.query('COMMIT');
      return { from, to: LATEST_VERSION, applied };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [lock]).catch(() => {});
  }
}
