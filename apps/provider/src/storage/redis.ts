import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { parseRedisUrl, type RedisTarget } from './redis-url.ts';
import { StorageUnavailableError, type Store } from './store.ts';

export type RedisStoreOptions = {
  /** Prepended to every key, so several deployments can share one Redis (default "signet:"). */
  prefix?: string;
  /** Bound on every command, in ms (default 2000): an outage answers fast instead of hanging. */
  commandTimeoutMs?: number;
};

// Sets a member and extends (never shortens) the set's expiry: an argument of -1 means "no expiry".
const ADD_TO_SET = `
local current = redis.call('PTTL', KEYS[1])
redis.call('SADD', KEYS[1], ARGV[1])
local ttl = tonumber(ARGV[2])
if ttl < 0 then
  redis.call('PERSIST', KEYS[1])
elseif current ~= -1 and current < ttl then
  redis.call('PEXPIRE', KEYS[1], ttl)
end
return 1`;

// Increments a counter and starts its window on the first increment.
const INCREMENT = `
local n = redis.call('INCRBY', KEYS[1], ARGV[1])
if redis.call('PTTL', KEYS[1]) == -1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return n`;

/** The ioredis client for a shape, and the servers that hold data (one, or each Cluster primary). */
function connect(target: RedisTarget, options: RedisOptions): { client: Redis | Cluster; primaries(): Redis[] } {
  switch (target.shape) {
    case 'single': {
      const client = new Redis(target.url, { ...options, enableAutoPipelining: true });
      return { client, primaries: () => [client] };
    }
    case 'sentinel': {
      // ioredis asks the sentinels for the primary, and asks again whenever the connection
      // drops; failoverDetector also listens for +switch-master, so a promotion is followed at once.
      const client = new Redis({
        ...options,
        sentinels: target.sentinels,
        name: target.name,
        username: target.username,
        password: target.password,
        sentinelUsername: target.sentinelUsername,
        sentinelPassword: target.sentinelPassword,
        sentinelCommandTimeout: options.commandTimeout,
        failoverDetector: true,
        enableAutoPipelining: true,
        ...(target.tls ? { tls: {}, sentinelTLS: {}, enableTLSForSentinelMode: true } : {}),
      });
      return { client, primaries: () => [client] };
    }
    case 'cluster': {
      const { retryStrategy, ...nodeOptions } = options;
      const client = new Cluster(target.nodes, {
        redisOptions: {
          ...nodeOptions,
          username: target.username,
          password: target.password,
          ...(target.tls ? { tls: {} } : {}),
        },
        clusterRetryStrategy: (times) => retryStrategy?.(times) ?? null,
        slotsRefreshTimeout: options.connectTimeout,
        scaleReads: 'master',
        enableAutoPipelining: true,
      });
      return { client, primaries: () => client.nodes('master') };
    }
  }
}

/**
 * Redis storage (ioredis), the way to run several provider replicas: one server (redis://,
 * rediss://), a Sentinel group (the primary is found through the sentinels and followed through
 * a failover) or a Redis Cluster. Every command and every Lua script touches exactly one key,
 * so no two keys need to share a hash slot (no hash tags); on a Cluster, reads of several keys
 * are one GET each (auto-pipelined per node) and a listing scans every primary.
 */
