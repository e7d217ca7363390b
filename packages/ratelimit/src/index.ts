/**
 * Fixed-window rate limiting: at most `limit` hits per key per window. The counter store is
 * pluggable: memory for one process, or any store with an atomic increment-with-expiry (the
 * provider passes its SQLite/Redis store, so replicas share counters).
 */

export type CounterStore = {
  /** Adds `by` (default 1) to the counter at `key`, which expires `ttlSeconds` after its first hit. */
  increment(key: string, ttlSeconds: number, by?: number): Promise<number>;
};

export type RateLimitResult = {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window ends. */
  retryAfter: number;
};

export type RateLimiter = (key: string) => Promise<RateLimitResult>;

export type RateLimiterOptions = {
  limit: number;
  windowSeconds: number;
  store?: CounterStore;
  /** Key namespace inside the store. */
  prefix?: string;
  now?: () => number;
};

/** In-process counters; expired windows are dropped as they are met and swept each window. */
export function createMemoryCounterStore(now: () => number = Date.now): CounterStore & { size(): number } {
  const counters = new Map<string, { count: number; expiresAt: number }>();
  let lastSweep = now();
  return {
    async increment(key, ttlSeconds, by = 1) {
      const t = now();
      if (t - lastSweep > ttlSeconds * 1000) {
        for (const [k, v] of counters) if (v.expiresAt <= t) counters.delete(k);
        lastSweep = t;
      }
      const current = counters.get(key);
      if (!current || current.expiresAt <= t) {
        counters.set(key, { count: by, expiresAt: t + ttlSeconds * 1000 });
        return by;
      }
      current.count += by;
      return current.count;
    },
    size: () => counters.size,
  };
}

export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const { limit, windowSeconds, prefix = 'rl:' } = options;
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be a positive whole number');
  if (!(windowSeconds > 0)) throw new RangeError('windowSeconds must be positive');
  const now = options.now ?? Date.now;
  const store = options.store ?? createMemoryCounterStore(now);
  return async (key) => {
    const t = now();
    const window = Math.floor(t / 1000 / windowSeconds);
    const count = await store.increment(`${prefix}${key}:${window}`, windowSeconds);
    const retryAfter = Math.max(1, Math.ceil((window + 1) * windowSeconds - t / 1000));
    return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), retryAfter };
  };
}

/**
 * The client address for rate limiting: the socket's, or, behind a trusted proxy, the last
 * X-Forwarded-For entry (the one that proxy appended; earlier entries are the client's to forge).
 */
export function clientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | null | undefined,
  trustProxy: boolean,
): string {
  if (trustProxy && forwardedFor) {
    const last = forwardedFor.split(',').at(-1)?.trim();
    if (last) return last;
  }
  return socketAddress ?? 'unknown';
}
