import type { ChainableCommander, Cluster, Redis } from 'ioredis';
import { type Reference, StorageUnavailableError, type Store, type StoredEntry, type Write } from '../store.ts';
import { clientOptions, connect, writesPerTurn } from './redis-connection.ts';
import { defineScripts, type Scripts } from './redis-scripts.ts';
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

/** A client or a pipeline: on the client a command answers a promise, on a pipeline it is queued (exec answers). */
type Commands = Redis | Cluster | ChainableCommander;

const keysOf = (writes: readonly Write[]) => writes.flatMap((write) => (write.op === 'delete' ? write.keys : [write.key]));
const milliseconds = (ttl: number) => Math.max(1, Math.round(ttl * 1000));

/**
 * Redis storage (ioredis), the way to run several provider replicas: one server (redis://,
 * rediss://), a Sentinel group (the primary is found through the sentinels and followed through
 * a failover) or a Redis Cluster. On a Cluster every command and every Lua script touches exactly
 * one key, so no two keys need to share a hash slot (no hash tags): reads of several keys are one
 * GET each (auto-pipelined per node) and a listing scans every primary. On one server (or a
 * Sentinel group's primary), a read that follows references is one script that also reads the
 * keys the record names (redis-scripts.ts).
 */
class RedisStore implements Store {
  readonly kind = 'redis';
  readonly client: Redis | Cluster;
  readonly trackedReads: TrackedReads | undefined;
  /** One server or a Sentinel group only (a Cluster cannot route a script's unnamed keys). */
  readonly getWithReferences?: (keys: string[], references: readonly Reference[]) => Promise<Map<string, string | undefined>>;
  readonly #prefix: string;
  readonly #cluster: boolean;
  readonly #primaries: () => Redis[];
  readonly #scripts: Scripts;
  readonly #coalesce: () => void;

  constructor(target: RedisTarget, options: RedisStoreOptions) {
    this.#prefix = options.prefix ?? 'signet:';
    this.#cluster = target.shape === 'cluster';
    const { client, primaries } = connect(target, clientOptions(options.commandTimeoutMs));
    this.client = client;
    this.#primaries = primaries;
    // Connection errors surface on the commands that fail; keep the client from crashing the process.
    client.on('error', () => {});
    this.#scripts = defineScripts(client, this.#cluster);
    this.#coalesce = this.#cluster ? () => {} : writesPerTurn(client as Redis);
    this.trackedReads =
      this.#cluster || !options.cachedPrefixes?.length
        ? undefined
        : trackReads(client as Redis, options.cachedPrefixes.map(this.#p), { onChange: options.onCacheChange });
    if (!this.#cluster) this.getWithReferences = (keys, references) => this.#readWithReferences(keys, references);
  }

  #p = (key: string) => this.#prefix + key;

  /** Runs a command (written with the others of this turn); a failure is a 503. */
  async #guard<T>(operation: () => Promise<T>): Promise<T> {
    this.#coalesce();
    try {
      return await operation();
    } catch (error) {
      throw new StorageUnavailableError(`Redis: ${(error as Error).message}`, { cause: error });
    }
  }

  /** A write of keys: tracked ones are dropped from memory before it leaves and once it is answered. */
  async #changing<T>(keys: readonly string[], operation: () => Promise<T>): Promise<T> {
    const tracked = this.trackedReads;
    const mine = tracked ? keys.map(this.#p).filter((key) => tracked.tracks(key)) : [];
    if (!tracked || mine.length === 0) return operation();
    tracked.forget(mine);
    try {
      return await operation();
    } finally {
      tracked.forget(mine);
    }
  }

  #setCommand(to: Commands, key: string, value: string, ttl?: number): unknown {
    return ttl === undefined ? to.set(this.#p(key), value) : to.set(this.#p(key), value, 'PX', milliseconds(ttl));
  }

  #addToSetCommand(to: Commands, key: string, member: string, ttl?: number): unknown {
    return (to as unknown as Scripts).signetAddToSet(this.#p(key), member, ttl === undefined ? -1 : Math.round(ttl * 1000));
  }

  get(key: string): Promise<string | undefined> {
    const full = this.#p(key);
    const tracked = this.trackedReads;
    if (!tracked?.tracks(full)) return this.#guard(async () => (await this.client.get(full)) ?? undefined);
    const held = tracked.cached(full);
    if (held !== undefined) return Promise.resolve(held);
    return this.#guard(async () => {
      const token = tracked.begin();
      const value = await this.client.get(full);
      if (value !== null) tracked.remember(full, value, token);
      return value ?? undefined;
    });
  }

