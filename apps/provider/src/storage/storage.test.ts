import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresSchema, type TestSchema } from '@signet/testkit/postgres';
import { startRedisCluster } from '@signet/testkit/redis';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createOidcAdapter } from './adapter.ts';
import { createMemoryStore } from './memory.ts';
import { createPostgresStore } from './postgres/postgres.ts';
import { createRedisStore } from './redis/redis.ts';
import { createSqliteStore } from './sqlite/sqlite.ts';
import { loadDatabase } from './sqlite/sqlite-driver.ts';
import type { Store, Write } from './store.ts';
import { withUnitsOfWork } from './unit-of-work.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const dir = mkdtempSync(join(tmpdir(), 'signet-store-'));
// A three-primary Redis Cluster of this file's own: keys of one test land on different nodes.
const cluster = await startRedisCluster(3);
// PostgreSQL: a schema of each store's own on the shared server, all dropped at the end.
const schemas: TestSchema[] = [];
const postgresStore = () => {
  const schema = postgresSchema();
  schemas.push(schema);
  return createPostgresStore(schema.url);
};
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await cluster.stop();
  await Promise.all(schemas.map((schema) => schema.drop()));
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// One suite, five real stores: the same cases must give the same results.
const factories: [string, () => Store | Promise<Store>][] = [
  ['memory', () => createMemoryStore()],
  ['sqlite', () => createSqliteStore(join(dir, `${randomUUID()}.db`))],
  ['redis', () => createRedisStore(REDIS_URL, { prefix: `signet-test:${randomUUID()}:` })],
  ['redis cluster', () => createRedisStore(cluster.url, { prefix: `signet-test:${randomUUID()}:` })],
  ['postgres', postgresStore],
];

/** A fresh store from `factory` for each test (closed after it). */
function storeUnderTest(factory: () => Store | Promise<Store>) {
  let store: Store;

  beforeEach(async () => {
    store = await factory();
    await store.ping();
    return () => store.close();
  });

  return {
    get store() {
      return store;
    },
  };
}
type StoreUnderTest = ReturnType<typeof storeUnderTest>;

/** Reads, writes, expiry, sets, counters and key listing. */
function keyValueTests(env: StoreUnderTest) {
  it('gets, sets, overwrites and deletes', async () => {
    const { store } = env;
    expect(await store.get('a')).toBeUndefined();
    await store.set('a', '1');
    await store.set('b', '2', 60);
    await store.set('a', '3');
    expect(await store.getMany(['a', 'b', 'c'])).toEqual(['3', '2', undefined]);
    await store.delete('a', 'b');
    expect(await store.getMany(['a', 'b'])).toEqual([undefined, undefined]);
  });

  it('expires values after their TTL', async () => {
    const { store } = env;
    await store.set('short', 'x', 0.2);
    await store.set('long', 'y', 60);
    expect(await store.get('short')).toBe('x');
    await sleep(350);
    expect(await store.get('short')).toBeUndefined();
    expect(await store.get('long')).toBe('y');
  });

  it('setIfAbsent: exactly one of many concurrent callers wins', async () => {
    const { store } = env;
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.setIfAbsent('once', String(i), 60)));
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results.indexOf(true);
    expect(await store.get('once')).toBe(String(winner));
    expect(await store.setIfAbsent('once', 'again')).toBe(false);
  });

  it('setIfAbsent succeeds again once the value expired', async () => {
    const { store } = env;
    expect(await store.setIfAbsent('lease', 'a', 0.2)).toBe(true);
    await sleep(350);
    expect(await store.setIfAbsent('lease', 'b', 60)).toBe(true);
    expect(await store.get('lease')).toBe('b');
  });

  it('keeps set members, never shortens a set, and forgets it when deleted', async () => {
    const { store } = env;
    await store.addToSet('s', 'one', 0.3);
    await store.addToSet('s', 'two', 60);
    await store.addToSet('s', 'two', 0.1);
    await sleep(450);
    expect((await store.members('s')).sort()).toEqual(['one', 'two']);
    await store.addToSet('forever', 'x');
    await store.addToSet('forever', 'y', 0.1);
    await sleep(250);
    expect((await store.members('forever')).sort()).toEqual(['x', 'y']);
    await store.delete('s');
    expect(await store.members('s')).toEqual([]);
  });

  it('an expired set is gone: a member added after it expired starts a new set without the old members', async () => {
    const { store } = env;
    await store.addToSet('lapsed', 'old', 0.1);
    await sleep(250);
    await store.addToSet('lapsed', 'new', 60);
    expect(await store.members('lapsed')).toEqual(['new']);
    expect(await store.keys('lapsed')).toEqual(['lapsed']);
  });

  it('counts within a window that starts at the first increment', async () => {
    const { store } = env;
    expect(await store.increment('hits', 0.3)).toBe(1);
    expect(await store.increment('hits', 0.3, 2)).toBe(3);
    await sleep(450);
    expect(await store.increment('hits', 60)).toBe(1);
  });

  it('lists keys by prefix', async () => {
    const { store } = env;
    await store.set('clients:a', '1');
    await store.set('clients:b', '1');
    await store.set('other:c', '1');
    await store.addToSet('clients:set', 'x');
    expect((await store.keys('clients:')).sort()).toEqual(['clients:a', 'clients:b', 'clients:set']);
  });
}

