/**
 * Reads of announced keys (client records) answered from process memory on PostgreSQL, exact
 * across replicas: the schema's triggers send every changed key on the schema's channel when its
 * transaction commits (postgres-schema.ts, version 2), and one connection of this process
 * LISTENs there and drops the key. A sign-in reads its client six times; without this each is a
 * round trip (bench/history.md).
 *
 * - Served from memory only while the listening connection is up and subscribed; when it drops,
 *   everything held is dropped and reads go to the database until it is back (a change made
 *   meanwhile was never announced to this process).
 * - A read that was in flight when any change was announced is not kept (it may have read the
 *   value before the change), nor is one made while this process's own write of that key is.
 * - Only values without an expiry are held (client records have none), at most `maxEntries`
 *   (when full, all are dropped) and for at most `maxAgeMs`.
 * - Another replica's change is seen once its announcement arrives (milliseconds after its
 *   commit), as with Redis's client-side tracking (redis-tracking.ts).
 * - Announcements must be seen to arrive: at start and every `probeMs`, a probe is announced
 *   through the pool and must reach the listener within `probeTimeoutMs`, or nothing is served
 *   from memory. Through a transaction-pooling PgBouncer a LISTEN lands on a server session the
 *   listener does not keep, no probe arrives, and every read goes to the database.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { HeldValues } from '../held-values.ts';

const PROBE = 'signet-probe:';

export type CachedReads = {
  /** Whether `key` is one this cache may answer (its prefix is announced). */
  covers(key: string): boolean;
  /** The value from memory, or `load()`'s (kept when it may be). */
  read(key: string, load: () => Promise<{ value: string | undefined; expires: boolean }>): Promise<string | undefined>;
  /** This process writes `key`: dropped now, and nothing read meanwhile is kept. */
  writing(keys: readonly string[]): void;
  readonly active: boolean;
  close(): Promise<void>;
};

export type CachedReadsOptions = {
  prefix: string;
  channel: string;
  maxEntries?: number;
  maxAgeMs?: number;
  /** Delay before the listening connection is opened again after it dropped (ms, default 1000). */
  retryMs?: number;
  /** Announces `payload` on the channel through the store's own connections (the probe). */
  announce(payload: string): Promise<void>;
  /** How often announcements are probed (ms, default 30,000), and how long a probe may take (default 5,000). */
  probeMs?: number;
  probeTimeoutMs?: number;
  onChange?: (active: boolean, reason?: string) => void;
};

/** Probe announcements: one sent at a time, answered when it comes back on the subscription. */
class Probes {
  #awaited: { payload: string; arrived: () => void } | undefined;

  constructor(
    private readonly announce: (payload: string) => Promise<void>,
    private readonly timeoutMs: number,
  ) {}

  /** Announces a probe; true when it arrives within the time allowed. */
  async send(): Promise<boolean> {
    const payload = `${PROBE}${randomBytes(9).toString('base64url')}`;
    let timer: NodeJS.Timeout | undefined;
    const arrived = new Promise<boolean>((resolve) => {
      this.#awaited = { payload, arrived: () => resolve(true) };
      timer = setTimeout(() => resolve(false), this.timeoutMs);
    });
    try {
      await this.announce(payload);
      return await arrived;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
      if (this.#awaited?.payload === payload) this.#awaited = undefined;
    }
  }

  arrived(payload: string) {
    if (this.#awaited?.payload === payload) this.#awaited.arrived();
  }
}

export function cachedReads(config: pg.ClientConfig, options: CachedReadsOptions): CachedReads {
  const held = new HeldValues(options.maxAgeMs ?? 60_000, options.maxEntries ?? 10_000);
  let active = false;
  let closed = false;
  let listener: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let probing: NodeJS.Timeout | undefined;
  const probes = new Probes(options.announce, options.probeTimeoutMs ?? 5000);
  /** Announces a probe and waits for it on `client`'s subscription; false when it does not come. */
  const probe = async (client: pg.Client) => (await probes.send()) && listener === client;

  const drop = () => held.invalidate();
  const setActive = (now: boolean, reason?: string) => {
    if (now === active) return;
    active = now;
    options.onChange?.(now, reason);
  };

  const listen = async () => {
    if (closed) return;
    const client = new pg.Client(config);
    listener = client;
    const lost = (reason: string) => {
      if (listener !== client) return;
      listener = undefined;
      drop();
      setActive(false, reason);
      client.end().catch(() => {});
      if (!closed) {
        retry = setTimeout(() => void listen(), options.retryMs ?? 1000);
        retry.unref();
      }
    };
    client.on('error', (error) => lost(error.message));
    client.on('end', () => lost('the listening connection closed'));
    client.on('notification', (message) => {
      const payload = message.payload ?? '';
      if (payload.startsWith(PROBE)) {
        probes.arrived(payload);
        return;
      }
      held.invalidate([payload]);
    });
    try {
      await client.connect();
      await client.query(`LISTEN "${options.channel.replace(/"/g, '""')}"`);
      if (listener !== client || closed) return;
      if (!(await probe(client))) {
        lost('announcements do not reach the listening connection (a transaction-pooling PgBouncer?)');
        return;
      }
      // Whatever changed before the subscription was never announced here: start empty.
      drop();
      setActive(true);
      const again = async () => {
        if (listener !== client || closed) return;
        if (await probe(client)) {
          probing = setTimeout(() => void again(), options.probeMs ?? 30_000);
          probing.unref();
        } else lost('a probe announcement did not arrive');
      };
      probing = setTimeout(() => void again(), options.probeMs ?? 30_000);
      probing.unref();
    } catch (error) {
      lost((error as Error).message);
    }
  };
  void listen();

  return {
    get active() {
      return active;
    },
    covers: (key) => key.startsWith(options.prefix),
    async read(key, load) {
      const cached = active ? held.get(key) : undefined;
      if (cached !== undefined) return cached;
      const before = held.generation;
      const { value, expires } = await load();
      if (active && value !== undefined && !expires) held.remember(key, value, before);
      return value;
    },
    writing: (keys) => held.invalidate(keys),
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      if (probing) clearTimeout(probing);
      const client = listener;
      listener = undefined;
      drop();
      setActive(false);
      await client?.end().catch(() => {});
    },
  };
}
