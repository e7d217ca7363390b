/**
 * The Redis store sends the commands of one round of the event loop in one write (redis.ts,
 * `writesPerTurn`), against the machine's real Redis: what reaches the socket is observed on
 * the socket itself (Node calls `_writev` once for what was written while corked, `_write` for
 * each write otherwise), and the answers must be those of the same commands sent one by one.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedisStore } from './redis.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Counts the socket's system-call-level writes from now on. */
function watchWrites(client: Redis) {
  const stream = client.stream as unknown as {
    _write: (...args: unknown[]) => unknown;
    _writev: (chunks: unknown[], callback: unknown) => unknown;
  };
  const seen = { single: 0, grouped: [] as number[] };
  const write = stream._write;
  const writev = stream._writev;
  stream._write = function (this: unknown, ...args: unknown[]) {
    seen.single += 1;
    return write.apply(this, args);
  };
  stream._writev = function (this: unknown, chunks: unknown[], callback: unknown) {
    seen.grouped.push(chunks.length);
    return writev.call(this, chunks, callback);
  };
  return seen;
}

describe('Redis store: the commands of one turn leave in one write', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  /** A store on its own prefix, holding `a` = 1 (and `b` = 2 with `withB`), its socket watched from then on. */
  async function watchedStore(withB = false) {
    const store = createRedisStore(REDIS_URL, { prefix: `signet-test:${randomUUID()}:` });
    close = () => store.close();
    await store.ping();
    await store.set('a', '1');
    if (withB) await store.set('b', '2');
    return { store, seen: watchWrites(store.client as Redis) };
  }

  it('five reads and a batch issued in one turn reach the socket as one write, answered in order', async () => {
    const { store, seen } = await watchedStore(true);

    const answers = await Promise.all([
      store.get('a'),
      store.get('b'),
      store.get('missing'),
      store.getMany(['b', 'a']),
      store.batch([{ op: 'set', key: 'c', value: '3', ttlSeconds: 60 }]),
      store.get('a'),
    ]);

    expect(answers).toEqual(['1', '2', undefined, ['2', '1'], undefined, '1']);
    expect(seen.single).toBe(0);
    expect(seen.grouped).toEqual([6]);
    expect(await store.get('c')).toBe('3');
  });

  it('commands issued by different callbacks of one round of the event loop leave in one write', async () => {
    const { store, seen } = await watchedStore();

    // Two timers due together run one after the other in the same round (as the callbacks of
    // several sockets that became readable together do), each with its own promise callbacks.
    const issued = (key: string) => new Promise((resolve) => setTimeout(() => resolve(store.get(key)), 0));
    expect(await Promise.all([issued('a'), issued('missing')])).toEqual(['1', undefined]);
    expect(seen.single).toBe(0);
    expect(seen.grouped).toEqual([2]);
  });

  it('commands of different turns are not held back: each turn writes what it issued', async () => {
    const { store, seen } = await watchedStore();

    expect(await store.get('a')).toBe('1');
    expect(await store.get('a')).toBe('1');
    // One command in a turn: written on its own, at the end of that turn.
    expect(seen.single + seen.grouped.length).toBe(2);
  });
});
