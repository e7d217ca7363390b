/**
 * Real processes for the scale-out tests: provider replicas started as `npm run provider` would
 * (node + tsx on src/server.ts); dedicated redis-server instances come from @signet/testkit/redis.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '@signet/testkit/ports';
import { type RedisServer, startRedis, waitFor } from '@signet/testkit/redis';

const ROOT = join(import.meta.dirname, '..');

export { freePort, type RedisServer, startRedis };

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

/**
 * A provider process that trusts the CA in `certFile` (NODE_EXTRA_CA_CERTS) and may fetch from
 * loopback (ALLOW_PRIVATE_FETCH): Client ID Metadata Documents served by a test on
 * https://127.0.0.1 (@signet/testkit's startDocumentServer). Memory storage, no rate limits.
 */
export async function startDocumentTrustingReplica(certFile: string, settings: Record<string, string> = {}): Promise<Replica> {
  const port = await freePort();
  return startReplica(
    {
      ISSUER: `http://localhost:${port}`,
      STORAGE_URL: 'memory:',
      NODE_EXTRA_CA_CERTS: certFile,
      ALLOW_PRIVATE_FETCH: 'true',
      RATE_LIMIT_AUTHORIZATION: '0',
      RATE_LIMIT_INTERACTION: '0',
      RATE_LIMIT_TOKEN: '0',
      SHUTDOWN_DRAIN_MS: '0',
      ...settings,
    },
    port,
  );
}
