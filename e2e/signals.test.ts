/**
 * SIGTERM reaches the server, whichever documented way started it: the `signet` executable,
 * `npm run provider`, and `npm start` (which forwards it to the provider and the client), each
 * started exactly as README says. Each exits 0 and leaves no process behind. Runs the built
 * JavaScript (npm test builds first).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from './processes.ts';

const ROOT = join(import.meta.dirname, '..');

async function waitForHealth(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

const exited = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );

/** Whether a process with this pid still exists (signal 0 only checks). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pids of a process's descendants, from /proc. */
async function descendants(pid: number): Promise<number[]> {
  const { readdirSync, readFileSync } = await import('node:fs');
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of parents) {
      if (ppid === parent) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}

/** Polls `check` until it holds (generous: a machine under load may take seconds to reap). */
async function waitUntil(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Whether something accepts connections on 127.0.0.1:port. */
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

const baseEnv = (port: number) => ({
  ...process.env,
  PORT: String(port),
  STORAGE_URL: 'memory:',
  LOG_LEVEL: 'warn',
  ISSUER: `http://localhost:${port}`,
});

describe('SIGTERM stops every documented way of running a server: exit 0, nothing left', () => {
  it('the signet executable (node_modules/.bin/signet provider), through the default drain', async () => {
    const port = await freePort();
    const child = spawn(join(ROOT, 'node_modules', '.bin', 'signet'), ['provider'], { env: baseEnv(port), stdio: 'ignore' });
    const done = exited(child);
    await waitForHealth(`http://127.0.0.1:${port}/health`);
    const below = await descendants(child.pid as number);
    child.kill('SIGTERM');
    expect(await done).toEqual({ code: 0, signal: null });
    for (const pid of below) expect(alive(pid), `pid ${pid}`).toBe(false);
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
  });

  it('npm run provider: npm passes SIGTERM to the provider', async () => {
    const port = await freePort();
    const child = spawn('npm', ['run', 'provider'], {
      cwd: ROOT,
      env: { ...baseEnv(port), SHUTDOWN_DRAIN_MS: '0' },
      stdio: 'ignore',
    });
    const done = exited(child);
    await waitForHealth(`http://127.0.0.1:${port}/health`);
    const below = await descendants(child.pid as number);
    expect(below.length).toBeGreaterThan(0);
    child.kill('SIGTERM');
    expect((await done).code).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const pid of below) expect(alive(pid), `pid ${pid}`).toBe(false);
  });

  it('npm start, exactly as README says: SIGTERM to npm stops start.mjs, the provider and the client, and frees both ports', async () => {
    const [providerPort, clientPort] = [await freePort(), await freePort()];
    const dataDir = join(mkdtempSync(join(tmpdir(), 'signet-start-')), 'data');
    // `npm start` itself (npm, then the script line), not `node scripts/start.mjs`: npm runs a
    // script through `sh -c`, and a shell between npm and node would keep the signal from it.
    const child = spawn('npm', ['start'], {
      cwd: ROOT,
      env: {
        ...process.env,
        PROVIDER_PORT: String(providerPort),
        CLIENT_PORT: String(clientPort),
        // A data directory that does not exist yet, and a session secret given (so start.mjs
        // writes none): the provider and the client race to create it.
        SIGNET_DATA_DIR: dataDir,
        SESSION_SECRET: 'k9V2x7Qp0ZrT4mB8sL1wYc3N-start-test',
        SIGNET_START_SKIP_BUILD: '1',
        SHUTDOWN_DRAIN_MS: '0',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    const done = exited(child);
    await waitForHealth(`http://127.0.0.1:${providerPort}/health`);
    await waitForHealth(`http://127.0.0.1:${clientPort}/`);
    // ./data holds the provider's keys: made for this user only, and nothing warns about it.
    expect((statSync(dataDir).mode & 0o777).toString(8)).toBe('700');
    expect(output).not.toMatch(/accessible to other users/);
    const below = await descendants(child.pid as number);
    // start.mjs, the provider and the client (and nothing of npm's own that would outlive it).
    expect(below.length).toBeGreaterThanOrEqual(3);
    child.kill('SIGTERM');
    expect((await done).code).toBe(0);
    await waitUntil(() => below.every((pid) => !alive(pid)), 'every process below npm to exit');
    for (const pid of below) expect(alive(pid), `pid ${pid}`).toBe(false);
    for (const port of [providerPort, clientPort]) expect(await listening(port), `port ${port}`).toBe(false);
  });
});
