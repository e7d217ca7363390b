/**
 * Client records answered from process memory, kept exact by Redis' server-assisted invalidation
 * (redis-tracking.ts), against the machine's real Redis: another connection (another replica, the
 * CLI) changes or deletes a record and the store reads the change; the invalidation connection
 * dies and nothing is served from memory until tracking is back; a user who may not use CLIENT
 * still gets every read right, from Redis.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRedisStore } from './redis.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('Redis store: client records answered from memory, kept exact by Redis', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setup(options: { url?: string } = {}) {
    const prefix = `signet-test:${randomUUID()}:`;
    const changes: [boolean, string | undefined][] = [];
    const store = createRedisStore(options.url ?? REDIS_URL, {
      prefix,
      cachedPrefixes: ['oidc:Client:'],
      onCacheChange: (active, reason) => changes.push([active, reason]),
    });
    cleanups.push(() => store.close());
    const other = new Redis(REDIS_URL);
    cleanups.push(() => other.quit());
    const reads = vi.spyOn(store.client as Redis, 'get');
    return { store, other, prefix, changes, reads };
  }

  it('answers a client record from memory, and reads what another connection writes or deletes', async () => {
    const { store, other, prefix, reads } = await setup();
    await until(() => store.trackedReads?.active === true, 'tracking to be on');
    await other.set(`${prefix}oidc:Client:a`, '{"v":1}');

    expect(await store.get('oidc:Client:a')).toBe('{"v":1}');
    expect(await store.get('oidc:Client:a')).toBe('{"v":1}');
    expect(await store.get('oidc:Client:a')).toBe('{"v":1}');
    expect(reads).toHaveBeenCalledTimes(1);

    // Another replica updates the record: the invalidation reaches this process.
    await other.set(`${prefix}oidc:Client:a`, '{"v":2}');
    await until(async () => (await store.get('oidc:Client:a')) === '{"v":2}', 'the update to be read');
    // ...and deletes it.
    await other.del(`${prefix}oidc:Client:a`);
    await until(async () => (await store.get('oidc:Client:a')) === undefined, 'the deletion to be read');

    // Other keys are read from Redis every time.
    await store.set('oidc:Session:s', 'x');
    reads.mockClear();
    await store.get('oidc:Session:s');
    await store.get('oidc:Session:s');
    expect(reads).toHaveBeenCalledTimes(2);
  });

  it('reads its own writes at once, and does not keep a value read while a change was on its way', async () => {
    const { store, other, prefix } = await setup();
    await until(() => store.trackedReads?.active === true, 'tracking to be on');
    await store.set('oidc:Client:b', 'one');
    expect(await store.get('oidc:Client:b')).toBe('one');
    await store.batch([{ op: 'set', key: 'oidc:Client:b', value: 'two' }]);
    expect(await store.get('oidc:Client:b')).toBe('two');
    await store.delete('oidc:Client:b');
    expect(await store.get('oidc:Client:b')).toBeUndefined();

    // A read begun before an invalidation arrives is not kept: the next read goes to Redis.
    await other.set(`${prefix}oidc:Client:c`, 'old');
    const tracked = store.trackedReads;
    const token = tracked?.begin() ?? 0;
    tracked?.forget([`${prefix}oidc:Client:other`]);
    tracked?.remember(`${prefix}oidc:Client:c`, 'old', token);
    expect(tracked?.cached(`${prefix}oidc:Client:c`)).toBeUndefined();
  });

  it('serves nothing from memory while the invalidation connection is down, and resumes once tracking is back', async () => {
    const { store, other, prefix, changes } = await setup();
    await until(() => store.trackedReads?.active === true, 'tracking to be on');
    await other.set(`${prefix}oidc:Client:d`, 'before');
    expect(await store.get('oidc:Client:d')).toBe('before');

    // Kill the connection the invalidations arrive on: the one this store's data connection
    // redirects them to (CLIENT LIST of the data connection shows it as redir=<id>).
    const dataId = String(await (store.client as Redis).client('ID'));
    const listed = String(await other.client('LIST', 'ID', dataId));
    const redirect = /\bredir=(\d+)/.exec(listed)?.[1];
    expect(Number(redirect)).toBeGreaterThan(0);
    await other.client('KILL', 'ID', redirect as string);
    await until(() => store.trackedReads?.active === false, 'tracking to be off');
    await other.set(`${prefix}oidc:Client:d`, 'while down');
    expect(await store.get('oidc:Client:d')).toBe('while down');

    // ioredis reconnects; tracking is switched on again over the new connection.
    await until(() => store.trackedReads?.active === true, 'tracking to be back');
    expect(await store.get('oidc:Client:d')).toBe('while down');
    await other.set(`${prefix}oidc:Client:d`, 'after');
    await until(async () => (await store.get('oidc:Client:d')) === 'after', 'the update after the reconnection');
    expect(changes.map(([active]) => active)).toEqual([true, false, true]);
  });

  it('reads everything from Redis where CLIENT TRACKING is refused', async () => {
    const admin = new Redis(REDIS_URL);
    cleanups.push(() => admin.quit());
    const user = `signet-test-${randomUUID()}`;
    await admin.call('ACL', 'SETUSER', user, 'on', '>secret', '~*', '&*', '+@all', '-client');
    cleanups.push(() => admin.call('ACL', 'DELUSER', user));
    const { store, other, prefix, changes, reads } = await setup({
      url: REDIS_URL.replace('redis://', `redis://${user}:secret@`),
    });
    await until(() => changes.length > 0, 'tracking to be refused');
    expect(changes[0]?.[0]).toBe(false);
    expect(changes[0]?.[1]).toMatch(/NOPERM|permission/i);
    await other.set(`${prefix}oidc:Client:e`, 'one');
    expect(await store.get('oidc:Client:e')).toBe('one');
    await other.set(`${prefix}oidc:Client:e`, 'two');
    expect(await store.get('oidc:Client:e')).toBe('two');
    expect(reads).toHaveBeenCalledTimes(2);
  });
});
