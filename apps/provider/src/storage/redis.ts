import { Redis, type RedisOptions } from 'ioredis';
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

/**
 * Redis storage (ioredis), the way to run several provider replicas. Works with redis:// and
 * rediss:// (TLS) URLs, with user/password in the URL. Every command (and every Lua script)
 * touches exactly one key, so no keys need to live together: the layout is Redis Cluster-safe
 * without hash tags. (The CLI's `clients list` uses SCAN, which on a Cluster sees one node.)
 */
export function createRedisStore(url: string, options: RedisStoreOptions = {}): Store & { client: Redis } {
  const prefix = options.prefix ?? 'signet:';
  const redisOptions: RedisOptions = {
    commandTimeout: options.commandTimeoutMs ?? 2000,
    connectTimeout: options.commandTimeoutMs ?? 2000,
    // While disconnected, a command waits for at most one reconnection attempt, then fails
    // (503 to the caller) instead of queueing without bound.
    maxRetriesPerRequest: 1,
    retryStrategy: (times) => Math.min(times * 200, 2000),
    lazyConnect: false,
  };
  const client = new Redis(url, { ...redisOptions, enableAutoPipelining: true });
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
    getMany: (keys) => guard(async () => (keys.length === 0 ? [] : (await client.mget(keys.map(p))).map((v) => v ?? undefined))),
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
    members: (key) => guard(() => client.smembers(p(key))),
    increment: (key, ttl, by = 1) =>
      guard(async () => Number(await scripts.signetIncrement(p(key), by, Math.max(1, Math.round(ttl * 1000))))),
    keys: (keyPrefix) =>
      guard(async () => {
        const found: string[] = [];
        let cursor = '0';
        const pattern = `${p(keyPrefix).replace(/[*?[\]\\]/g, '\\$&')}*`;
        do {
          const [next, batch] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
          cursor = next;
          for (const key of batch) found.push(key.slice(prefix.length));
        } while (cursor !== '0');
        return [...new Set(found)];
      }),
    ping: () =>
      guard(async () => {
        await client.ping();
      }),
    async close() {
      client.disconnect();
    },
  };
}
