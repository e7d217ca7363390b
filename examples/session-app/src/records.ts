/**
 * Application A's server-side memory of what a cookie cannot be trusted to forget. The session
 * lives in an encrypted cookie, and a browser (or an attacker who copied it) can send an old
 * cookie again. So the server keeps: the nonces it issued and that are still unused (a nonce is
 * consumed once, atomically: replaying the pre-verify cookie finds it gone), and the sessions
 * ended by logout (a logged-out cookie reads nothing). In memory for one process, in Redis
 * (REDIS_URL) when several instances serve the app.
 */
import { Redis } from 'ioredis';

export interface SessionRecords {
  /** Remembers an issued nonce for `ttlMs`. */
  issueNonce(nonce: string, ttlMs: number): Promise<void>;
  /** True exactly once per issued, unexpired nonce (atomic across instances). */
  consumeNonce(nonce: string): Promise<boolean>;
  /** Marks a session id as ended, for the rest of the session's lifetime. */
  endSession(sessionId: string, ttlMs: number): Promise<void>;
  isEnded(sessionId: string): Promise<boolean>;
  close(): Promise<void>;
}

export function createMemorySessionRecords(now: () => number = Date.now): SessionRecords {
  const entries = new Map<string, number>();
  const live = (key: string) => {
    const until = entries.get(key);
    if (until === undefined) return false;
    if (until <= now()) {
      entries.delete(key);
      return false;
    }
    return true;
  };
  const sweep = () => {
    for (const [key, until] of entries) if (until <= now()) entries.delete(key);
  };
  return {
    async issueNonce(nonce, ttlMs) {
      if (entries.size > 10_000) sweep();
      entries.set(`nonce:${nonce}`, now() + ttlMs);
    },
    async consumeNonce(nonce) {
      const found = live(`nonce:${nonce}`);
      entries.delete(`nonce:${nonce}`);
      return found;
    },
    async endSession(sessionId, ttlMs) {
      entries.set(`ended:${sessionId}`, now() + ttlMs);
    },
    async isEnded(sessionId) {
      return live(`ended:${sessionId}`);
    },
    async close() {
      entries.clear();
    },
  };
}

export function createRedisSessionRecords(url: string, { prefix = 'siwe-session-app:' } = {}): SessionRecords {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, commandTimeout: 2000, connectTimeout: 2000 });
  redis.on('error', () => {});
  return {
    async issueNonce(nonce, ttlMs) {
      await redis.set(`${prefix}nonce:${nonce}`, '1', 'PX', ttlMs);
    },
    async consumeNonce(nonce) {
      return (await redis.del(`${prefix}nonce:${nonce}`)) === 1;
    },
    async endSession(sessionId, ttlMs) {
      await redis.set(`${prefix}ended:${sessionId}`, '1', 'PX', ttlMs);
    },
    async isEnded(sessionId) {
      return (await redis.exists(`${prefix}ended:${sessionId}`)) === 1;
    },
    async close() {
      redis.disconnect();
    },
  };
}
