/**
 * Client records answered from memory on PostgreSQL (postgres-cache.ts), against the machine's
 * PostgreSQL with two stores on one schema as two replicas: a second read costs no statement, a
 * change by either replica is seen by the other, the listening connection's loss stops answering
 * from memory until it is back, and what is not a client record (or expires) is never held.
 */
import { postgresSchema, sql, type TestSchema } from '@signet/testkit/postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresStore, type PostgresStore } from './postgres.ts';
import { cachedReads } from './postgres-cache.ts';

const schemas: TestSchema[] = [];
afterAll(async () => {
  await Promise.all(schemas.map((schema) => schema.drop()));
});

async function replicas(): Promise<{ a: PostgresStore; b: PostgresStore; schema: TestSchema; states: boolean[] }> {
  const schema = postgresSchema();
  schemas.push(schema);
  const states: boolean[] = [];
  const a = await createPostgresStore(schema.url, { cacheClients: (active) => states.push(active) });
  // The other replica writes; only `a` listens (so the one listening session on the channel is a's).
  const b = await createPostgresStore(schema.url);
  await expect.poll(() => states.at(-1), { timeout: 5000 }).toBe(true);
  return { a, b, schema, states };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const reads = (store: PostgresStore) => (store.statements.get('get_cacheable') ?? 0) + (store.statements.get('get') ?? 0);

describe('PostgreSQL store: client records from memory', () => {
  it('a second read of a client record costs no statement; another replica’s update and delete are seen', async () => {
    const { a, b } = await replicas();
    try {
      await b.set('oidc:Client:c1', 'v1');
      // Its announcement reaches `a` a moment after the commit; a read it overtakes is not kept.
      await sleep(100);
      expect(await a.get('oidc:Client:c1')).toBe('v1');
      const before = reads(a);
      expect(await a.get('oidc:Client:c1')).toBe('v1');
      expect(reads(a)).toBe(before);

      await b.set('oidc:Client:c1', 'v2');
      await expect.poll(() => a.get('oidc:Client:c1'), { timeout: 2000, interval: 10 }).toBe('v2');
      await b.batch([{ op: 'set', key: 'oidc:Client:c1', value: 'v3' }]);
      await expect.poll(() => a.get('oidc:Client:c1'), { timeout: 2000, interval: 10 }).toBe('v3');
      await b.delete('oidc:Client:c1');
      await expect.poll(() => a.get('oidc:Client:c1'), { timeout: 2000, interval: 10 }).toBeUndefined();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('a replica reads its own write at once (nothing read during the write is kept)', async () => {
    const { a, b } = await replicas();
    try {
      await a.set('oidc:Client:own', 'old');
      expect(await a.get('oidc:Client:own')).toBe('old');
      await a.set('oidc:Client:own', 'new');
      expect(await a.get('oidc:Client:own')).toBe('new');
      await a.delete('oidc:Client:own');
      expect(await a.get('oidc:Client:own')).toBeUndefined();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('holds no other key and no value that expires', async () => {
    const { a, b } = await replicas();
    try {
      await b.set('oidc:Client:short', 'x', 60);
      await b.set('oidc:Session:s', 'y');
      for (let i = 0; i < 2; i++) {
        expect(await a.get('oidc:Client:short')).toBe('x');
        expect(await a.get('oidc:Session:s')).toBe('y');
      }
      expect(a.statements.get('get_cacheable')).toBe(2);
      expect(a.statements.get('get')).toBe(2);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('when the listening connection is lost, reads go to the database (a change meanwhile is seen) until it is back', async () => {
    const { a, b, schema, states } = await replicas();
    try {
      await b.set('oidc:Client:c2', 'v1');
      await sleep(100);
      expect(await a.get('oidc:Client:c2')).toBe('v1');
      // The listener is the only session LISTENing on this schema's channel: end it from outside.
      const ended = await sql<{ ended: boolean }>(
        schema.url,
        `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE query LIKE 'LISTEN "signet_${schema.schema}"'`,
      );
      expect(ended).toEqual([{ ended: true }]);
      await expect.poll(() => states.at(-1), { timeout: 5000 }).toBe(false);
      // A change no one announced to `a` (its listener is down) is still what `a` reads.
      await sql(schema.url, `UPDATE "${schema.schema}".kv SET value = 'v2' WHERE key = 'oidc:Client:c2'`);
      expect(await a.get('oidc:Client:c2')).toBe('v2');
      // Back (a second later): answered from memory again, and exact.
      await expect.poll(() => states.at(-1), { timeout: 5000 }).toBe(true);
      expect(await a.get('oidc:Client:c2')).toBe('v2');
      const before = reads(a);
      expect(await a.get('oidc:Client:c2')).toBe('v2');
      expect(reads(a)).toBe(before);
      await b.set('oidc:Client:c2', 'v3');
      await expect.poll(() => a.get('oidc:Client:c2'), { timeout: 2000, interval: 10 }).toBe('v3');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('PostgreSQL store: announcements that do not arrive', () => {
  it('nothing is served from memory when the probe announcement never reaches the listener (a transaction-pooling PgBouncer)', async () => {
    const schema = postgresSchema();
    schemas.push(schema);
    const states: (boolean | string | undefined)[] = [];
    const cache = cachedReads(
      { connectionString: 'postgres://postgres@127.0.0.1:5432/test' },
      {
        prefix: 'oidc:Client:',
        channel: `signet_${schema.schema}`,
        // The probe is "sent" where the listener cannot hear it.
        announce: async () => {},
        probeTimeoutMs: 200,
        retryMs: 60_000,
        onChange: (active, reason) => states.push(active, reason),
      },
    );
    try {
      await sleep(600);
      expect(cache.active).toBe(false);
      let loads = 0;
      const load = async () => {
        loads += 1;
        return { value: 'v', expires: false };
      };
      await cache.read('oidc:Client:x', load);
      await cache.read('oidc:Client:x', load);
      expect(loads).toBe(2);
      // Never became active, so never told so.
      expect(states).toEqual([]);
    } finally {
      await cache.close();
    }
  });

  it('with a working listener, the probe arrives and memory serves', async () => {
    const { a, b } = await replicas();
    try {
      await b.set('oidc:Client:p', 'v');
      await sleep(100);
      await a.get('oidc:Client:p');
      const before = reads(a);
      await a.get('oidc:Client:p');
      expect(reads(a)).toBe(before);
      expect(a.statements.get('announce')).toBeGreaterThanOrEqual(1);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
