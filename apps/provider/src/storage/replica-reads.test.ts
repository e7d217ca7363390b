/**
 * Reads a sign-in no longer sends to Redis, or sends sooner, and what each replica must still
 * see at once: two adapters over two Redis stores sharing one prefix stand for two replicas of
 * one deployment (the machine's real Redis). Each store is watched, so a test can say which
 * reads reached Redis and in which order.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createOidcAdapter } from './adapter.ts';
import { aroundEachOperation } from './around.ts';
import { createRedisStore } from './redis.ts';
import type { Store } from './store.ts';
import { withUnitsOfWork } from './unit-of-work.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Replica = {
  store: ReturnType<typeof withUnitsOfWork>;
  Adapter: ReturnType<typeof createOidcAdapter>;
  /** Each read that reached Redis: `get <key>` or `getMany <keys>`, in the order they were sent. */
  reads: string[];
};

const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

function replica(prefix: string): Replica {
  const redis = createRedisStore(REDIS_URL, { prefix });
  opened.push(redis);
  const reads: string[] = [];
  const watched = aroundEachOperation(redis, (operation, { key }, run) => {
    if (operation === 'get') reads.push(`get ${key}`);
    if (operation === 'getMany') reads.push(`getMany ${key}`);
    return run();
  });
  const store = withUnitsOfWork(watched);
  return { store, Adapter: createOidcAdapter(store), reads };
}

const twoReplicas = () => {
  const prefix = `signet-test:${randomUUID()}:`;
  return [replica(prefix), replica(prefix)] as const;
};

describe('a session found by uid (every token and userinfo request)', () => {
  it('on the replica that stored it: one read, the session itself, not its uid first', async () => {
    const [a] = twoReplicas();
    await a.store.run(() => new a.Adapter('Session').upsert('s1', { uid: 'u1', accountId: 'acc' }, 60));
    a.reads.length = 0;
    const found = await a.store.run(() => new a.Adapter('Session').findByUid('u1'));
    expect(found).toMatchObject({ uid: 'u1', accountId: 'acc' });
    expect(a.reads).toEqual(['get oidc:Session:s1']);
  });

  it('a new id for the session on the other replica (a new sign-in in the browser) is found at once; an ended session is gone at once', async () => {
    const [a, b] = twoReplicas();
    await a.store.run(() => new a.Adapter('Session').upsert('s1', { uid: 'u1', accountId: 'first' }, 60));
    expect(await a.store.run(() => new a.Adapter('Session').findByUid('u1'))).toMatchObject({ accountId: 'first' });
    // What oidc-provider's Session.save does after resetIdentifier: the old record deleted, the new one stored.
    await b.store.run(async () => {
      await new b.Adapter('Session').destroy('s1');
      await new b.Adapter('Session').upsert('s2', { uid: 'u1', accountId: 'second' }, 60);
    });
    expect(await a.store.run(() => new a.Adapter('Session').findByUid('u1'))).toMatchObject({ accountId: 'second' });
    await b.store.run(() => new b.Adapter('Session').destroy('s2'));
    expect(await a.store.run(() => new a.Adapter('Session').findByUid('u1'))).toBeUndefined();
  });

  it('a session the other replica stored under a uid this one knew is the one found', async () => {
    const [a, b] = twoReplicas();
    await a.store.run(() => new a.Adapter('Session').upsert('s1', { uid: 'u1', accountId: 'first' }, 60));
    // The uid's record points elsewhere while the old session record still exists (written by
    // hand: oidc-provider deletes the old record first): the old one names another uid now.
    await b.store.run(async () => {
      await new b.Adapter('Session').upsert('s1', { uid: 'other', accountId: 'first' }, 60);
      await new b.Adapter('Session').upsert('s2', { uid: 'u1', accountId: 'second' }, 60);
    });
    expect(await a.store.run(() => new a.Adapter('Session').findByUid('u1'))).toMatchObject({ accountId: 'second' });
  });

  it('nothing outlives the session in Redis: expired there, it is not found', async () => {
    const [a] = twoReplicas();
    await a.store.run(() => new a.Adapter('Session').upsert('s1', { uid: 'u1' }, 1));
    expect(await a.store.run(() => new a.Adapter('Session').findByUid('u1'))).toBeDefined();
    await sleep(1100);
    expect(await a.store.run(() => new a.Adapter('Session').findByUid('u1'))).toBeUndefined();
  });
});
