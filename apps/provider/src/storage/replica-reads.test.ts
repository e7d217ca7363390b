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
import { createRedisStore } from './redis/redis.ts';
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
    if (operation === 'getWithReferences') reads.push(`getWithReferences ${key}`);
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

describe("a token's grant is read with the token", () => {
  it('finding an access token reads its grant in the same script; the grant is then read from that answer, not again', async () => {
    const [a] = twoReplicas();
    await a.store.run(async () => {
      await new a.Adapter('AccessToken').upsert('at1', { grantId: 'g1', accountId: 'acc' }, 60);
      await new a.Adapter('Grant').upsert('g1', { accountId: 'acc' }, 60);
    });
    a.reads.length = 0;
    const grant = await a.store.run(async () => {
      await new a.Adapter('AccessToken').find('at1');
      // One script read the token and what it names (its grant; its session, none here).
      expect(a.reads).toEqual(['getWithReferences oidc:AccessToken:at1']);
      await a.store.get('oidc:Session:elsewhere');
      return new a.Adapter('Grant').find('g1');
    });
    expect(grant).toMatchObject({ accountId: 'acc' });
    expect(a.reads).toEqual(['getWithReferences oidc:AccessToken:at1', 'get oidc:Session:elsewhere']);
  });

  it('a grant revoked on the other replica before the token is found: token and grant are gone', async () => {
    const [a, b] = twoReplicas();
    await a.store.run(async () => {
      await new a.Adapter('Grant').upsert('g1', { accountId: 'acc' }, 60);
      await new a.Adapter('AccessToken').upsert('at1', { grantId: 'g1' }, 60);
    });
    await b.store.run(() => new b.Adapter('AccessToken').revokeByGrantId('g1'));
    expect(await a.store.run(() => new a.Adapter('AccessToken').find('at1'))).toBeUndefined();
    expect(await a.store.run(() => new a.Adapter('Grant').find('g1'))).toBeUndefined();
  });

  it("a read ahead never hides the request's own writes or a claim: they win over its answer", async () => {
    const [a] = twoReplicas();
    // Every key of this file expires within a minute: nothing is left in the shared Redis.
    await a.store.set('k', 'stored', 60);
    await a.store.set('c', 'stored', 60);
    await a.store.run(async () => {
      a.store.prefetch(['k', 'c']);
      await a.store.set('k', 'mine', 60);
      expect(await a.store.get('k')).toBe('mine');
      a.store.prefetch(['n']);
      expect(await a.store.setIfAbsent('n', 'claimed', 60)).toBe(true);
      expect(await a.store.get('n')).toBe('claimed');
      expect(await a.store.get('c')).toBe('stored');
    });
    // Outside a request, nothing is read ahead.
    a.reads.length = 0;
    a.store.prefetch(['k']);
    expect(a.reads).toEqual([]);
  });
});