export function createRedisStore(
  url: string | RedisTarget,
  options: RedisStoreOptions = {},
): Store & { client: Redis | Cluster; maxmemoryPolicies(): Promise<string[]> } {
  const prefix = options.prefix ?? 'signet:';
  const target = typeof url === 'string' ? parseRedisUrl(url) : url;
  const redisOptions: RedisOptions = {
    commandTimeout: options.commandTimeoutMs ?? 2000,
    connectTimeout: options.commandTimeoutMs ?? 2000,
    // While disconnected, a command waits for at most one reconnection attempt, then fails
    // (503 to the caller) instead of queueing without bound.
    maxRetriesPerRequest: 1,
    retryStrategy: (times) => Math.min(times * 200, 2000),
    lazyConnect: false,
  };
  const { client, primaries } = connect(target, redisOptions);
  const cluster = target.shape === 'cluster';
  // Connection errors surface on the commands that fail; keep the client from crashing the process.
  client.on('error', () => {});
  // Scripts as commands: ioredis sends EVALSHA (the script's text only once per connection).
  client.defineCommand('signetAddToSet', { numberOfKeys: 1, lua: ADD_TO_SET });
  client.defineCommand('signetIncrement', { numberOfKeys: 1, lua: INCREMENT });
  const scripts = client as unknown as {
    signetAddToSet(key: string, member: string, ttlMs: number): Promise<unknown>;
    signetIncrement(key: string, by: number, ttlMs: number): Promise<unknown>;
  };
  const p = (key: string) => prefix + key;

  const guard = async <T>(operation: () => Promise<T>): Promise<T> => {
    try {
      return await operation();
    } catch (error) {
      throw new StorageUnavailableError(`Redis: ${(error as Error).message}`, { cause: error });
    }
  };

  return {
    kind: 'redis',
    client,
    get: (key) => guard(async () => (await client.get(p(key))) ?? undefined),
    getMany: (keys) =>
      guard(async () => {
        if (keys.length === 0) return [];
        // MGET needs its keys in one slot: on a Cluster, one GET per key (pipelined per node).
        const values = cluster ? await Promise.all(keys.map((key) => client.get(p(key)))) : await client.mget(keys.map(p));
        return values.map((v) => v ?? undefined);
      }),
    set: (key, value, ttl) =>
      guard(async () => {
        if (ttl === undefined) await client.set(p(key), value);
        else await client.set(p(key), value, 'PX', Math.max(1, Math.round(ttl * 1000)));
      }),
    setIfAbsent: (key, value, ttl) =>
      guard(async () => {
        const result =
          ttl === undefined
            ? await client.set(p(key), value, 'NX')
            : await client.set(p(key), value, 'PX', Math.max(1, Math.round(ttl * 1000)), 'NX');
        return result === 'OK';
      }),
    delete: (...keys) =>
      guard(async () => {
        // One key per command (Cluster-safe); auto-pipelining sends them together.
        await Promise.all(keys.map((key) => client.del(p(key))));
      }),
    addToSet: (key, member, ttl) =>
      guard(async () => {
        await scripts.signetAddToSet(p(key), member, ttl === undefined ? -1 : Math.round(ttl * 1000));
      }),
    batch: (writes) =>
      guard(async () => {
        // Every command sent in the same tick: auto-pipelining writes them to the connection
        // together (one round trip; on a Cluster, one per node), the same commands as one by one.
        const sent: Promise<unknown>[] = [];
        for (const write of writes) {
          if (write.op === 'set') {
            const key = p(write.key);
            sent.push(
              write.ttlSeconds === undefined
                ? client.set(key, write.value)
                : client.set(key, write.value, 'PX', Math.max(1, Math.round(write.ttlSeconds * 1000))),
            );
          } else if (write.op === 'delete') {
            for (const key of write.keys) sent.push(client.del(p(key)));
          } else {
            const ttl = write.ttlSeconds === undefined ? -1 : Math.round(write.ttlSeconds * 1000);
            sent.push(scripts.signetAddToSet(p(write.key), write.member, ttl));
          }
        }
        await Promise.all(sent);
      }),
    members: (key) => guard(() => client.smembers(p(key))),
    increment: (key, ttl, by = 1) =>
      guard(async () => Number(await scripts.signetIncrement(p(key), by, Math.max(1, Math.round(ttl * 1000))))),
    keys: (keyPrefix) =>
      guard(async () => {
        const found = new Set<string>();
        const pattern = `${p(keyPrefix).replace(/[*?[\]\\]/g, '\\$&')}*`;
        // SCAN walks one server: on a Cluster, every primary in turn.
        for (const node of primaries()) {
          let cursor = '0';
          do {
            const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
            cursor = next;
            for (const key of batch) found.add(key.slice(prefix.length));
          } while (cursor !== '0');
        }
        return [...found];
      }),
    ping: () =>
      guard(async () => {
        await client.ping();
      }),
    /** Each data server's maxmemory-policy (CONFIG GET); rejects where CONFIG is refused. */
    maxmemoryPolicies: () =>
      Promise.all(
        primaries().map(async (node) => {
          const answer = (await node.config('GET', 'maxmemory-policy')) as string[];
          return answer[1] ?? 'unknown';
        }),
      ),
    async close() {
      client.disconnect();
    },
  };
}