/** Batches and units of work. */
function batchAndUnitOfWorkTests(env: StoreUnderTest) {
  it('stores a batch of writes in order, with the same results as one by one', async () => {
    const { store } = env;
    await store.set('kept', 'old');
    await store.batch([
      { op: 'set', key: 'a', value: '1' },
      { op: 'set', key: 'b', value: '2', ttlSeconds: 0.2 },
      { op: 'addToSet', key: 'grant', member: 'a', ttlSeconds: 60 },
      { op: 'addToSet', key: 'grant', member: 'b', ttlSeconds: 0.1 },
      { op: 'delete', keys: ['kept'] },
      { op: 'set', key: 'a', value: '3' },
    ]);
    expect(await store.getMany(['a', 'b', 'kept'])).toEqual(['3', '2', undefined]);
    await sleep(350);
    expect(await store.get('b')).toBeUndefined();
    expect((await store.members('grant')).sort()).toEqual(['a', 'b']); // the set's TTL never shortened
    await store.batch([]);
    // A delete of no keys is nothing, within a batch too.
    await store.batch([{ op: 'delete', keys: [] }]);
    await store.batch([
      { op: 'delete', keys: [] },
      { op: 'set', key: 'c', value: '4' },
    ]);
    expect(await store.get('c')).toBe('4');
  });

  it('a unit of work holds its writes until it ends, and reads them back meanwhile', async () => {
    const { store } = env;
    const units = withUnitsOfWork(store);
    await store.set('before', 'x');
    const outcome = await units.run(async () => {
      await units.set('held', '1', 60);
      await units.addToSet('grant', 'held', 60);
      await units.delete('before');
      // Outside the unit nothing has changed yet; inside, the writes read back.
      expect(await store.getMany(['held', 'before'])).toEqual([undefined, 'x']);
      expect(await units.getMany(['held', 'before'])).toEqual(['1', undefined]);
      // An atomic operation runs on the store at once; held writes to its own key are stored first.
      expect(await units.setIfAbsent('claim', 'mine', 60)).toBe(true);
      expect(await store.getMany(['claim', 'held'])).toEqual(['mine', undefined]);
      expect(await units.setIfAbsent('held', 'again', 60)).toBe(false);
      expect(await store.get('held')).toBe('1');
      expect(await units.members('grant')).toEqual(['held']);
      await units.set('late', '2');
      expect(await store.get('late')).toBeUndefined();
      return 'done';
    });
    expect(outcome).toBe('done');
    expect(await store.getMany(['late', 'claim'])).toEqual(['2', 'mine']);
  });

  it('a unit of work that fails still stores what it wrote, and work it left running writes directly', async () => {
    const { store } = env;
    const units = withUnitsOfWork(store);
    let leftRunning: Promise<void> | undefined;
    await expect(
      units.run(async () => {
        await units.set('released', 'yes');
        leftRunning = sleep(50).then(() => units.set('afterwards', 'direct'));
        throw new Error('the handler failed');
      }),
    ).rejects.toThrow('the handler failed');
    expect(await store.get('released')).toBe('yes');
    await leftRunning;
    expect(await store.get('afterwards')).toBe('direct');
    // Outside any unit, writes are stored at once.
    await units.set('plain', 'now');
    expect(await store.get('plain')).toBe('now');
  });
}

