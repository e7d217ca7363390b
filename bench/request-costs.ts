/**
 * Where a sign-in's CPU goes, request by request: Signet and the bare oidc-provider of the flow
 * benchmark (bare-provider.mjs), both on memory storage, each loaded with request-cpu.mjs (the
 * CPU from a request's arrival to the end of its answer, per route) and driven at concurrency 1
 * so that one request runs at a time. What the flow benchmark measures as one figure per flow,
 * split into the endpoints that make it up: the difference per route is Signet's own work there.
 * BENCH_COST_STORAGE=sqlite|redis|postgres puts both servers on that storage instead.
 * With BENCH_BASELINE=<another build's apps/provider/bin/signet.js>, the other server is that
 * build instead of the bare provider: what a change does to each route's CPU.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { drive, type Probe, type Storage, startServer, stopServers } from './flow.ts';
import type { Check, Section } from './report.ts';
import { median } from './stats.ts';

const ROOT = join(import.meta.dirname, '..');
const FLOWS = Number(process.env.BENCH_COST_FLOWS ?? 300);
const ROUNDS = Number(process.env.BENCH_COST_ROUNDS ?? 5);
const WARMUP = Number(process.env.BENCH_COST_WARMUP ?? 1500);
/** The storage both servers use: memory unless BENCH_COST_STORAGE names another (sqlite, redis, postgres). */
const STORAGE = storageFrom(process.env.BENCH_COST_STORAGE ?? 'memory');

function storageFrom(value: string): Storage {
  const storages: readonly Storage[] = ['memory', 'sqlite', 'redis', 'postgres'];
  if (!(storages as readonly string[]).includes(value)) {
    throw new Error(`BENCH_COST_STORAGE: "${value}" is none of ${storages.join(', ')}`);
  }
  return value as Storage;
}

/** The server's sums, as counters `<route> µs` and `<route> requests` (drive() turns them into per-flow differences). */
const requestCpu =
  (url: string): Probe =>
  async () => {
    const sums = (await (await fetch(`${url}/__request-cpu`)).json()) as Record<string, { requests: number; micros: number }>;
    const counters: Record<string, number> = {};
    for (const [route, { requests, micros }] of Object.entries(sums)) {
      counters[`${route} µs`] = micros;
      counters[`${route} requests`] = requests;
    }
    return counters;
  };

/** What each route does in a flow, for the table. */
const ROLES: Record<string, string> = {
  'GET /auth': 'authorization request → interaction',
  'GET /interaction/:id': 'Signet: the details (JSON); bare: the whole sign-in, unchecked',
  'POST /interaction/:id': 'Signet: the signed message checked, grant and sign-in record stored',
  'GET /auth/:id': 'resume → code',
  'POST /token': 'code → tokens (PKCE, ID token signed)',
  'GET /me': 'userinfo',
};

/** Adds a run's µs per request to `perRequest` (one value per route); returns the flow's µs. */
function addRoutes(perRequest: Map<string, number[]>, perFlow: Record<string, number>): number {
  let flowMicros = 0;
  for (const [counter, value] of Object.entries(perFlow)) {
    if (!counter.endsWith(' µs')) continue;
    const route = counter.slice(0, -' µs'.length);
    const requests = perFlow[`${route} requests`] ?? 0;
    if (requests < 0.5) continue; // the registration and the probes themselves
    flowMicros += value;
    const values = perRequest.get(route) ?? [];
    values.push(value / requests);
    perRequest.set(route, values);
  }
  return flowMicros;
}

