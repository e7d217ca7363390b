/**
 * Real processes for the scale-out tests: provider replicas started as `npm run provider` would
 * (node + tsx on src/server.ts), and dedicated redis-server instances on their own ports.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@signet/testkit/ports';

const ROOT = join(import.meta.dirname, '..');

export { freePort };

/** Everything a child process writes (stdout and stderr, interleaved), read at any time. */
export function collectOutput(child: ChildProcess): () => string {
  let output = '';
  const append = (chunk: Buffer | string) => {
    output += chunk;
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  return () => output;
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export type Replica = {
  port: number;
  /** Where to reach this replica directly. */
  url: string;
  process: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
};

/** Starts one provider process with the given settings on `port` (free port by default). */
export async function startReplica(env: Record<string, string>, port?: number): Promise<Replica> {
  const listenPort = port ?? (await freePort());
  const child = spawn(
    process.execPath,
    ['--conditions=@signet/source', '--import', 'tsx', join(ROOT, 'apps', 'provider', 'src', 'server.ts')],
    {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: String(listenPort), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const output = collectOutput(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://localhost:${listenPort}`;
  await Promise.race([
    waitFor(async () => (await fetch(`${url}/health`)).status === 200, `provider on ${listenPort}`),
    exited.then((code) => {
      throw new Error(`provider exited (${code}) before answering:\n${output()}`);
    }),
  ]);
  return {
    port: listenPort,
    url,
    process: child,
    output,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

export type RedisServer = {
  port: number;
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open, nothing answers. */
  freeze(): void;
  thaw(): void;
};

/** A redis-server of the test's own, on its own port, persisting to a temporary directory. */
export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'signet-redis-'));
  let child: ChildProcess | undefined;
  const ping = () =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('error', () => resolve(false));
      socket.once('connect', () => socket.write('PING\r\n'));
      socket.once('data', (data: Buffer) => {
        socket.destroy();
        resolve(data.toString().startsWith('+PONG'));
      });
    });
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--dir', dir],
      {
        stdio: 'ignore',
      },
    );
    await waitFor(ping, `redis-server on ${port}`, 10_000);
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    start,
    async stop() {
      if (!child || child.exitCode !== null) return;
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
    freeze: () => child?.kill('SIGSTOP'),
    thaw: () => child?.kill('SIGCONT'),
  };
}
