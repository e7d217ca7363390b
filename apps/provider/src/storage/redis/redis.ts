import { type ChainableCommander, Cluster, Redis, type RedisOptions } from 'ioredis';
import { type Reference, StorageUnavailableError, type Store, type StoredEntry, type Write } from '../store.ts';
import { type TrackedReads, trackReads } from './redis-tracking.ts';
import { parseRedisUrl, type RedisTarget } from './redis-url.ts';

export type RedisStoreOptions = {
  /** Prepended to every key, so several deployments can share one Redis (default "signet:"). */
  prefix?: string;
  /** Bound on every command, in ms (default 2000): an outage answers fast instead of hanging. */
  commandTimeoutMs?: number;
  /**
   * Key prefixes (before the deployment prefix) whose reads are answered from process memory
   * while Redis tracks them for this process (redis-tracking.ts): one server or a Sentinel group
   * only; none by default.
   */
  cachedPrefixes?: string[];
  /** Told when answering tracked reads from memory starts or stops (and why it could not start). */
  onCacheChange?: (active: boolean, reason?: string) => void;
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
 * The keys asked for (KEYS), and what the first one's value names (Store.getWithReferences):
 * ARGV[1] the deployment prefix, then per reference its path (a JSON array), its key prefix and
 * its lookup prefix ('' for none). Answers key, value pairs (keys without the deployment prefix
 * for those it named; false where nothing is stored). It reads keys it was not given, which a
 * Cluster cannot route: one server or a Sentinel group's primary only.
 */
const READ_WITH_REFERENCES = `
local values = redis.call('MGET', unpack(KEYS))
local out = {}
local root = values[1]
if root then
  local doc
  for j = 2, #ARGV, 3 do
    local path = cjson.decode(ARGV[j])
    local id = nil
    if #path == 0 then
      id = root
    else
      if doc == nil then
        local ok, decoded = pcall(cjson.decode, root)
        doc = ok and decoded or false
      end
      local node = doc
      for _, part in ipairs(path) do
        if type(node) == 'table' then node = node[part] else node = nil end
      end
      if type(node) == 'string' then id = node end
    end
    if id then
      local named = ARGV[j + 1] .. id
      local value = redis.call('GET', ARGV[1] .. named)
      out[#out + 1] = named
      out[#out + 1] = value
      if ARGV[j + 2] ~= '' and value then
        local looked = ARGV[j + 2] .. value
        out[#out + 1] = looked
        out[#out + 1] = redis.call('GET', ARGV[1] .. looked)
      end
    end
  end
end
for i = 1, #KEYS do
  out[#out + 1] = ''
  out[#out + 1] = values[i]
end
return out`;

/**
 * The ioredis client for a shape, and the servers that hold data (one, or each Cluster primary).
 *
 * One server or a Sentinel group: no auto-pipelining. Most of a request's commands are reads
 * that wait for the answer before the next, and auto-pipelining put each one through a pipeline
 * of its own and a tick's delay: 62 µs of CPU per sequential GET here instead of 46, 13 instead
 * of 8 at concurrency 16 (bench/history.md). The writes of one request go as one explicit
 * pipeline (Store.batch). A Cluster keeps auto-pipelining: it groups the commands of a tick by
 * node, which an explicit pipeline (one slot only) cannot.
 */
function connect(target: RedisTarget, options: RedisOptions): { client: Redis | Cluster; primaries(): Redis[] } {
  switch (target.shape) {
    case 'single': {
      const client = new Redis(target.url, options);
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
 * The commands this process sends in one round of the event loop, as one write to the socket.
 *
 * ioredis writes each command to its socket as it is issued: one system call per command, and on
 * a virtual machine each also wakes the Redis server. Under load a turn issues several (the
 * answers to a dozen requests arrive in one read, and each request's next read follows), so the
 * first command of a turn corks the socket and `setImmediate` uncorks it once the event loop has
 * run every callback of the current round of I/O (the other sockets' requests and answers that
 * arrived together) and their promise callbacks: Node sends what was written in between in one
 * `writev`, in the order it was issued, and Redis answers in that order as before. Nothing waits
 * past the round of I/O it was issued in (with one request in flight, that is at once).
 * `process.nextTick` uncorked after each callback instead: under load, half as many commands per
 * write. ioredis' own auto-pipelining groups a tick's commands too, but builds a pipeline of each
 * group and cost more CPU than it saved (bench/history.md), so it is off; a Cluster keeps it (it
 * groups per node), and this applies to one server or a Sentinel group's primary.
 *
 * Measured (bench/history.md): a GET at concurrency 16 costs 10–13 µs of CPU instead of 15–22
 * (per turn); per round of I/O, a sign-in makes 10 write calls instead of 16 (HTTP answers
 * included), 5–7 % less CPU, and the Redis server spends 0.24 ms on it instead of 0.41.
 */
function writesPerTurn(client: Redis): () => void {
  let corked: Redis['stream'] | undefined;
  const uncork = () => {
    const stream = corked;
    corked = undefined;
    stream?.uncork();
  };
  return () => {
    if (corked !== undefined || client.status !== 'ready') return;
    corked = client.stream;
    corked.cork();
    setImmediate(uncork);
  };
}

/**
 * Redis storage (ioredis), the way to run several provider replicas: one server (redis://,
 * rediss://), a Sentinel group (the primary is found through the sentinels and followed through
 * a failover) or a Redis Cluster. On a Cluster every command and every Lua script touches exactly
 * one key, so no two keys need to share a hash slot (no hash tags): reads of several keys are one
 * GET each (auto-pipelined per node) and a listing scans every primary. On one server (or a
 * Sentinel group's primary), a read that follows references is one script that also reads the
 * keys the record names (READ_WITH_REFERENCES).
 */
export function createRedisStore(
  url: string | RedisTarget,
  options: RedisStoreOptions = {},
): Store & { client: Redis | Cluster; trackedReads?: TrackedReads; maxmemoryPolicies(): Promise<string[]> } {
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
  if (!cluster) client.defineCommand('signetReadWithReferences', { lua: READ_WITH_REFERENCES });
  const scripts = client as unknown as {
    signetAddToSet(key: string, member: string, ttlMs: number): Promise<unknown>;
    signetIncrement(key: string, by: number, ttlMs: number): Promise<unknown>;
    signetReadWithReferences(count: number, ...keysThenArgs: string[]): Promise<(string | null)[]>;
  };
  const p = (key: string) => prefix + key;
  /**
   * A SET (with its expiry) or the add-to-set script, on the client or on a pipeline: on the
   * client the call answers a promise, on a pipeline it queues the command (exec answers).
   */
  type Commands = Redis | Cluster | ChainableCommander;
  const setCommand = (to: Commands, key: string, value: string, ttl?: number): unknown =>
    ttl === undefined ? to.set(p(key), value) : to.set(p(key), value, 'PX', Math.max(1, Math.round(ttl * 1000)));
  const addToSetCommand = (to: Commands, key: string, member: string, ttl?: number): unknown =>
    (to as unknown as typeof scripts).signetAddToSet(p(key), member, ttl === undefined ? -1 : Math.round(ttl * 1000));

  const coalesce = cluster ? () => {} : writesPerTurn(client as Redis);
  const tracked =
    cluster || !options.cachedPrefixes?.length
      ? undefined
      : trackReads(client as Redis, options.cachedPrefixes.map(p), { onChange: options.onCacheChange });
  /** A write of keys: tracked ones are dropped from memory before it leaves and once it is answered. */
  const changing = async <T>(keys: readonly string[], operation: () => Promise<T>): Promise<T> => {
    const mine = tracked ? keys.map(p).filter((key) => tracked.tracks(key)) : [];
    if (mine.length === 0) return operation();
    tracked?.forget(mine);
    try {
      return await operation();
    } finally {
      tracked?.forget(mine);
    }
  };
  const keysOf = (writes: readonly Write[]) => writes.flatMap((write) => (write.op === 'delete' ? write.keys : [write.key]));
  const guard = async <T>(operation: () => Promise<T>): Promise<T> => {
    coalesce();
    try {
      return await operation();
    } catch (error) {
      throw new StorageUnavailableError(`Redis: ${(error as Error).message}`, { cause: error });
    }
  };

  const store: Store & { client: Redis | Cluster; trackedReads?: TrackedReads; maxmemoryPolicies(): Promise<string[]> } = {
    kind: 'redis',
    client,
    get: (key) => {
      const full = p(key);
      if (!tracked?.tracks(full)) return guard(async () => (await client.get(full)) ?? undefined);
      const held = tracked.cached(full);
      if (held !== undefined) return Promise.resolve(held);
      return guard(async () => {
        const token = tracked.begin();
        const value = await client.get(full);
        if (value !== null) tracked.remember(full, value, token);
        return value ?? undefined;
      });
    },
    getMany: (keys) =>
      guard(async () => {
        if (keys.length === 0) return [];
        // MGET needs its keys in one slot: on a Cluster, one GET per key (pipelined per node).
        const values = cluster ? await Promise.all(keys.map((key) => client.get(p(key)))) : await client.mget(keys.map(p));
        return values.map((v) => v ?? undefined);
      }),
    ...(cluster
      ? {}
      : {
          getWithReferences: (keys: string[], references: readonly Reference[]) =>
            guard(async () => {
              const found = new Map<string, string | undefined>();
              if (keys.length === 0) return found;
              const answer = await scripts.signetReadWithReferences(
                keys.length,
                ...keys.map(p),
                prefix,
                ...references.flatMap((reference) => [JSON.stringify(reference.path), reference.prefix, reference.via ?? '']),
              );
              // The named ones, then the keys asked for, in order (their names left empty).
              const named = answer.length - keys.length * 2;
              for (let i = 0; i < answer.length; i += 2) {
                const key = i < named ? (answer[i] as string) : (keys[(i - named) / 2] as string);
                found.set(key, answer[i + 1] ?? undefined);
              }
              return found;
            }),
        }),
    set: (key, value, ttl) =>
      changing([key], () =>
        guard(async () => {
          await setCommand(client, key, value, ttl);
        }),
      ),
    setIfAbsent: (key, value, ttl) =>
      changing([key], () =>
        guard(async () => {
          const result =
            ttl === undefined
              ? await client.set(p(key), value, 'NX')
              : await client.set(p(key), value, 'PX', Math.max(1, Math.round(ttl * 1000)), 'NX');
          return result === 'OK';
        }),
      ),
    delete: (...keys) =>
      changing(keys, () =>
        guard(async () => {
          if (keys.length === 0) return;
          // One server: one DEL of every key. A Cluster: one key per command (keys in different
          // slots), which auto-pipelining sends together.
          if (cluster) await Promise.all(keys.map((key) => client.del(p(key))));
          else await client.del(...keys.map(p));
        }),
      ),
    addToSet: (key, member, ttl) =>
      guard(async () => {
        await addToSetCommand(client, key, member, ttl);
      }),
    batch: (writes) =>
      changing(tracked ? keysOf(writes) : [], () =>
        guard(async () => {
          if (writes.length === 0) return;
          if (cluster) {
            // Every command sent in the same tick: auto-pipelining writes them together, per node.
            const sent: Promise<unknown>[] = [];
            for (const write of writes) {
              if (write.op === 'set') sent.push(setCommand(client, write.key, write.value, write.ttlSeconds) as Promise<unknown>);
              else if (write.op === 'delete') for (const key of write.keys) sent.push(client.del(p(key)));
              else sent.push(addToSetCommand(client, write.key, write.member, write.ttlSeconds) as Promise<unknown>);
            }
            await Promise.all(sent);
            return;
          }
          // One server: one explicit pipeline, one write and one round trip; the same commands as one by one.
          const pipeline = client.pipeline();
          for (const write of writes) {
            if (write.op === 'set') setCommand(pipeline, write.key, write.value, write.ttlSeconds);
            else if (write.op === 'delete') {
              if (write.keys.length > 0) pipeline.del(...write.keys.map(p));
            } else addToSetCommand(pipeline, write.key, write.member, write.ttlSeconds);
          }
          const queued = pipeline.length;
          if (queued === 0) return;
          const results = await pipeline.exec();
          const failed = results?.find(([error]) => error);
          if (failed) throw failed[0];
          if (results?.length !== queued) throw new Error('the pipeline was not run to its end');
        }),
      ),
    members: (key) => guard(() => client.smembers(p(key))),
    increment: (key, ttl, by = 1) =>
      guard(async () => Number(await scripts.signetIncrement(p(key), by, Math.max(1, Math.round(ttl * 1000))))),
    entries: (keyPrefix) =>
      guard(async () => {
        const keys = await store.keys(keyPrefix);
        const entries: StoredEntry[] = [];
        // Each key: its type, then its value or members and its time left (PTTL: -1 none, -2 gone).
        for (let i = 0; i < keys.length; i += 200) {
          const chunk = keys.slice(i, i + 200);
          const types = await Promise.all(chunk.map((key) => client.type(p(key))));
          const read = await Promise.all(
            chunk.map(async (key, j) => {
              const [content, ttl] = await Promise.all([
                types[j] === 'set' ? client.smembers(p(key)) : types[j] === 'string' ? client.get(p(key)) : null,
                client.pttl(p(key)),
              ]);
              return { key, content, ttl };
            }),
          );
          for (const { key, content, ttl } of read) {
            if (content === null || ttl === -2) continue;
            const left = ttl >= 0 ? { ttlMs: ttl } : {};
            entries.push(Array.isArray(content) ? { key, members: content, ...left } : { key, value: content, ...left });
          }
        }
        return entries;
      }),
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
    trackedReads: tracked,
    async close() {
      tracked?.close();
      client.disconnect();
    },
  };
  return store;
}
