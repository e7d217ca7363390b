/**
 * Complete sign-ins against the provider as operators run it (the built JavaScript), next to a
 * bare oidc-provider doing the same authorization-code flow with a trivial interaction
 * (bare-provider.mjs), on each storage: memory, SQLite, Redis. The server is pinned to core 0
 * and the load driver (flow-driver.ts) runs in its own process pinned to core 1; CPU per flow
 * is the server process's user + system time (/proc) over the measured flows. Each
 * configuration runs `REPEATS` times; the table shows medians and the spread of flows/s.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Check, Section } from './report.ts';

const ROOT = join(import.meta.dirname, '..');
const FLOWS = Number(process.env.BENCH_FLOWS ?? 600);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const CONCURRENCY = [16, 64];
const TICK_MS = 10; // CLK_TCK is 100 on Linux

type Storage = 'memory' | 'sqlite' | 'redis';
type Impl = 'signet' | 'bare';
type Run = { flowsPerSecond: number; p50: number; p99: number; cpuMsPerFlow: number; failures: number };

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const status = (pid: number, field: 'VmRSS' | 'VmHWM') =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) / 1024;

/** utime + stime of a process, in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

async function startServer(impl: Impl, storage: Storage, dir: string) {
  const port = await freePort();
  const storageUrl =
    storage === 'memory'
      ? 'memory:'
      : storage === 'sqlite'
        ? `sqlite:${join(dir, `${impl}-${port}.db`)}`
        : 'redis://127.0.0.1:6379';
  const command =
    impl === 'signet'
      ? ['node', join(ROOT, 'apps/provider/bin/signet.js'), 'provider']
      : ['node', join(ROOT, 'bench/bare-provider.mjs')];
  const child = spawn('taskset', ['-c', '0', ...command], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      ISSUER: `http://localhost:${port}`,
      STORAGE_URL: storageUrl,
      STORAGE: storage === 'memory' ? 'memory' : storageUrl,
      STORAGE_PREFIX: `bench-${port}:`,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_AUTHORIZATION: '0',
      RATE_LIMIT_INTERACTION: '0',
      RATE_LIMIT_REGISTRATION: '0',
      RATE_LIMIT_TOKEN: '0',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr?.on('data', (chunk) => {
    errors += chunk;
  });
  const url = `http://localhost:${port}`;
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`${impl} server exited: ${errors}`);
    if ((await fetch(`${url}/.well-known/openid-configuration`).catch(() => undefined))?.status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  return { child, url, idleRss: status(child.pid as number, 'VmRSS') };
}

function drive(impl: Impl, url: string, concurrency: number, serverPid: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const driver: ChildProcess = spawn(
      'taskset',
      ['-c', '1', 'node', '--conditions=@signet/source', '--import', 'tsx', join(ROOT, 'bench/flow-driver.ts')],
      {
        cwd: ROOT,
        env: { ...process.env, TARGET: url, MODE: impl, FLOWS: String(FLOWS), CONCURRENCY: String(concurrency), WARMUP: '100' },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    let cpuBefore = 0;
    driver.stderr?.on('data', (chunk) => {
      err += chunk;
    });
    driver.stdout?.on('data', (chunk) => {
      out += chunk;
      if (out.includes('warm\n') && cpuBefore === 0) {
        cpuBefore = cpuMs(serverPid);
        driver.stdin?.write('go\n');
      }
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) {
        const cpu = cpuMs(serverPid) - cpuBefore;
        const result = JSON.parse(line) as {
          flows: number;
          seconds: number;
          p50: number;
          p99: number;
          failures: number;
          firstFailure?: string;
        };
        if (result.failures > 0) console.error(`${impl}: ${result.failures} failed flows, e.g. ${result.firstFailure}`);
        resolve({
          flowsPerSecond: result.flows / result.seconds,
          p50: result.p50,
          p99: result.p99,
          cpuMsPerFlow: cpu / Math.max(1, result.flows),
          failures: result.failures,
        });
      }
    });
    driver.once('exit', (code) => {
      if (code !== 0) reject(new Error(`driver exited ${code}: ${err}`));
    });
  });
}

export async function flowBenchmark(): Promise<Section> {
  const dir = mkdtempSync(join(tmpdir(), 'signet-flow-'));
  const rows: string[][] = [];
  const checks: Check[] = [];
  const memoryFigures: { idle: number; peak: number } = { idle: Number.NaN, peak: Number.NaN };
  const ratiosOf: Record<string, { flows: number; cpu: number; p99: number }> = {};
  try {
    for (const storage of ['memory', 'sqlite', 'redis'] as Storage[]) {
      const results: Record<Impl, Record<number, Run[]>> = { signet: {}, bare: {} };
      const memory: Record<Impl, { idle: number; peak: number }> = { signet: { idle: 0, peak: 0 }, bare: { idle: 0, peak: 0 } };
      for (const impl of ['signet', 'bare'] as Impl[]) {
        const server = await startServer(impl, storage, dir);
        try {
          for (const concurrency of CONCURRENCY) {
            results[impl][concurrency] = [];
            for (let i = 0; i < REPEATS; i++) {
              results[impl][concurrency]?.push(await drive(impl, server.url, concurrency, server.child.pid as number));
            }
          }
          memory[impl] = { idle: server.idleRss, peak: status(server.child.pid as number, 'VmHWM') };
        } finally {
          server.child.kill('SIGTERM');
          await new Promise((resolve) => server.child.once('exit', resolve));
        }
      }
      if (storage === 'memory') Object.assign(memoryFigures, memory.signet);
      for (const concurrency of CONCURRENCY) {
        const s = results.signet[concurrency] as Run[];
        const b = results.bare[concurrency] as Run[];
        const fs = median(s.map((r) => r.flowsPerSecond));
        const fb = median(b.map((r) => r.flowsPerSecond));
        const cs = median(s.map((r) => r.cpuMsPerFlow));
        const cb = median(b.map((r) => r.cpuMsPerFlow));
        const ps = median(s.map((r) => r.p99));
        const pb = median(b.map((r) => r.p99));
        const spread = (runs: Run[]) =>
          `${Math.min(...runs.map((r) => r.flowsPerSecond)).toFixed(0)}–${Math.max(...runs.map((r) => r.flowsPerSecond)).toFixed(0)}`;
        ratiosOf[`${storage}@${concurrency}`] = { flows: fs / fb, cpu: cs / cb, p99: ps / pb };
        rows.push([
          `${storage}, concurrency ${concurrency}`,
          `${fs.toFixed(0)} (${spread(s)})`,
          `${fb.toFixed(0)} (${spread(b)})`,
          `${(fs / fb).toFixed(2)}×`,
          `${cs.toFixed(2)} / ${cb.toFixed(2)}`,
          `${(cs / cb).toFixed(2)}×`,
          `${median(s.map((r) => r.p50)).toFixed(1)} / ${ps.toFixed(1)}`,
          `${median(b.map((r) => r.p50)).toFixed(1)} / ${pb.toFixed(1)}`,
          `${(ps / pb).toFixed(2)}×`,
          `${memory.signet.idle.toFixed(0)} / ${memory.signet.peak.toFixed(0)}`,
          `${memory.bare.idle.toFixed(0)} / ${memory.bare.peak.toFixed(0)}`,
        ]);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const worst = (storage: Storage, key: 'flows' | 'cpu' | 'p99', pick: (a: number, b: number) => number) =>
    pick(ratiosOf[`${storage}@16`]?.[key] ?? Number.NaN, ratiosOf[`${storage}@64`]?.[key] ?? Number.NaN);
  const atLeast = (name: string, value: number, goal: number) =>
    checks.push({ name, value, display: `${value.toFixed(2)}×`, target: `≥ ${goal}×`, pass: value >= goal });
  const atMost = (name: string, value: number, goal: number, unit = '×') =>
    checks.push({
      name,
      value,
      display: `${value.toFixed(unit === '×' ? 2 : 0)}${unit === '×' ? '×' : ` ${unit}`}`,
      target: `≤ ${goal}${unit === '×' ? '×' : ` ${unit}`}`,
      pass: value <= goal,
    });
  atLeast('flows/s vs bare, memory (worse concurrency)', worst('memory', 'flows', Math.min), 0.85);
  atLeast('flows/s vs bare, SQLite', worst('sqlite', 'flows', Math.min), 0.75);
  atLeast('flows/s vs bare, Redis', worst('redis', 'flows', Math.min), 0.75);
  atMost('CPU per flow vs bare, memory', worst('memory', 'cpu', Math.max), 1.25);
  atMost('p99 vs bare (worst storage and concurrency)', Math.max(...Object.values(ratiosOf).map((r) => r.p99)), 1.3);
  atMost('idle RSS, built provider (memory storage)', memoryFigures.idle, 120, 'MB');
  atMost('peak RSS, built provider (memory storage)', memoryFigures.peak, 200, 'MB');
  return {
    title: 'Complete sign-ins: Signet against a bare oidc-provider',
    table: {
      head: [
        'storage, concurrency',
        'Signet flows/s (spread)',
        'bare flows/s (spread)',
        'flows/s ratio',
        'CPU ms/flow Signet / bare',
        'CPU ratio',
        'Signet p50 / p99 ms',
        'bare p50 / p99 ms',
        'p99 ratio',
        'Signet RSS idle / peak MB',
        'bare RSS idle / peak MB',
      ],
      rows,
    },
    checks,
    notes: [
      `${FLOWS} flows per run after 100 warm-up flows, ${REPEATS} runs per configuration (medians; spread = slowest–fastest run). Server pinned to core 0 (taskset), driver in its own process on core 1; a flow is authorize → interaction (Signet: details + a signed EIP-4361 message; bare: a programmatic sign-in with no check) → resume → token (PKCE) → userinfo. Both run built JavaScript with LOG_LEVEL=warn and no rate limits; Redis is the machine's, shared. BENCH_FLOWS and BENCH_REPEATS change the size.`,
    ],
  };
}