/** The oidc-provider adapter over the store. */
function adapterTests(env: StoreUnderTest) {
  describe('oidc-provider adapter', () => {
    let Adapter: ReturnType<typeof createOidcAdapter>;
    beforeEach(() => {
      Adapter = createOidcAdapter(env.store);
    });

    it('stores, finds and destroys a model by id', async () => {
      const codes = new Adapter('AuthorizationCode');
      await codes.upsert('c1', { jti: 'c1', grantId: 'g1', exp: Math.floor(Date.now() / 1000) + 60 }, 60);
      expect(await codes.find('c1')).toMatchObject({ jti: 'c1', grantId: 'g1' });
      expect(await new Adapter('AccessToken').find('c1')).toBeUndefined();
      await codes.destroy('c1');
      expect(await codes.find('c1')).toBeUndefined();
    });

    it('consumes a code once: of concurrent consumers exactly one wins, the rest revoke the grant', async () => {
      const codes = new Adapter('AuthorizationCode');
      const tokens = new Adapter('AccessToken');
      const exp = Math.floor(Date.now() / 1000) + 60;
      await codes.upsert('code', { jti: 'code', grantId: 'g', exp }, 60);
      await tokens.upsert('at', { jti: 'at', grantId: 'g', exp }, 60);
      const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => codes.consume('code')));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const failures = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(failures).toHaveLength(9);
      expect(failures[0]?.reason).toMatchObject({ error: 'invalid_grant', error_detail: 'authorization code already consumed' });
      expect(await codes.find('code')).toBeUndefined();
      expect(await tokens.find('at')).toBeUndefined();
    });

    it('reports consumption on find', async () => {
      const codes = new Adapter('AuthorizationCode');
      await codes.upsert('c2', { jti: 'c2', exp: Math.floor(Date.now() / 1000) + 60 }, 60);
      await codes.consume('c2');
      expect((await codes.find('c2'))?.consumed).toEqual(expect.any(Number));
    });

    it('revokes everything issued under a grant', async () => {
      const exp = Math.floor(Date.now() / 1000) + 60;
      await new Adapter('AccessToken').upsert('a1', { jti: 'a1', grantId: 'gx', exp }, 60);
      await new Adapter('RefreshToken').upsert('r1', { jti: 'r1', grantId: 'gx', exp }, 60);
      await new Adapter('AccessToken').upsert('a2', { jti: 'a2', grantId: 'other', exp }, 60);
      await new Adapter('AccessToken').revokeByGrantId('gx');
      expect(await new Adapter('AccessToken').find('a1')).toBeUndefined();
      expect(await new Adapter('RefreshToken').find('r1')).toBeUndefined();
      expect(await new Adapter('AccessToken').find('a2')).toBeDefined();
    });

    it('finds sessions by uid and device codes by user code', async () => {
      await new Adapter('Session').upsert('s1', { jti: 's1', uid: 'u1' }, 60);
      expect(await new Adapter('Session').findByUid('u1')).toMatchObject({ jti: 's1' });
      await new Adapter('DeviceCode').upsert('d1', { jti: 'd1', userCode: 'ABCD' }, 60);
      expect(await new Adapter('DeviceCode').findByUserCode('ABCD')).toMatchObject({ jti: 'd1' });
    });

    it('keeps clients (no TTL) and keeps interactions an hour past their expiry', async () => {
      await new Adapter('Client').upsert('cl', { client_id: 'cl' });
      expect(await new Adapter('Client').find('cl')).toEqual({ client_id: 'cl' });
      await new Adapter('Interaction').upsert('i1', { jti: 'i1' }, 0.2);
      await sleep(350);
      expect(await new Adapter('Interaction').find('i1')).toMatchObject({ jti: 'i1' });
    });
  });
}

describe.each(factories)('%s store', (_kind, factory) => {
  const env = storeUnderTest(factory);
  keyValueTests(env);
  batchAndUnitOfWorkTests(env);
  adapterTests(env);
});