  getMany(keys: string[]): Promise<(string | undefined)[]> {
    return this.#guard(async () => {
      if (keys.length === 0) return [];
      // MGET needs its keys in one slot: on a Cluster, one GET per key (pipelined per node).
      const values = this.#cluster
        ? await Promise.all(keys.map((key) => this.client.get(this.#p(key))))
        : await this.client.mget(keys.map(this.#p));
      return values.map((v) => v ?? undefined);
    });
  }

  #readWithReferences(keys: string[], references: readonly Reference[]): Promise<Map<string, string | undefined>> {
    return this.#guard(async () => {
      const found = new Map<string, string | undefined>();
      if (keys.length === 0) return found;
      const answer = await this.#scripts.signetReadWithReferences(
        keys.length,
        ...keys.map(this.#p),
        this.#prefix,
        ...references.flatMap((reference) => [JSON.stringify(reference.path), reference.prefix, reference.via ?? '']),
      );
      // The named ones, then the keys asked for, in order (their names left empty).
      const named = answer.length - keys.length * 2;
      for (let i = 0; i < answer.length; i += 2) {
        const key = i < named ? (answer[i] as string) : (keys[(i - named) / 2] as string);
        found.set(key, answer[i + 1] ?? undefined);
      }
      return found;
    });
  }

