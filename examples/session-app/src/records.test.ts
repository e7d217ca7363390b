import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMemorySessionRecords, createRedisSessionRecords } from './records.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('session records', () => {
  it('redis: two instances consume one nonce exactly once, and see each other`s ended sessions', async () => {
    const prefix = `signet-test:records:${randomUUID()}:`;
    const a = createRedisSessionRecords(REDIS_URL, { prefix });
    const b = createRedisSessionRecords(REDIS_URL, { prefix });
    try {
      await a.issueNonce('abcdefgh12', 60_000);
      const results = await Promise.all([
        a.consumeNonce('abcdefgh12'),
        b.consumeNonce('abcdefgh12'),
        a.consumeNonce('abcdefgh12'),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await b.consumeNonce('never-issued')).toBe(false);
      await a.endSession('s1', 60_000);
      expect(await b.isEnded('s1')).toBe(true);
      expect(await b.isEnded('s2')).toBe(false);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('memory: a nonce expires, and an ended session is remembered for its ttl', async () => {
    let now = 0;
    const records = createMemorySessionRecords(() => now);
    await records.issueNonce('n1', 1000);
    now = 1001;
    expect(await records.consumeNonce('n1')).toBe(false);
    await records.endSession('s', 1000);
    expect(await records.isEnded('s')).toBe(true);
    now = 2002;
    expect(await records.isEnded('s')).toBe(false);
  });
});