// A write the storage refuses inside a batch: SQLite and PostgreSQL refuse a NULL value (NOT NULL),
// Redis a command on a key of another type (WRONGTYPE). The memory store has no refusal to make.
describe.each([
  ['sqlite', factories[1]?.[1], { op: 'set', key: 'bad', value: null as unknown as string }, [undefined, undefined]],
  ['postgres', postgresStore, { op: 'set', key: 'bad', value: null as unknown as string }, [undefined, undefined]],
  ['redis', factories[2]?.[1], { op: 'addToSet', key: 'plain', member: 'x', ttlSeconds: 60 }, ['1', '2']],
  ['redis cluster', factories[3]?.[1], { op: 'addToSet', key: 'plain', member: 'x', ttlSeconds: 60 }, ['1', '2']],
] as [string, () => Store | Promise<Store>, Write, (string | undefined)[]][])(
  '%s store: a batch with a refused write',
  (_kind, factory, refused, kept) => {
    it('fails, and keeps what its kind of storage keeps of the rest (SQLite, PostgreSQL: nothing, one transaction; Redis: the other commands)', async () => {
      const store = await factory();
      try {
        await store.set('plain', 'text');
        await expect(
          store.batch([{ op: 'set', key: 'first', value: '1' }, refused, { op: 'set', key: 'last', value: '2' }]),
        ).rejects.toThrow();
        expect(await store.getMany(['first', 'last'])).toEqual(kept);
        expect(await store.get('plain')).toBe('text');
      } finally {
        await store.close();
      }
    });
  },
);

// A read that follows references (Store.getWithReferences): the stores that can (one statement,
// one script); the others (and a Cluster, which cannot route keys a script finds) have none, and
// the unit of work reads as before.
describe.each([
  ['redis', factories[2]?.[1]],
  ['postgres', factories[4]?.[1]],
] as const)('%s store: a read that follows references', (_kind, factory) => {
  const GRANT = { path: ['grantId'], prefix: 'oidc:Grant:' };
  const SESSION = { path: ['sessionUid'], prefix: 'oidc:Session:uid:', via: 'oidc:Session:' };
  let store: Store & { getWithReferences: NonNullable<Store['getWithReferences']> };
  beforeEach(async () => {
    store = (await (factory as () => Promise<Store>)()) as typeof store;
    return () => store.close();
  });

  it('a token, its consumed marker, its grant, and its session through the uid record', async () => {
    await store.batch([
      { op: 'set', key: 'oidc:AccessToken:t1', value: JSON.stringify({ grantId: 'g1', sessionUid: 'u1' }), ttlSeconds: 60 },
      { op: 'set', key: 'oidc:Grant:g1', value: '{"jti":"g1"}', ttlSeconds: 60 },
      { op: 'set', key: 'oidc:Session:uid:u1', value: 's1', ttlSeconds: 60 },
      { op: 'set', key: 'oidc:Session:s1', value: '{"uid":"u1"}', ttlSeconds: 60 },
    ]);
    const found = await store.getWithReferences(['oidc:AccessToken:t1', 'oidc:AccessToken:t1:consumed'], [GRANT, SESSION]);
    expect(Object.fromEntries(found)).toEqual({
      'oidc:AccessToken:t1': JSON.stringify({ grantId: 'g1', sessionUid: 'u1' }),
      'oidc:AccessToken:t1:consumed': undefined,
      'oidc:Grant:g1': '{"jti":"g1"}',
      'oidc:Session:uid:u1': 's1',
      'oidc:Session:s1': '{"uid":"u1"}',
    });
  });

  it('what is named but not stored, or expired, is absent; a record that names nothing, or no record, follows nothing', async () => {
    await store.batch([
      { op: 'set', key: 'oidc:Code:c1', value: JSON.stringify({ grantId: 'gone', sessionUid: 'u2' }), ttlSeconds: 60 },
      { op: 'set', key: 'oidc:Session:uid:u2', value: 's2', ttlSeconds: 60 },
      { op: 'set', key: 'oidc:Code:c2', value: JSON.stringify({ grantId: 'old' }), ttlSeconds: 60 },
      { op: 'set', key: 'oidc:Grant:old', value: '{}', ttlSeconds: 1 },
      // Not strings where a key is named: a number, an object, null. Not followed.
      {
        op: 'set',
        key: 'oidc:Code:c3',
        value: JSON.stringify({ grantId: 7, sessionUid: { a: 1 }, other: null }),
        ttlSeconds: 60,
      },
    ]);
    await sleep(1100);
    expect(Object.fromEntries(await store.getWithReferences(['oidc:Code:c1'], [GRANT, SESSION]))).toEqual({
      'oidc:Code:c1': JSON.stringify({ grantId: 'gone', sessionUid: 'u2' }),
      'oidc:Grant:gone': undefined,
      'oidc:Session:uid:u2': 's2',
      'oidc:Session:s2': undefined,
    });
    expect(Object.fromEntries(await store.getWithReferences(['oidc:Code:c2'], [GRANT]))).toEqual({
      'oidc:Code:c2': JSON.stringify({ grantId: 'old' }),
      'oidc:Grant:old': undefined,
    });
    expect(Object.fromEntries(await store.getWithReferences(['oidc:Code:c3'], [GRANT, SESSION]))).toEqual({
      'oidc:Code:c3': JSON.stringify({ grantId: 7, sessionUid: { a: 1 }, other: null }),
    });
    expect(Object.fromEntries(await store.getWithReferences(['oidc:Code:none', 'x'], [GRANT]))).toEqual({
      'oidc:Code:none': undefined,
      x: undefined,
    });
  });

  it('a nested path; an empty path takes the value itself as the id (a wallet link names its account)', async () => {
    await store.batch([
      { op: 'set', key: 'oidc:Interaction:i1', value: JSON.stringify({ result: { consent: { grantId: 'g9' } } }) },
      { op: 'set', key: 'oidc:Grant:g9', value: 'grant' },
      { op: 'set', key: 'wallet:eip155:0:a', value: 'acct_1' },
      { op: 'set', key: 'account:acct_1', value: '{"id":"acct_1"}' },
    ]);
    const nested = await store.getWithReferences(
      ['oidc:Interaction:i1'],
      [{ path: ['result', 'consent', 'grantId'], prefix: 'oidc:Grant:' }],
    );
    expect(nested.get('oidc:Grant:g9')).toBe('grant');
    const link = await store.getWithReferences(['wallet:eip155:0:a'], [{ path: [], prefix: 'account:' }]);
    expect(Object.fromEntries(link)).toEqual({ 'wallet:eip155:0:a': 'acct_1', 'account:acct_1': '{"id":"acct_1"}' });
  });
});

