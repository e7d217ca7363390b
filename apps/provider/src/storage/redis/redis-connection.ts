import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { RedisTarget } from './redis-url.ts';

/** The client's settings: bounded waits, so an outage answers fast (503) instead of hanging. */
export function clientOptions(commandTimeoutMs = 2000): RedisOptions {
  return {
    commandTimeout: commandTimeoutMs,
    connectTimeout: commandTimeoutMs,
    // While disconnected, a command waits for at most one reconnection attempt, then fails
    // (503 to the caller) instead of queueing without bound.
    maxRetriesPerRequest: 1,
    retryStrategy: (times) => Math.min(times * 200, 2000),
    lazyConnect: false,
  };
}

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
export function connect(target: RedisTarget, options: RedisOptions): { client: Redis | Cluster; primaries(): Redis[] } {
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
export function writesPerTurn(client: Redis): () => void {
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
