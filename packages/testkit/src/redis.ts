/**
 * Redis servers of a test's own, on free loopback ports (never the shared Redis): a single
 * server (stopped, restarted, frozen), a primary with a replica watched by three sentinels, and a
 * three-primary Cluster. Every one is a real `redis-server` / `redis-sentinel` from Debian; a
 * missing binary fails with the command that installs it.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';

const PACKAGES: Record<string, string> = {
  'redis-server': 'redis-server',
  'redis-sentinel': 'redis-sentinel',
  'redis-cli': 'redis-tools',
};

function requireBinary(name: string): void {
  if (spawnSync('sh', ['-c', `command -v ${name}`]).status !== 0) {
    throw new Error(
      `${name} is not installed: apt-get install -y ${PACKAGES[name] ?? name} (scripts/prerequisites.mjs does it for npm test)`,
    );
  }
}

export async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** One command in the inline protocol, its raw answer (or undefined when nothing answers). */
export function redisCommand(port: number, command: string, timeoutMs = 1000): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    const done = (value: string | undefined) => {
      socket.destroy();
      resolve(value);
    };
    socket.setTimeout(timeoutMs, () => done(undefined));
    socket.once('error', () => done(undefined));
    socket.once('connect', () => socket.write(`${command}\r\n`));
    socket.on('data', (data: Buffer) => {
      answer += data.toString('latin1');
      if (replyEnd(answer, 0) !== undefined) done(answer);
    });
  });
}

/** Where the RESP reply starting at `at` ends, or undefined while it is incomplete. */
function replyEnd(text: string, at: number): number | undefined {
  const lineEnd = text.indexOf('\r\n', at);
  if (lineEnd < 0) return undefined;
  const type = text[at];
  const n = Number(text.slice(at + 1, lineEnd));
  if (type === '$') return n < 0 ? lineEnd + 2 : text.length >= lineEnd + 4 + n ? lineEnd + 4 + n : undefined;
  if (type === '*') {
    let next: number | undefined = lineEnd + 2;
    for (let i = 0; i < n && next !== undefined; i++) next = replyEnd(text, next);
    return next;
  }
  return lineEnd + 2;
}

export type RedisServer = {
  port: number;
  url: string;
  process(): ChildProcess | undefined;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** SIGKILL: the server dies at once, as a crashed node would. */
  kill(): Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open, nothing answers. */
  freeze(): void;
  thaw(): void;
};

type Managed = { start(): Promise<void>; stop(signal?: NodeJS.Signals): Promise<void>; child(): ChildProcess | undefined };

function managed(binary: string, args: () => string[], ready: () => Promise<boolean>, what: string): Managed {
  requireBinary(binary);
  let child: ChildProcess | undefined;
  let output = '';
  return {
    async start() {
      output = '';
      child = spawn(binary, args(), { stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout?.on('data', (chunk) => {
        output = (output + chunk).slice(-4000);
      });
      child.stderr?.on('data', (chunk) => {
        output = (output + chunk).slice(-4000);
      });
      const started = child;
      await Promise.race([
        waitFor(ready, what, 15_000),
        new Promise<never>((_, reject) =>
          started.once('exit', (code) => reject(new Error(`${what} exited (${code}):\n${output}`))),
        ),
      ]);
    },
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGCONT');
      running.kill(signal);
      await exited;
    },
    child: () => child,
  };
}

const pong = (port: number) => async () => (await redisCommand(port, 'PING'))?.startsWith('+PONG') === true;

/** A redis-server of the test's own, persisting to a temporary directory; `args` adds configuration. */
export async function startRedis(args: string[] = []): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'signet-redis-'));
  const server = managed(
    'redis-server',
    () => ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--dir', dir, ...args],
    pong(port),
    `redis-server on ${port}`,
  );
  await server.start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    process: server.child,
    start: server.start,
    async stop() {
      await server.stop();
    },
    async kill() {
      await server.stop('SIGKILL');
    },
    freeze: () => server.child()?.kill('SIGSTOP'),
    thaw: () => server.child()?.kill('SIGCONT'),
  };
}

export type SentinelGroup = {
  /** STORAGE_URL for the provider: redis+sentinel://<three sentinels>/<name>. */
  url: string;
  name: string;
  primary: RedisServer;
  replica: RedisServer;
  sentinelPorts: number[];
  /** The port of the primary the sentinels name now. */
  currentPrimaryPort(): Promise<number | undefined>;
  stop(): Promise<void>;
};

