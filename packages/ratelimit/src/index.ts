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

/** The eight 16-bit groups of an IPv6 address (embedded IPv4 tail and zone id allowed). */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.replace(/%.*$/, '');
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string | undefined) => (part ? part.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const head = parse(halves[0]);
  const tail = parse(halves[1]);
  const fill = 8 - head.length - tail.length;
  if (halves.length === 1 ? fill !== 0 : fill < 1) return undefined;
  const groups = [...head, ...Array<number>(halves.length === 1 ? 0 : fill).fill(0), ...tail];
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

/**
 * The rate-limit key of a client address. IPv4 is limited per address; an IPv6 client
 * usually holds a whole /64 (it can pick any interface id in it), so IPv6 is limited per /64.
 * IPv4-mapped IPv6 addresses (::ffff:a.b.c.d, as dual-stack sockets report IPv4 peers) count
 * as their IPv4 address. Anything else (e.g. "unknown") is used as it is.
 */
export function rateLimitKey(address: string): string {
  if (!address.includes(':')) return address;
  const groups = ipv6Groups(address);
  if (!groups) return address;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [hi, lo] = [groups[6] as number, groups[7] as number];
    return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}