export async function requestCosts(): Promise<Section> {
  const dir = mkdtempSync(join(tmpdir(), 'signet-costs-'));
  const hook = ['--import', join(ROOT, 'bench/request-cpu.mjs')];
  // BENCH_BARE_INTERACTION=page: the bare provider on Signet's two interaction routes.
  const baseline = process.env.BENCH_BASELINE;
  const bareImpl = baseline ? 'signet' : process.env.BENCH_BARE_INTERACTION === 'page' ? 'bare-page' : 'bare';
  const start = (impl: 'signet' | 'bare') =>
    impl === 'signet'
      ? startServer('signet', STORAGE, dir, { nodeArgs: hook })
      : startServer(bareImpl, STORAGE, dir, { nodeArgs: hook, ...(baseline ? { bin: baseline } : {}) });
  const modeOf = (impl: 'signet' | 'bare') => (impl === 'bare' ? bareImpl : impl);
  const other = baseline ? 'baseline' : 'bare';
  // µs per request, per implementation and route, one value per round.
  const perRequest = { signet: new Map<string, number[]>(), bare: new Map<string, number[]>() };
  const perFlow = { signet: [] as number[], bare: [] as number[] };
  // Half the rounds with each server started first (afresh each time): one order alone read two
  // builds a few per cent apart either way on a shared host (compareBuilds in flow.ts).
  try {
    for (const order of [['signet', 'bare'] as const, ['bare', 'signet'] as const]) {
      const servers = {} as Record<'signet' | 'bare', Awaited<ReturnType<typeof startServer>>>;
      try {
        for (const impl of order) servers[impl] = await start(impl);
        for (const impl of order) {
          const server = servers[impl];
          await drive(modeOf(impl), server.url, 16, [server.child.pid as number], '1', WARMUP);
        }
        for (let round = 0; round < Math.ceil(ROUNDS / 2); round++) {
          for (const impl of round % 2 === 0 ? order : [...order].reverse()) {
            const server = servers[impl];
            const pid = server.child.pid as number;
            const run = await drive(modeOf(impl), server.url, 1, [pid], '1', FLOWS, requestCpu(server.url));
            perFlow[impl].push(addRoutes(perRequest[impl], run.perFlow));
          }
        }
      } finally {
        await stopServers(Object.values(servers));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const routes = Object.keys(ROLES).filter((route) => perRequest.signet.has(route) || perRequest.bare.has(route));
  const cell = (impl: 'signet' | 'bare', route: string) => {
    const values = perRequest[impl].get(route);
    return values ? median(values) : undefined;
  };
  const rows = routes.map((route) => {
    const signet = cell('signet', route);
    const bare = cell('bare', route);
    return [
      route,
      ROLES[route] ?? '',
      signet === undefined ? '–' : signet.toFixed(0),
      bare === undefined ? '–' : bare.toFixed(0),
      signet !== undefined && bare !== undefined ? `${signet - bare >= 0 ? '+' : ''}${(signet - bare).toFixed(0)}` : '–',
    ];
  });
  const signetFlow = median(perFlow.signet);
  const bareFlow = median(perFlow.bare);
  rows.push([
    'one flow',
    'the requests above, as the driver makes them',
    signetFlow.toFixed(0),
    bareFlow.toFixed(0),
    `+${(signetFlow - bareFlow).toFixed(0)}`,
  ]);
  const checks: Check[] = [
    {
      name: `CPU per flow at concurrency 1, ${baseline ? 'this build / baseline' : 'Signet / bare'} (sum of its requests)`,
      value: signetFlow / bareFlow,
      display: `${(signetFlow / bareFlow).toFixed(2)}× (${signetFlow.toFixed(0)} / ${bareFlow.toFixed(0)} µs)`,
      target: 'measured',
      pass: true,
    },
  ];
  return {
    title: baseline
      ? `Where a flow’s CPU goes: each request, this build against ${baseline}`
      : 'Where a flow’s CPU goes: each request, Signet against the bare oidc-provider',
    table: {
      head: ['route', 'what it does', baseline ? 'this build µs CPU' : 'Signet µs CPU', `${other} µs CPU`, 'difference'],
      rows,
    },
    checks,
    notes: [
      `${STORAGE === 'memory' ? 'Memory' : STORAGE} storage, concurrency 1 (one request at a time), ${FLOWS} flows per round, ${2 * Math.ceil(ROUNDS / 2)} rounds (medians), half of them with each server started first (afresh, then ${WARMUP} warm-up flows at concurrency 16 each; BENCH_COST_FLOWS, BENCH_COST_ROUNDS and BENCH_COST_WARMUP change the size); each server loads bench/request-cpu.mjs, which sums the process's CPU from a request's arrival to the end of its answer per route. Garbage collection is mostly not in these figures: with one request at a time, V8 collects in the idle time between requests (a collection that does land in a request moves tens of µs from one route to another between runs); the flow benchmark's CPU per flow includes it. Same servers, driver and flow as the flow benchmark above; CPU per request is higher at concurrency 1 than at 16, where the work of several requests shares an event-loop turn and a system call. \`npm run bench -- requestCosts\` runs this section alone.`,
    ],
  };
}