it.each([
  ['memory', factories[0]?.[1]],
  ['sqlite', factories[1]?.[1]],
  ['redis cluster', factories[3]?.[1]],
] as const)('%s store: no read that follows references (the unit of work reads as before)', async (_kind, factory) => {
  const store = await (factory as () => Promise<Store>)();
  try {
    expect(store.getWithReferences).toBeUndefined();
  } finally {
    await store.close();
  }
});

describe('sqlite store', () => {
  it('stores a batch in one transaction: a write that fails leaves none of the batch', async () => {
    const store = createSqliteStore(join(dir, `${randomUUID()}.db`));
    try {
      await expect(
        store.batch([
          { op: 'set', key: 'first', value: '1' },
          { op: 'set', key: 'second', value: null as unknown as string }, // NOT NULL refuses it
        ]),
      ).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_NOTNULL' });
      expect(await store.getMany(['first', 'second'])).toEqual([undefined, undefined]);
    } finally {
      await store.close();
    }
  });
});

describe('sqlite store: group commit and recent values', () => {
  const fresh = (options: Parameters<typeof createSqliteStore>[1] = {}) => {
    const path = join(dir, `${randomUUID()}.db`);
    return { path, store: createSqliteStore(path, options) };
  };
  /** WAL frames written since the last call (another connection checkpoints them away). */
  const walFrames = (path: string) => {
    const Database = loadDatabase();
    const db = new Database(path);
    try {
      return (db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]?.log ?? Number.NaN;
    } finally {
      db.close();
    }
  };

  it('the writes asked in one event-loop turn are one commit; awaited one by one, one commit each', async () => {
    const { path, store } = fresh();
    try {
      const value = 'v'.repeat(300);
      await store.set('warm-up', value);
      walFrames(path);
      await Promise.all(Array.from({ length: 20 }, (_, i) => store.set(`together:${i}`, value, 60)));
      const together = walFrames(path);
      for (let i = 0; i < 20; i++) await store.set(`apart:${i}`, value, 60);
      const apart = walFrames(path);
      // Each commit appends at least the pages it changed: twenty commits write at least twenty frames.
      expect(apart).toBeGreaterThanOrEqual(20);
      expect(together).toBeGreaterThan(0);
      expect(together).toBeLessThan(apart / 4);
      expect(await store.getMany(['together:19', 'apart:19'])).toEqual([value, value]);
    } finally {
      await store.close();
    }
  });

  it('one write that fails does not take the others of its turn with it; claims of one turn still have one winner', async () => {
    const { store } = fresh();
    try {
      const results = await Promise.allSettled([
        store.set('a', '1'),
        store.set('bad', null as unknown as string), // NOT NULL refuses it
        store.batch([{ op: 'set', key: 'b', value: '2' }]),
        store.setIfAbsent('claim', 'x', 60),
        store.setIfAbsent('claim', 'y', 60),
        store.increment('counter', 60),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
      expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_CONSTRAINT_NOTNULL' });
      expect(results.slice(3).map((r) => (r as PromiseFulfilledResult<unknown>).value)).toEqual([true, false, 1]);
      expect(await store.getMany(['a', 'bad', 'b', 'claim'])).toEqual(['1', undefined, '2', 'x']);
    } finally {
      await store.close();
    }
  });

  it('writes asked but not yet committed when the store closes are stored', async () => {
    const { path, store } = fresh();
    const pending = store.set('late', 'kept');
    await store.close();
    await pending;
    const reopened = createSqliteStore(path);
    try {
      expect(await reopened.get('late')).toBe('kept');
    } finally {
      await reopened.close();
    }
  });

  it('reads see at once what another connection committed (the CLI beside a running provider)', async () => {
    const { path, store: provider } = fresh();
    const cli = createSqliteStore(path);
    try {
      await provider.set('client', 'v1');
      expect(await provider.get('client')).toBe('v1'); // now held in memory
      await cli.set('client', 'v2');
      expect(await provider.get('client')).toBe('v2');
      await cli.delete('client');
      expect(await provider.get('client')).toBeUndefined();
      expect(await provider.getMany(['client'])).toEqual([undefined]);
      // And the other way round: its own writes replace what it holds once they are committed.
      await provider.set('client', 'v3');
      expect(await cli.get('client')).toBe('v3');
      expect(await provider.get('client')).toBe('v3');
    } finally {
      await cli.close();
      await provider.close();
    }
  });

  it('asks whether another connection committed once per event-loop turn: the next turn sees the change', async () => {
    const { path, store: provider } = fresh();
    const Database = loadDatabase();
    const other = new Database(path);
    try {
      await provider.set('client', 'v1');
      await new Promise((resolve) => setImmediate(resolve));
      // One turn: the first read asks (nothing changed); a commit by another connection after it
      // is seen from the next turn on, not by the reads left in this one.
      const first = provider.get('client');
      other.prepare('UPDATE kv SET value = ? WHERE key = ?').run('v2', 'client');
      const sameTurn = provider.get('client');
      expect(await first).toBe('v1');
      expect(await sameTurn).toBe('v1');
      await new Promise((resolve) => setImmediate(resolve));
      expect(await provider.get('client')).toBe('v2');
    } finally {
      other.close();
      await provider.close();
    }
  });

  it('a value held in memory expires with its row', async () => {
    let t = Date.now();
    const { store } = fresh({ now: () => t });
    try {
      await store.set('interaction', 'v', 10);
      expect(await store.get('interaction')).toBe('v');
      t += 11_000;
      expect(await store.get('interaction')).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});

describe('redis cluster', () => {
  it('spreads one store over every primary, and lists keys from all of them', async () => {
    const store = createRedisStore(cluster.url, { prefix: `signet-test:${randomUUID()}:` });
    try {
      const ids = Array.from({ length: 30 }, (_, i) => `clients:${i}`);
      await Promise.all(ids.map((id) => store.set(id, '1')));
      const perNode = await Promise.all((store.client as import('ioredis').Cluster).nodes('master').map((node) => node.dbsize()));
      expect(perNode.filter((n) => n > 0)).toHaveLength(3);
      expect((await store.keys('clients:')).sort()).toEqual([...ids].sort());
      expect(await store.getMany(ids.slice(0, 5))).toEqual(['1', '1', '1', '1', '1']);
    } finally {
      await store.close();
    }
  });
});

describe('redis store when Redis cannot be reached', () => {
  it('fails fast with StorageUnavailableError instead of hanging', async () => {
    const store = createRedisStore('redis://127.0.0.1:1', { commandTimeoutMs: 300 });
    const started = Date.now();
    await expect(store.get('x')).rejects.toMatchObject({ name: 'StorageUnavailableError' });
    expect(Date.now() - started).toBeLessThan(3000);
    await store.close();
  });
});