/**
 * A primary, one replica and three sentinels (quorum 2), tuned to fail over in a few seconds:
 * a primary is down after 1 s without an answer, and a failover may be retried after 4 s.
 */
export async function startSentinelGroup(name = 'signet'): Promise<SentinelGroup> {
  requireBinary('redis-sentinel');
  const primary = await startRedis();
  const replica = await startRedis(['--replicaof', '127.0.0.1', String(primary.port)]);
  await waitFor(
    async () => /master_link_status:up/.test((await redisCommand(replica.port, 'INFO replication')) ?? ''),
    'the replica to sync',
    15_000,
  );
  const dir = mkdtempSync(join(tmpdir(), 'signet-sentinel-'));
  const sentinels: Managed[] = [];
  const sentinelPorts: number[] = [];
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    const file = join(dir, `sentinel-${i}.conf`);
    // Sentinel rewrites its configuration file: each gets its own.
    writeFileSync(
      file,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${name} 127.0.0.1 ${primary.port} 2`,
        `sentinel down-after-milliseconds ${name} 1000`,
        `sentinel failover-timeout ${name} 4000`,
        `sentinel parallel-syncs ${name} 1`,
        '',
      ].join('\n'),
    );
    const sentinel = managed('redis-sentinel', () => [file], pong(port), `redis-sentinel on ${port}`);
    await sentinel.start();
    sentinels.push(sentinel);
    sentinelPorts.push(port);
  }
  const currentPrimaryPort = async () => {
    for (const port of sentinelPorts) {
      const answer = await redisCommand(port, `SENTINEL get-master-addr-by-name ${name}`);
      const found = /\r\n(\d+)\r\n$/.exec(answer ?? '');
      if (found) return Number(found[1]);
    }
    return undefined;
  };
  // Every sentinel has found the replica and the other sentinels: a failover can be voted.
  await waitFor(
    async () => {
      for (const port of sentinelPorts) {
        const answer = (await redisCommand(port, `SENTINEL master ${name}`)) ?? '';
        const field = (key: string) => Number(new RegExp(`\\$\\d+\\r\\n${key}\\r\\n\\$\\d+\\r\\n(\\d+)`).exec(answer)?.[1]);
        if (field('num-slaves') < 1 || field('num-other-sentinels') < 2) return false;
      }
      return true;
    },
    'the sentinels to see the replica and each other',
    20_000,
  );
  return {
    url: `redis+sentinel://${sentinelPorts.map((port) => `127.0.0.1:${port}`).join(',')}/${name}`,
    name,
    primary,
    replica,
    sentinelPorts,
    currentPrimaryPort,
    async stop() {
      await Promise.all(sentinels.map((s) => s.stop()));
      await Promise.all([primary.stop(), replica.stop()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type RedisCluster = {
  /** STORAGE_URL for the provider: redis+cluster://<every primary>. */
  url: string;
  ports: number[];
  stop(): Promise<void>;
};

/** A Redis Cluster of `primaries` primaries (no replicas), slots spread evenly by redis-cli. */
export async function startRedisCluster(primaries = 3): Promise<RedisCluster> {
  requireBinary('redis-cli');
  const nodes: Managed[] = [];
  const ports: number[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'signet-cluster-'));
  for (let i = 0; i < primaries; i++) {
    const [port, busPort] = [await freePort(), await freePort()];
    const node = managed(
      'redis-server',
      () => [
        '--port',
        String(port),
        '--cluster-port',
        String(busPort),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(dir, `nodes-${port}.conf`),
        '--cluster-node-timeout',
        '2000',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
      ],
      pong(port),
      `cluster node on ${port}`,
    );
    await node.start();
    nodes.push(node);
    ports.push(port);
  }
  const created = spawnSync('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-yes'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (created.status !== 0) throw new Error(`redis-cli --cluster create failed:\n${created.stdout}\n${created.stderr}`);
  await waitFor(
    async () => {
      for (const port of ports) {
        if (!/cluster_state:ok/.test((await redisCommand(port, 'CLUSTER INFO')) ?? '')) return false;
      }
      return true;
    },
    'the cluster to be ok',
    20_000,
  );
  return {
    url: `redis+cluster://${ports.map((port) => `127.0.0.1:${port}`).join(',')}`,
    ports,
    async stop() {
      await Promise.all(nodes.map((n) => n.stop()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
