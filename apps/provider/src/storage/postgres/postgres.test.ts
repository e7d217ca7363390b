/**
 * What only the PostgreSQL store has to show, against the shared server (a schema per test):
 * statements and round trips per operation, atomic claims and counters under concurrency
 * (expired rows included), the expiry sweep and the indexes it and keys(prefix) use, migrations
 * several processes start at once, and the failures that must answer 503 instead of hanging.
 * What needs a server of its own (restarts, read-only, TLS) is in postgres-faults.test.ts.
 */
import { POSTGRES_URL, postgresSchema, sql, type TestSchema, withParameters } from '@signet/testkit/postgres';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../memory.ts';
import type { Store, StoredEntry, Write } from '../store.ts';
import { createPostgresStore, type PostgresStore, prefixEnd } from './postgres.ts';
import { LATEST_VERSION, migrationLockName } from './postgres-schema.ts';

const schemas: TestSchema[] = [];
const fresh = () => {
  const schema = postgresSchema();
  schemas.push(schema);
  return schema;
};
afterAll(async () => {
  await Promise.all(schemas.map((schema) => schema.drop()));
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function withStore<T>(run: (store: PostgresStore, schema: TestSchema) => Promise<T>, options = {}) {
  const schema = fresh();
  const store = await createPostgresStore(schema.url, options);
  try {
    return await run(store, schema);
  } finally {
    await store.close();
  }
}

describe('PostgreSQL store: statements and round trips', () => {
  it('every operation is one statement and one round trip; a batch of any size too', async () => {
    await withStore(async (store) => {
      await store.ping(); // the pool's first connection
      const count = async (work: () => Promise<unknown>) => {
        const statements = [...store.statements.values()].reduce((a, b) => a + b, 0);
        const trips = store.roundTrips();
        await work();
        return {
          statements: [...store.statements.values()].reduce((a, b) => a + b, 0) - statements,
          roundTrips: store.roundTrips() - trips,
        };
      };
      const one = { statements: 1, roundTrips: 1 };
      expect(await count(() => store.set('a', '1', 60))).toEqual(one);
      expect(await count(() => store.get('a'))).toEqual(one);
      expect(await count(() => store.getMany(['a', 'b', 'c']))).toEqual(one);
      expect(await count(() => store.setIfAbsent('c', '1', 60))).toEqual(one);
      expect(await count(() => store.increment('n', 60))).toEqual(one);
      expect(await count(() => store.addToSet('s', 'm', 60))).toEqual(one);
      expect(await count(() => store.members('s'))).toEqual(one);
      expect(await count(() => store.delete('a', 'b', 's'))).toEqual(one);
      const writes = Array.from({ length: 30 }, (_, i) => ({
        op: 'set' as const,
        key: `k${i}`,
        value: 'v'.repeat(500),
        ttlSeconds: 60,
      }));
      expect(
        await count(() =>
          store.batch([
            ...writes,
            { op: 'addToSet', key: 'grant', member: 'k1', ttlSeconds: 60 },
            { op: 'delete', keys: ['k2', 'k3'] },
          ]),
        ),
      ).toEqual(one);
      expect(await store.getMany(['k1', 'k2', 'k29'])).toEqual(['v'.repeat(500), undefined, 'v'.repeat(500)]);
    });
  });
});

describe('PostgreSQL store: a batch reduced to what it leaves behind, ordered by key', () => {
  // A small deterministic generator: the same batches on every run, many orders of deletes, sets
  // and adds over a few keys that are values, sets or both.
  let seed = 7;
  const random = (n: number) => {
    // mulberry32
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n) | 0;
  };
  const KEYS = ['a', 'b', 'c', 'g1', 'g2'];
  const TTLS = [undefined, 30, 60, 120];
  const randomWrite = (): Write => {
    const kind = random(3);
    const key = KEYS[random(KEYS.length)] as string;
    const ttlSeconds = TTLS[random(TTLS.length)];
    if (kind === 0) return { op: 'delete', keys: Array.from({ length: random(3) }, () => KEYS[random(KEYS.length)] as string) };
    if (kind === 1) return { op: 'set', key, value: `v${random(100)}`, ...(ttlSeconds === undefined ? {} : { ttlSeconds }) };
    return { op: 'addToSet', key, member: `m${random(4)}`, ...(ttlSeconds === undefined ? {} : { ttlSeconds }) };
  };
  /** Every live record, its value or members, and its expiry rounded to ten seconds (none: forever). */
  const state = async (store: Store) => {
    const entries = (await store.entries?.('')) ?? [];
    return entries
      .map((entry: StoredEntry) => ({
        key: entry.key,
        value: entry.value,
        members: entry.members === undefined ? undefined : [...entry.members].sort(),
        expires: entry.ttlMs === undefined ? 'never' : Math.round(entry.ttlMs / 10_000) * 10,
      }))
      .sort((x, y) => `${x.key} ${x.value === undefined}`.localeCompare(`${y.key} ${y.value === undefined}`));
  };

  it('leaves what the same writes one by one leave, over 300 random batches on stored records', async () => {
    await withStore(async (store) => {
      const memory = createMemoryStore();
      try {
        for (let round = 0; round < 300; round++) {
          const writes = Array.from({ length: 1 + random(10) }, randomWrite);
          await store.batch(writes);
          await memory.batch(writes);
          expect({ round, writes, state: await state(store) }).toEqual({ round, writes, state: await state(memory) });
        }
      } finally {
        await memory.close();
      }
    });
  });

  it('concurrent batches over the same keys in opposite orders all succeed (rows are locked in one order)', async () => {
    await withStore(
      async (store) => {
        const keys = Array.from({ length: 20 }, (_, i) => `k${i}`);
        await store.batch(keys.map((key) => ({ op: 'set', key, value: '0' })));
        const results = await Promise.allSettled(
          Array.from({ length: 16 }, (_, i) => {
            const order = i % 2 === 0 ? keys : [...keys].reverse();
            return store.batch(order.map((key) => ({ op: 'set', key, value: String(i) })));
          }),
        );
        expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
        // One batch wrote last, and wrote every key.
        expect(new Set(await store.getMany(keys)).size).toBe(1);
        // Batches of other shapes: deletes of some keys before sets of others, members added to
        // sets named like the values, in orders of their own.
        const mixed = await Promise.allSettled(
          Array.from({ length: 16 }, (_, i) => {
            const order = i % 2 === 0 ? keys : [...keys].reverse();
            return store.batch([
              { op: 'delete', keys: order.filter((_, j) => j % 3 === i % 3) },
              ...order.map((key) => ({ op: 'set' as const, key, value: String(i) })),
              ...order.map((key) => ({ op: 'addToSet' as const, key: `set:${key}`, member: String(i), ttlSeconds: 60 })),
            ]);
          }),
        );
        expect(mixed.filter((result) => result.status === 'rejected')).toEqual([]);
        expect(await store.members('set:k0')).toHaveLength(16);
      },
      { poolSize: 16 },
    );
  });
});

describe('PostgreSQL store: atomic operations', () => {
  it('setIfAbsent over an expired row: of concurrent callers exactly one wins', async () => {
    await withStore(
      async (store) => {
        for (let round = 0; round < 3; round++) {
          await store.set('lease', 'old', 0.05);
          await sleep(80);
          const results = await Promise.all(Array.from({ length: 16 }, (_, i) => store.setIfAbsent('lease', String(i), 60)));
          expect(results.filter(Boolean)).toHaveLength(1);
          expect(await store.get('lease')).toBe(String(results.indexOf(true)));
          await store.delete('lease');
        }
      },
      { poolSize: 8 },
    );
  });

  it('increment: concurrent increments all count, and an expired counter starts again', async () => {
    await withStore(
      async (store) => {
        const results = await Promise.all(Array.from({ length: 40 }, () => store.increment('hits', 60)));
        expect(results.sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
        expect(await store.increment('hits', 60, -5)).toBe(35);
        await store.set('window', '7', 0.05);
        await sleep(80);
        expect(await store.increment('window', 60, 2)).toBe(2);
      },
      { poolSize: 8 },
    );
  });

  it('a set re-created after it expired does not bring its old members back', async () => {
    await withStore(async (store) => {
      await store.addToSet('g', 'old', 0.05);
      await sleep(80);
      await store.addToSet('g', 'new', 60);
      expect(await store.members('g')).toEqual(['new']);
    });
  });

  it('values with no expiry are durable: another connection (another process) reads them', async () => {
    await withStore(async (store, schema) => {
      await store.set('account:1', '{"wallets":[]}');
      await store.batch([{ op: 'set', key: 'account:2', value: 'x' }]);
      const rows = await sql(schema.url, `SELECT key, expires_at FROM "${schema.schema}".kv ORDER BY key`);
      expect(rows).toEqual([
        { key: 'account:1', expires_at: null },
        { key: 'account:2', expires_at: null },
      ]);
    });
  });
});

describe('PostgreSQL store: expiry sweep', () => {
  it('one sweep goes on, a bounded statement at a time, until nothing expired is left (it keeps up with any rate)', async () => {
    const schema = fresh();
    const store = await createPostgresStore(schema.url, { sweepIntervalMs: 3_600_000, sweepBatch: 10 });
    try {
      await sql(
        schema.url,
        `INSERT INTO "${schema.schema}".kv (key, value, expires_at)
           SELECT 'gone:' || i, 'x', now() - interval '1 second' FROM generate_series(1, 1500) i`,
      );
      // 1,500 rows at 10 a statement: 150 statements (a sweep capped at 100 left 500 for the next minute).
      expect(await store.sweep()).toBe(1500);
      expect(store.statements.get('sweep_kv')).toBeGreaterThanOrEqual(150);
    } finally {
      await store.close();
      await schema.drop();
    }
  });

  it('deletes, on its own timer and in bounded batches, every expired row and set, and keeps the rest', async () => {
    const schema = fresh();
    await (await createPostgresStore(schema.url)).close();
    const s = `"${schema.schema}"`;
    await sql(
      schema.url,
      `INSERT INTO ${s}.kv (key, value, expires_at)
         SELECT 'gone:' || i, 'x', now() - interval '1 second' FROM generate_series(1, 25) i
       UNION ALL SELECT 'live:' || i, 'y', now() + interval '1 hour' FROM generate_series(1, 10) i
       UNION ALL SELECT 'forever', 'z', NULL;
       INSERT INTO ${s}.sets (key, expires_at) VALUES
         ('oidc:grant:old', now() - interval '1 second'), ('oidc:grant:new', now() + interval '1 hour'), ('oidc:grant:unbounded', NULL);
       INSERT INTO ${s}.set_members (key, member) VALUES
         ('oidc:grant:old', 'a'), ('oidc:grant:old', 'b'), ('oidc:grant:new', 'n'), ('oidc:grant:unbounded', 'u');`,
    );
    const counts = async () =>
      (
        await sql<{ expired: number; members: number }>(
          schema.url,
          `SELECT (SELECT count(*)::int FROM ${s}.kv WHERE key LIKE 'gone:%') AS expired, (SELECT count(*)::int FROM ${s}.set_members) AS members`,
        )
      )[0];
    expect(await counts()).toEqual({ expired: 25, members: 4 });
    const store = await createPostgresStore(schema.url, { sweepIntervalMs: 30, sweepBatch: 10 });
    try {
      // Expired rows are invisible before the sweep.
      expect(await store.get('gone:1')).toBeUndefined();
      expect(await store.members('oidc:grant:old')).toEqual([]);
      await expect.poll(counts, { timeout: 10_000, interval: 50 }).toEqual({ expired: 0, members: 2 });
      // 25 rows, 10 a statement: three statements, not one unbounded delete.
      expect(store.statements.get('sweep_kv')).toBeGreaterThanOrEqual(3);
      expect(await store.getMany(['live:10', 'forever'])).toEqual(['y', 'z']);
      expect(await store.members('oidc:grant:new')).toEqual(['n']);
      expect(await store.members('oidc:grant:unbounded')).toEqual(['u']);
      expect(await store.sweep()).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('the sweep reads the expiry indexes, and keys(prefix) a range of the primary key', async () => {
    await withStore(async (_store, schema) => {
      const s = `"${schema.schema}"`;
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      try {
        // A tiny table is read whole whatever its indexes: ask which index a plan can use.
        await client.query('SET enable_seqscan = off');
        const plan = async (text: string) =>
          (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`)).rows.map((row) => row['QUERY PLAN']).join('\n');
        expect(await plan(`SELECT ctid FROM ${s}.kv WHERE expires_at <= now() LIMIT 1000`)).toMatch(/Index .*kv_expiry/);
        expect(await plan(`SELECT ctid FROM ${s}.sets WHERE expires_at <= now() LIMIT 1000`)).toMatch(/Index .*sets_expiry/);
        expect(await plan(`SELECT key FROM ${s}.kv WHERE key >= 'oidc:Client:' AND key < 'oidc:Client;'`)).toMatch(
          /Index (Only )?Scan (using|on) kv_pkey/,
        );
      } finally {
        await client.end();
      }
    });
  });

  it('keys(prefix): a range in code point order, whatever the characters', async () => {
    expect(prefixEnd('oidc:Client:')).toBe('oidc:Client;');
    expect(prefixEnd('')).toBeUndefined();
    expect(prefixEnd('a\u{10ffff}')).toBe('b');
    await withStore(async (store) => {
      await store.batch(
        ['p:', 'p:a', 'p:é', 'p:\u{1f600}', 'p;', 'q', 'o\u{1f600}'].map((key) => ({ op: 'set' as const, key, value: '1' })),
      );
      expect((await store.keys('p:')).sort()).toEqual(['p:', 'p:a', 'p:é', 'p:\u{1f600}'].sort());
      expect((await store.keys('')).length).toBe(7);
    });
  });
});

describe('PostgreSQL store: migrations', () => {
  it('processes starting at once on an empty schema migrate it once; later starts change nothing', async () => {
    const schema = fresh();
    const stores = await Promise.all(Array.from({ length: 5 }, () => createPostgresStore(schema.url, { poolSize: 1 })));
    await Promise.all(stores.map((store) => store.close()));
    const rows = await sql(schema.url, `SELECT version, name FROM "${schema.schema}".schema_migrations`);
    expect(rows).toEqual([
      { version: 1, name: expect.any(String) },
      { version: 2, name: expect.any(String) },
      { version: 3, name: expect.any(String) },
    ]);
    expect(LATEST_VERSION).toBe(3);
  });

  it('waits a bounded time for another migration, then refuses in words naming the lock and PgBouncer', async () => {
    const schema = fresh();
    const holder = new pg.Client({ connectionString: POSTGRES_URL });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock(hashtext($1))', [migrationLockName(schema.schema)]);
      const started = Date.now();
      const error = await createPostgresStore(schema.url, { lockTimeoutMs: 400 }).catch((e: Error) => e);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(error).toMatchObject({ name: 'SettingsError' });
      expect((error as Error).message).toMatch(/^STORAGE_URL: could not take the advisory lock "signet migrations t_[0-9a-f]+"/);
      expect((error as Error).message).toMatch(/PgBouncer/);
      expect((error as Error).message).toMatch(/signet storage migrate/);
    } finally {
      await holder.end();
    }
    // Lock released: the migration goes through.
    await (await createPostgresStore(schema.url)).close();
  });

  it('refuses a schema newer than this build, and (migrate: false) one that is behind', async () => {
    const schema = fresh();
    const behind = await createPostgresStore(schema.url, { migrate: false }).catch((e: Error) => e);
    expect((behind as Error).message).toMatch(/is at version 0, this build needs 3: run signet storage migrate/);
    await (await createPostgresStore(schema.url)).close();
    await sql(schema.url, `INSERT INTO "${schema.schema}".schema_migrations (version, name) VALUES (99, 'from the future')`);
    const newer = await createPostgresStore(schema.url).catch((e: Error) => e);
    expect((newer as Error).message).toMatch(/at version 99, newer than this build of Signet knows \(3\)/);
  });
});

describe('PostgreSQL store: failures answer 503 (StorageUnavailableError), never hang', () => {
  it('nothing listening: the start stops naming STORAGE_URL and the host, never the password', async () => {
    const started = Date.now();
    const error = await createPostgresStore('postgres://signet:hunter2@127.0.0.1:1/signet?sslmode=disable', {
      statementTimeoutMs: 500,
    }).catch((e: Error) => e);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(error).toMatchObject({ name: 'SettingsError' });
    expect((error as Error).message).toMatch(/^STORAGE_URL: PostgreSQL at postgres:\/\/127\.0\.0\.1:1\/signet does not answer/);
    expect((error as Error).message).not.toContain('hunter2');
  });

  it('a read-only server is refused at start, in words', async () => {
    const schema = fresh();
    const readOnly = withParameters(schema.url, { options: '-c default_transaction_read_only=on' });
    const error = await createPostgresStore(readOnly).catch((e: Error) => e);
    expect(error).toMatchObject({ name: 'SettingsError' });
    expect((error as Error).message).toMatch(
      /is read-only \(default_transaction_read_only is on\).*point STORAGE_URL at the primary/,
    );
  });

  it('a statement past STORAGE_STATEMENT_TIMEOUT_MS, and a request finding no free connection, fail fast', async () => {
    await withStore(
      async (store, schema) => {
        await store.set('busy', '1');
        // Another session holds the row: the store's update waits for its lock, holding the pool's one connection.
        const holder = new pg.Client({ connectionString: POSTGRES_URL });
        await holder.connect();
        try {
          await holder.query('BEGIN');
          await holder.query(`SELECT * FROM "${schema.schema}".kv WHERE key = 'busy' FOR UPDATE`);
          const started = Date.now();
          const [blocked, waiting] = await Promise.allSettled([store.set('busy', '2'), sleep(50).then(() => store.get('other'))]);
          expect(Date.now() - started).toBeLessThan(4000);
          expect(blocked).toMatchObject({
            status: 'rejected',
            reason: { name: 'StorageUnavailableError', message: expect.stringMatching(/statement timeout.*\[57014\]/) },
          });
          expect(waiting).toMatchObject({
            status: 'rejected',
            reason: {
              name: 'StorageUnavailableError',
              message: expect.stringMatching(/timeout exceeded when trying to connect/),
            },
          });
        } finally {
          await holder.query('ROLLBACK');
          await holder.end();
        }
        // Nothing was left behind: the store answers again.
        expect(await store.get('busy')).toBe('1');
      },
      { poolSize: 1, statementTimeoutMs: 1500, connectionTimeoutMs: 300 },
    );
  });

  it('a write the database refuses for what it is (not for being away) is not a 503', async () => {
    await withStore(async (store) => {
      await store.set('text', 'not a number');
      await expect(store.increment('text', 60)).rejects.toMatchObject({ code: '22P02' });
      await expect(store.increment('text', 60)).rejects.not.toMatchObject({ name: 'StorageUnavailableError' });
    });
  });
});

describe('PostgreSQL store: a read that follows references', () => {
  it('a token, its consumed marker, its grant and its session through the uid record: one statement, one round trip', async () => {
    await withStore(async (store) => {
      await store.batch([
        { op: 'set', key: 'oidc:AccessToken:t1', value: JSON.stringify({ grantId: 'g1', sessionUid: 'u1' }), ttlSeconds: 60 },
        { op: 'set', key: 'oidc:Grant:g1', value: '{"jti":"g1"}', ttlSeconds: 60 },
        { op: 'set', key: 'oidc:Session:uid:u1', value: 's1', ttlSeconds: 60 },
        { op: 'set', key: 'oidc:Session:s1', value: '{"uid":"u1"}', ttlSeconds: 60 },
      ]);
      const [statements, trips] = [store.statements.get('get_with_references') ?? 0, store.roundTrips()];
      const found = await store.getWithReferences(
        ['oidc:AccessToken:t1', 'oidc:AccessToken:t1:consumed'],
        [
          { path: ['grantId'], prefix: 'oidc:Grant:' },
          { path: ['sessionUid'], prefix: 'oidc:Session:uid:', via: 'oidc:Session:' },
        ],
      );
      expect(found.size).toBe(5);
      expect(store.statements.get('get_with_references')).toBe(statements + 1);
      expect(store.roundTrips()).toBe(trips + 1);
    });
  });
});
