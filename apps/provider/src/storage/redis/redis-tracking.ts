/**
 * Client-side caching of a few key prefixes (the client records) for the Redis store on one
 * server or a Sentinel group's primary, kept exact by Redis' server-assisted invalidation
 * (CLIENT TRACKING in broadcast mode, RESP2 with a redirect connection): whoever changes or
 * deletes a key under a tracked prefix — another replica, the CLI, an expiry — Redis tells this
 * process on a second connection, and the value is dropped.
 *
 * A sign-in reads its client's record on each of its requests (six times), and a registered
 * client is almost never written: those reads are answered from process memory. What keeps it
 * exact:
 * - nothing is served from memory unless both connections are up and tracking was switched on
 *   over them; when either closes, everything held is dropped at once, and serving resumes only
 *   once tracking is on again (a new invalidation connection has a new id to redirect to);
 * - a value read from Redis is kept only if no invalidation, flush or write of this process's
 *   own arrived while the read was on its way (a generation counter), so a read answered just
 *   before a change never outlives the change's invalidation;
 * - this process's own writes drop the key before they leave and again once Redis has answered
 *   them, so the process reads its own writes at once, without waiting for the invalidation;
 * - a value is held for at most `maxAgeMs` (10 s), whatever happens: a connection that died
 *   silently can serve a stale record for no longer than that.
 * Where tracking cannot be switched on (Redis before 6, a user without the CLIENT or SUBSCRIBE
 * commands, a proxy that refuses them) every read goes to Redis, as without this.
 */
import type { Redis } from 'ioredis';
import { HeldValues } from '../held-values.ts';

const INVALIDATE_CHANNEL = '__redis__:invalidate';

export type TrackedReads = {
  /** Whether reads of `key` (with the store's prefix) go through here. */
  tracks(key: string): boolean;
  /** The value held for `key`, or undefined: read it from Redis, then `remember` it. */
  cached(key: string): string | undefined;
  /** Before a read from Redis: a token that `remember` checks (see above). */
  begin(): number;
  /** A value read from Redis under the token `begin` gave before the read. */
  remember(key: string, value: string, token: number): void;
  /** This process is changing these keys: dropped now, and again once Redis has answered. */
  forget(keys: readonly string[]): void;
  /** Whether values are being served from memory (tracking is on over both connections). */
  readonly active: boolean;
  close(): void;
};

export type TrackedReadsOptions = {
  /** How long a value may be served from memory at most, in ms (default 10,000). */
  maxAgeMs?: number;
  /** How many values are held at most (default 10,000); when full, all are dropped. */
  maxEntries?: number;
  /** Told when serving from memory starts or stops, and why it could not start. */
  onChange?: (active: boolean, reason?: string) => void;
};

export function trackReads(client: Redis, prefixes: readonly string[], options: TrackedReadsOptions = {}): TrackedReads {
  const held = new HeldValues(options.maxAgeMs ?? 10_000, options.maxEntries ?? 10_000);
  let active = false;
  let closed = false;
  /** Bumped whenever either connection closes: a setup begun before it is abandoned. */
  let connections = 0;
  /** The invalidation connection's id while it is up and subscribed. */
  let subscriberId: string | undefined;
  let settingUp = false;

  // RESP2 on this connection: a RESP3 one is sent the invalidations as `invalidate` push frames,
  // which ioredis does not pass on; a RESP2 one subscribed to the channel gets them as messages.
  const subscriber = client.duplicate({ protocol: 2, autoResubscribe: false, lazyConnect: true, enableOfflineQueue: false });
  subscriber.on('error', () => {});

  const drop = () => held.invalidate();
  const stop = (reason?: string) => {
    drop();
    if (active) {
      active = false;
      options.onChange?.(false, reason);
    }
  };

  // messageBuffer, not message: ioredis turns a message into one string, and an invalidation
  // carries an array of keys (or nothing, when Redis flushed everything).
  subscriber.on('messageBuffer', (channel: Buffer, message: unknown) => {
    if (channel.toString() !== INVALIDATE_CHANNEL) return;
    held.invalidate(Array.isArray(message) ? (message as unknown[]).map(String) : undefined);
  });

  const setUp = async () => {
    if (closed || settingUp || client.status !== 'ready' || subscriber.status !== 'ready') return;
    settingUp = true;
    const started = connections;
    try {
      if (subscriberId === undefined) {
        const id = String(await subscriber.client('ID'));
        await subscriber.subscribe(INVALIDATE_CHANNEL);
        if (connections !== started) return;
        subscriberId = id;
      }
      // Off first: a data connection that kept its tracking (only the invalidation connection came
      // back) refuses the same prefixes again, and must redirect to the new connection's id.
      await client.call('CLIENT', 'TRACKING', 'OFF');
      await client.call('CLIENT', 'TRACKING', 'ON', 'REDIRECT', subscriberId, 'BCAST', ...prefixes.flatMap((p) => ['PREFIX', p]));
      if (connections !== started || closed) return;
      drop();
      active = true;
      options.onChange?.(true);
    } catch (error) {
      stop();
      options.onChange?.(false, (error as Error).message);
    } finally {
      settingUp = false;
      // A connection that came back while this ran: set up again over it.
      if (!active && connections !== started) void setUp();
    }
  };

  const closedConnection = (which: 'data' | 'invalidation') => () => {
    connections += 1;
    if (which === 'invalidation') subscriberId = undefined;
    stop(`the ${which} connection closed`);
  };
  client.on('close', closedConnection('data'));
  subscriber.on('close', closedConnection('invalidation'));
  client.on('ready', () => void setUp());
  subscriber.on('ready', () => void setUp());
  subscriber.connect().catch(() => {});
  void setUp();

  return {
    tracks: (key) => prefixes.some((prefix) => key.startsWith(prefix)),
    cached: (key) => (active ? held.get(key) : undefined),
    begin: () => held.generation,
    remember(key, value, token) {
      if (active) held.remember(key, value, token);
    },
    forget: (keys) => held.invalidate(keys),
    get active() {
      return active;
    },
    close() {
      closed = true;
      stop();
      subscriber.disconnect();
    },
  };
}