  set(key: string, value: string, ttl?: number): Promise<void> {
    return this.#changing([key], () =>
      this.#guard(async () => {
        await this.#setCommand(this.client, key, value, ttl);
      }),
    );
  }

  setIfAbsent(key: string, value: string, ttl?: number): Promise<boolean> {
    return this.#changing([key], () =>
      this.#guard(async () => {
        const full = this.#p(key);
        const result =
          ttl === undefined
            ? await this.client.set(full, value, 'NX')
            : await this.client.set(full, value, 'PX', milliseconds(ttl), 'NX');
        return result === 'OK';
      }),
    );
  }

  delete(...keys: string[]): Promise<void> {
    return this.#changing(keys, () =>
      this.#guard(async () => {
        if (keys.length === 0) return;
        // One server: one DEL of every key. A Cluster: one key per command (keys in different
        // slots), which auto-pipelining sends together.
        if (this.#cluster) await Promise.all(keys.map((key) => this.client.del(this.#p(key))));
        else await this.client.del(...keys.map(this.#p));
      }),
    );
  }

  addToSet(key: string, member: string, ttl?: number): Promise<void> {
    return this.#guard(async () => {
      await this.#addToSetCommand(this.client, key, member, ttl);
    });
  }

  batch(writes: readonly Write[]): Promise<void> {
    return this.#changing(this.trackedReads ? keysOf(writes) : [], () =>
      this.#guard(async () => {
        if (writes.length === 0) return;
        if (this.#cluster) await this.#batchPerNode(writes);
        else await this.#batchInPipeline(writes);
      }),
    );
  }

  /** A Cluster: every command sent in the same tick; auto-pipelining writes them together, per node. */
  async #batchPerNode(writes: readonly Write[]): Promise<void> {
    const sent: Promise<unknown>[] = [];
    for (const write of writes) {
      if (write.op === 'set')
        sent.push(this.#setCommand(this.client, write.key, write.value, write.ttlSeconds) as Promise<unknown>);
      else if (write.op === 'delete') for (const key of write.keys) sent.push(this.client.del(this.#p(key)));
      else sent.push(this.#addToSetCommand(this.client, write.key, write.member, write.ttlSeconds) as Promise<unknown>);
    }
    await Promise.all(sent);
  }

  /** One server: one explicit pipeline, one write and one round trip; the same commands as one by one. */
  async #batchInPipeline(writes: readonly Write[]): Promise<void> {
    const pipeline = this.client.pipeline();
    for (const write of writes) {
      if (write.op === 'set') this.#setCommand(pipeline, write.key, write.value, write.ttlSeconds);
      else if (write.op === 'delete') {
        if (write.keys.length > 0) pipeline.del(...write.keys.map(this.#p));
      } else this.#addToSetCommand(pipeline, write.key, write.member, write.ttlSeconds);
    }
    const queued = pipeline.length;
    if (queued === 0) return;
    const results = await pipeline.exec();
    const failed = results?.find(([error]) => error);
    if (failed) throw failed[0];
    if (results?.length !== queued) throw new Error('the pipeline was not run to its end');
  }

  members(key: string): Promise<string[]> {
    return this.#guard(() => this.client.smembers(this.#p(key)));
  }

  increment(key: string, ttl: number, by = 1): Promise<number> {
    return this.#guard(async () => Number(await this.#scripts.signetIncrement(this.#p(key), by, milliseconds(ttl))));
  }

  /** Every live record under a prefix, 200 keys at a time: its type, then its value or members and its time left. */
  entries(keyPrefix: string): Promise<StoredEntry[]> {
    return this.#guard(async () => {
      const keys = await this.keys(keyPrefix);
      const entries: StoredEntry[] = [];
      for (let i = 0; i < keys.length; i += 200) entries.push(...(await this.#entriesOf(keys.slice(i, i + 200))));
      return entries;
    });
  }

  /** PTTL answers -1 for no expiry and -2 for a key gone meanwhile (skipped). */
  async #entriesOf(keys: string[]): Promise<StoredEntry[]> {
    const types = await Promise.all(keys.map((key) => this.client.type(this.#p(key))));
    const read = await Promise.all(
      keys.map(async (key, j) => {
        const full = this.#p(key);
        const [content, ttl] = await Promise.all([
          types[j] === 'set' ? this.client.smembers(full) : types[j] === 'string' ? this.client.get(full) : null,
          this.client.pttl(full),
        ]);
        return { key, content, ttl };
      }),
    );
    const entries: StoredEntry[] = [];
    for (const { key, content, ttl } of read) {
      if (content === null || ttl === -2) continue;
      const left = ttl >= 0 ? { ttlMs: ttl } : {};
      entries.push(Array.isArray(content) ? { key, members: content, ...left } : { key, value: content, ...left });
    }
    return entries;
  }

  /** SCAN walks one server: on a Cluster, every primary in turn. */
  keys(keyPrefix: string): Promise<string[]> {
    return this.#guard(async () => {
      const found = new Set<string>();
      const pattern = `${this.#p(keyPrefix).replace(/[*?[\]\\]/g, '\\$&')}*`;
      for (const node of this.#primaries()) {
        let cursor = '0';
        do {
          const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
          cursor = next;
          for (const key of batch) found.add(key.slice(this.#prefix.length));
        } while (cursor !== '0');
      }
      return [...found];
    });
  }

  ping(): Promise<void> {
    return this.#guard(async () => {
      await this.client.ping();
    });
  }

  /** Each data server's maxmemory-policy (CONFIG GET); rejects where CONFIG is refused. */
  maxmemoryPolicies(): Promise<string[]> {
    return Promise.all(
      this.#primaries().map(async (node) => {
        const answer = (await node.config('GET', 'maxmemory-policy')) as string[];
        return answer[1] ?? 'unknown';
      }),
    );
  }

  async close(): Promise<void> {
    this.trackedReads?.close();
    this.client.disconnect();
  }
}

/** A Redis store for a URL (redis://, rediss://, redis+sentinel://, redis+cluster://) or a parsed target. */
export function createRedisStore(
  url: string | RedisTarget,
  options: RedisStoreOptions = {},
): Store & { client: Redis | Cluster; trackedReads?: TrackedReads; maxmemoryPolicies(): Promise<string[]> } {
  return new RedisStore(typeof url === 'string' ? parseRedisUrl(url) : url, options);
}
