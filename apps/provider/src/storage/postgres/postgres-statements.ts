import type { Write } from '../store.ts';

const ALIVE = '(expires_at IS NULL OR expires_at > now())';

/** Every statement the store sends for a schema (`s`, quoted), each sent as a named prepared statement. */
export function statementsFor(s: string) {
  const alive = ALIVE;
  return {
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
}

/** The sweep's deletes: expired rows found through the expiry indexes, at most `$1` a statement. */
export function sweepStatementsFor(s: string) {
  return {
    kv: `DELETE FROM ${s}.kv WHERE ctid = ANY(ARRAY(
          SELECT ctid FROM ${s}.kv WHERE expires_at <= now() LIMIT $1 FOR UPDATE SKIP LOCKED)) AND expires_at <= now()`,
    sets: `WITH gone AS (DELETE FROM ${s}.sets WHERE ctid = ANY(ARRAY(
          SELECT ctid FROM ${s}.sets WHERE expires_at <= now() LIMIT $1 FOR UPDATE SKIP LOCKED)) AND expires_at <= now() RETURNING key),
          members AS (DELETE FROM ${s}.set_members m USING gone WHERE m.key = gone.key)
          SELECT count(*)::int AS n FROM gone`,
  };
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
export function orderedWrites(writes: readonly Write[]): {
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
