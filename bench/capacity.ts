/**
 * Capacity in the units operators size by: what one core of the built provider serves of each
 * operation a deployment sees after sign-in (code exchanges, refreshes, introspections, userinfo
 * calls, device-grant polls), beside a complete sign-in, on SQLite, PostgreSQL and Redis; what a
 * resource server running @signet/resource-server checks per core; and memory: idle RSS per
 * replica and what 10,000 live sessions add to the process and to the storage.
 *
 * The provider is started by flow.ts's startServer (pinned to core 0, rate limits off); the
 * load driver (capacity-driver.ts) runs in its own process pinned to core 1 and mints what each
 * operation needs (codes, refresh tokens, access tokens, device codes) before the operation is
 * measured, so the minting's CPU is not counted. CPU per operation is the server process's user +
 * system time (/proc) over the measured run; ops/s per core = 1000 / CPU ms per op.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createResourceServer } from '@signet/resource-server';
import { sql } from '@signet/testkit/postgres';
import { redisCommand } from '@signet/testkit/redis';
import { cpuMs, STORAGE_NAMES, type Storage, startServer, status, stopServers } from './flow.ts';
import type { Check, Section } from './report.ts';
import { percentile } from './stats.ts';

const ROOT = join(import.meta.dirname, '..');
/** Operations per measured run (each after a warm-up run of a tenth as many). */
const OPS = Number(process.env.BENCH_CAPACITY_OPS ?? 1000);
const WARM_OPS = Math.max(50, Math.round(OPS / 10));
/**
 * Introspections per measured run: more than the other operations, since its p99 has a goal and
 * the p99 of a run of a second is decided by the one or two collections that fall in it.
 */
const INTROSPECTIONS = Number(process.env.BENCH_CAPACITY_INTROSPECTIONS ?? 10_000);
/** Complete sign-ins measured per storage: the sign-in's CPU, and the live sessions memory is read over. */
const SIGNINS = Number(process.env.BENCH_CAPACITY_SIGNINS ?? 1000);
/** Complete sign-ins each server runs, unmeasured, before anything is measured. */
const WARMUP = Number(process.env.BENCH_CAPACITY_WARMUP ?? 300);
/** Resource-server checks (in this process) per measured run, and the distinct tokens they cycle through. */
const JWT_OPS = Number(process.env.BENCH_CAPACITY_JWT_OPS ?? 20_000);
const JWT_TOKENS = 200;
const STORAGES = (process.env.BENCH_CAPACITY_STORAGES ?? 'sqlite,postgres,redis').split(',') as Storage[];
/** BENCH_CAPACITY_BARE=0 leaves out the bare oidc-provider's introspection (the baseline of its p99). */
const BARE = process.env.BENCH_CAPACITY_BARE !== '0';
const CONCURRENCY = 16;
const RESOURCE = 'http://127.0.0.1:4998/api';

type Server = Awaited<ReturnType<typeof startServer>>;
type DriverResult = {
  ops: number;
  seconds: number;
  p50: number;
  p99: number;
  failures: number;
  firstFailure?: string;
  answers?: Record<string, number>;
  tokens?: string[];
  latencies: number[];
};
type Measured = {
  opsPerSecond: number;
  cpuMsPerOp: number;
  p50: number;
  p99: number;
  ops: number;
  answers?: Record<string, number>;
  /** The run's own sums, to combine runs (combine). */
  seconds: number;
  cpuMs: number;
  latencies: number[];
};

/** The driver process: one JSON command a line in, one JSON answer a line out; `bare` drives bare-provider.mjs. */
async function startDriver(url: string, mode: 'signet' | 'bare' = 'signet') {
  const child: ChildProcess = spawn(
    'taskset',
    ['-c', '1', 'node', '--conditions=@signet/source', '--import', 'tsx', join(ROOT, 'bench/capacity-driver.ts')],
    {
      cwd: ROOT,
      env: { ...process.env, TARGET: url, CONCURRENCY: String(CONCURRENCY), RESOURCE, MODE: mode },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let errors = '';
  child.stderr?.on('data', (chunk) => {
    errors += chunk;
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const next = async (): Promise<DriverResult> => {
    const line = await lines.next();
    if (line.done) throw new Error(`the capacity driver ended: ${errors}`);
    return JSON.parse(line.value) as DriverResult;
  };
  await next(); // {"ready":true}: its clients are registered
  return {
    async send(command: Record<string, unknown>): Promise<DriverResult> {
      child.stdin?.write(`${JSON.stringify(command)}\n`);
      const result = await next();
      if (result.failures > 0) {
        throw new Error(`capacity driver: ${result.failures} of ${JSON.stringify(command)} failed, e.g. ${result.firstFailure}`);
      }
      return result;
    },
    stop() {
      child.kill('SIGTERM');
    },
  };
}
type Driver = Awaited<ReturnType<typeof startDriver>>;

/** One measured run: the server's CPU read just before the command and just after its answer. */
async function measure(driver: Driver, pid: number, command: Record<string, unknown>): Promise<Measured> {
  const before = cpuMs(pid);
  const result = await driver.send(command);
  const used = cpuMs(pid) - before;
  return {
    opsPerSecond: result.ops / result.seconds,
    cpuMsPerOp: used / result.ops,
    p50: result.p50,
    p99: result.p99,
    ops: result.ops,
    ...(result.answers ? { answers: result.answers } : {}),
    seconds: result.seconds,
    cpuMs: used,
    latencies: result.latencies,
  };
}

/** Several measured runs as one: their operations, seconds and CPU summed, percentiles over every latency. */
function combine(runs: Measured[]): Measured {
  const sum = (pick: (run: Measured) => number) => runs.reduce((total, run) => total + pick(run), 0);
  const latencies = runs.flatMap((run) => run.latencies);
  return {
    opsPerSecond: sum((run) => run.ops) / sum((run) => run.seconds),
    cpuMsPerOp: sum((run) => run.cpuMs) / sum((run) => run.ops),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    ops: sum((run) => run.ops),
    seconds: sum((run) => run.seconds),
    cpuMs: sum((run) => run.cpuMs),
    latencies,
  };
}

/**
 * Code exchanges in batches of CODE_BATCH, each minted just before it is exchanged: a code lives
 * 60 s (deployment/lifetimes.ts), and minting a thousand on a slow host takes longer than that.
 */
const CODE_BATCH = 250;
async function exchanges(driver: Driver, pid: number): Promise<Measured> {
  console.error('capacity: exchange');
  await driver.send({ cmd: 'mint', kind: 'codes', count: WARM_OPS });
  await driver.send({ cmd: 'run', kind: 'exchange', count: WARM_OPS });
  const batches: Measured[] = [];
  for (let done = 0; done < OPS; done += CODE_BATCH) {
    const count = Math.min(CODE_BATCH, OPS - done);
    await driver.send({ cmd: 'mint', kind: 'codes', count });
    batches.push(await measure(driver, pid, { cmd: 'run', kind: 'exchange', count }));
  }
  return combine(batches);
}

/** Bytes the storage holds for one server (SQLite: pages in use; PostgreSQL: its schema's tables with indexes and TOAST; Redis: MEMORY USAGE of its keys). */
async function storageBytes(server: Server, dir: string): Promise<number> {
  if (server.storage === 'sqlite') {
    const { loadDatabase } = await import('../apps/provider/src/storage/sqlite/sqlite-driver.ts');
    const Database = loadDatabase();
    const db = new Database(join(dir, `signet-${new URL(server.url).port}.db`), { readonly: true });
    try {
      const pages =
        (db.pragma('page_count', { simple: true }) as number) - (db.pragma('freelist_count', { simple: true }) as number);
      return pages * (db.pragma('page_size', { simple: true }) as number);
    } finally {
      db.close();
    }
  }
  if (server.storage === 'postgres' && server.schema) {
    const [row] = await sql<{ bytes: string }>(
      server.schema.url,
      `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
      [server.schema.schema],
    );
    return Number(row?.bytes ?? Number.NaN);
  }
  if (server.storage === 'redis' && server.prefix) {
    // The machine's Redis is shared: the server's own keys, not its used_memory.
    const pattern = `${server.prefix.replace(/[*?[\]\\"]/g, '\\$&')}*`;
    const answer = await redisCommand(
      6379,
      `EVAL "local n = 0 for _, k in ipairs(redis.call('KEYS', ARGV[1])) do n = n + (redis.call('MEMORY', 'USAGE', k) or 0) end return n" 0 "${pattern}"`,
      30_000,
    );
    return Number(/^:(\d+)/.exec(answer ?? '')?.[1] ?? Number.NaN);
  }
  return Number.NaN;
}

type Memory = { idleRss: number; rssAfter: number; rssPer10k: number; storagePer10k: number; sessions: number };
type StorageFigures = { signIn: Measured; operations: Record<string, Measured>; memory: Memory; bare?: Measured };

/** Complete sign-ins, measured, with the process's and the storage's growth over them. */
async function signInsAndSessions(driver: Driver, server: Server, dir: string) {
  const pid = server.child.pid as number;
  const rssBefore = status(pid, 'VmRSS');
  const bytesBefore = await storageBytes(server, dir);
  const signIn = await measure(driver, pid, { cmd: 'signins', count: SIGNINS });
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const rssAfter = status(pid, 'VmRSS');
  const memory: Memory = {
    idleRss: server.idleRss,
    rssAfter,
    rssPer10k: ((rssAfter - rssBefore) * 10_000) / SIGNINS,
    storagePer10k: (((await storageBytes(server, dir)) - bytesBefore) * 10_000) / SIGNINS / 2 ** 20,
    sessions: SIGNINS,
  };
  return { signIn, memory };
}

/** A warm-up run of `kind` (a tenth as many), then the measured one (on minted items after the warm-up's, where they are used once). */
async function warmAndMeasure(driver: Driver, pid: number, kind: string, count = OPS) {
  console.error(`capacity: ${kind}`);
  const warm = Math.max(50, Math.round(count / 10));
  await driver.send({ cmd: 'run', kind, count: warm });
  return measure(driver, pid, { cmd: 'run', kind, count, from: warm });
}

/** Every figure of one storage; `withJwts`, given, runs with the server up and JWT access tokens it issued. */
async function measureStorage(
  storage: Storage,
  dir: string,
  withJwts?: (issuer: string, tokens: string[]) => Promise<void>,
): Promise<StorageFigures> {
  const server = await startServer('signet', storage, dir);
  const pid = server.child.pid as number;
  let driver: Driver | undefined;
  try {
    driver = await startDriver(server.url);
    console.error(`capacity: ${STORAGE_NAMES[storage]}: ${WARMUP} sign-ins to warm up, then ${SIGNINS} measured`);
    await driver.send({ cmd: 'signins', count: WARMUP });
    const { signIn, memory } = await signInsAndSessions(driver, server, dir);
    const operations: Record<string, Measured> = {};
    operations.exchange = await exchanges(driver, pid);
    await driver.send({ cmd: 'mint', kind: 'refresh', count: OPS + WARM_OPS });
    operations.introspection = await warmAndMeasure(driver, pid, 'introspection', INTROSPECTIONS);
    operations.userinfo = await warmAndMeasure(driver, pid, 'userinfo');
    operations.refresh = await warmAndMeasure(driver, pid, 'refresh');
    await driver.send({ cmd: 'mint', kind: 'device', count: OPS + WARM_OPS });
    operations['device-poll'] = await warmAndMeasure(driver, pid, 'device-poll');
    operations['jwt-bearer'] = await warmAndMeasure(driver, pid, 'jwt-bearer');
    if (withJwts) await withJwts(server.url, (await driver.send({ cmd: 'mint', kind: 'jwt', count: JWT_TOKENS })).tokens ?? []);
    return { signIn, operations, memory };
  } finally {
    driver?.stop();
    await stopServers([server]);
  }
}

/**
 * The baseline for introspection: the flow benchmark's bare oidc-provider (bare-provider.mjs,
 * its introspection endpoint on) on the same storage, alone on the same core. Before it, what the
 * Signet server did before its introspections, so that as many records live and expire in the
 * storage: the sign-ins, the code exchanges, as many sign-ins as the refresh mint (with their
 * codes exchanged: the access tokens); then the same introspection runs over its own access tokens.
 */
async function bareIntrospection(storage: Storage, dir: string): Promise<Measured> {
  const server = await startServer('bare', storage, dir, { env: { BENCH_BARE_INTROSPECTION: '1' } });
  let driver: Driver | undefined;
  try {
    driver = await startDriver(server.url, 'bare');
    console.error(`capacity: ${STORAGE_NAMES[storage]}: the bare oidc-provider's introspection`);
    const pid = server.child.pid as number;
    await driver.send({ cmd: 'signins', count: WARMUP + SIGNINS });
    await exchanges(driver, pid);
    await driver.send({ cmd: 'mint', kind: 'access', count: OPS + WARM_OPS });
    return await warmAndMeasure(driver, pid, 'introspection', INTROSPECTIONS);
  } finally {
    driver?.stop();
    await stopServers([server]);
  }
}

/** @signet/resource-server checking Signet's JWT access tokens in this process, `CONCURRENCY` at a time. */
async function validateJwts(issuer: string, tokens: string[], cacheSize: number): Promise<Measured> {
  const resourceServer = createResourceServer({ issuer, resource: RESOURCE, verifiedTokenCacheSize: cacheSize });
  await resourceServer.ready(); // discovery and the key set, fetched once and kept
  // Warm-up (every token accepted, the code optimised): ten passes over the tokens.
  for (let pass = 0; pass < 10; pass++) for (const token of tokens) await resourceServer.verifyAccessToken(token);
  const latencies: number[] = [];
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < JWT_OPS) {
        const token = tokens[next++ % tokens.length] as string;
        const t = performance.now();
        await resourceServer.verifyAccessToken(token);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return {
    opsPerSecond: JWT_OPS / seconds,
    cpuMsPerOp: (used.user + used.system) / 1000 / JWT_OPS,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    ops: JWT_OPS,
    seconds,
    cpuMs: (used.user + used.system) / 1000,
    latencies,
  };
}

/**
 * The floor under the resource server's check: node:crypto's RS256 verification of the same
 * tokens' signatures with the issuer's key, imported once, and nothing else (no claims read).
 */
async function verifySignatures(issuer: string, tokens: string[]): Promise<Measured> {
  const { keys } = (await (await fetch(`${issuer}/jwks`)).json()) as { keys: { kid: string }[] };
  const parts = tokens.map((token) => {
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const { kid } = JSON.parse(Buffer.from(header, 'base64url').toString()) as { kid: string };
    const jwk = keys.find((key) => key.kid === kid);
    if (!jwk) throw new Error(`the issuer's key set lacks ${kid}`);
    return {
      data: Buffer.from(`${header}.${payload}`),
      signature: Buffer.from(signature, 'base64url'),
      key: createPublicKey({ key: jwk, format: 'jwk' }),
    };
  });
  const latencies: number[] = [];
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < JWT_OPS; i++) {
    const { data, signature, key } = parts[i % parts.length] as (typeof parts)[number];
    const t = performance.now();
    if (!verify('RSA-SHA256', data, key, signature)) throw new Error('a token signature did not verify');
    latencies.push(performance.now() - t);
  }
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return {
    opsPerSecond: JWT_OPS / seconds,
    cpuMsPerOp: (used.user + used.system) / 1000 / JWT_OPS,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    ops: JWT_OPS,
    seconds,
    cpuMs: (used.user + used.system) / 1000,
    latencies,
  };
}

const AGENT_NOTE =
  'a public client registered with the grant and 64 agents (Ethereum keys) taking turns, each request with an assertion of its own (ES256K, a new `jti`) signed by the driver as an agent signs it (costing the server nothing); the warm-up run is each key’s first assertions (public-key recovery, a new account), the measured run what an agent pays from its second token on: the assertion checked against its known key, the `jti` claimed, an account read, a grant, sign-in record and tokens stored, an ID token signed.';

const OPERATIONS: [string, string][] = [
  ['exchange', 'authorization-code exchange (PKCE, ID token signed)'],
  ['refresh', 'refresh (public client: the refresh token rotates)'],
  ['introspection', 'introspection (opaque access token, client_secret_basic)'],
  ['userinfo', 'userinfo (GET, bearer)'],
  ['device-poll', 'device-grant poll (authorization_pending)'],
  ['jwt-bearer', 'JWT-bearer grant (RFC 7523): a token for an agent’s ES256K assertion, its key seen before'],
];

const row = (what: string, m: Measured) => [
  what,
  m.opsPerSecond.toFixed(0),
  m.cpuMsPerOp.toFixed(3),
  (1000 / m.cpuMsPerOp).toFixed(0),
  `${m.p50.toFixed(2)} / ${m.p99.toFixed(2)}`,
];

function storageChecks(name: string, figures: StorageFigures): Check[] {
  const introspection = figures.operations.introspection as Measured;
  const refresh = figures.operations.refresh as Measured;
  const perCore = 1000 / introspection.cpuMsPerOp;
  const ratio = refresh.cpuMsPerOp / figures.signIn.cpuMsPerOp;
  return [
    {
      name: `${name}: introspections per second per core`,
      value: perCore,
      display: perCore.toFixed(0),
      target: '≥ 1,000',
      pass: perCore >= 1000,
    },
    {
      name: `${name}: introspection p99 at concurrency ${CONCURRENCY}`,
      value: introspection.p99,
      display: `${introspection.p99.toFixed(1)} ms`,
      target: '≤ 20 ms',
      pass: introspection.p99 <= 20,
    },
    ...(figures.bare ? bareChecks(name, introspection, figures.bare) : []),
    {
      name: `${name}: a refresh's CPU / a complete sign-in's (${refresh.cpuMsPerOp.toFixed(2)} / ${figures.signIn.cpuMsPerOp.toFixed(2)} ms)`,
      value: ratio,
      display: `${ratio.toFixed(2)}×`,
      target: '≤ 0.5×',
      pass: ratio <= 0.5,
    },
    agentCheck(name, figures),
  ];
}

/** A token by the JWT bearer grant against a complete sign-in, at concurrency 16 on the same storage and server (the agents' goal, as a deployment runs it). */
function agentCheck(name: string, figures: StorageFigures): Check {
  const agent = figures.operations['jwt-bearer'] as Measured;
  const ratio = agent.cpuMsPerOp / figures.signIn.cpuMsPerOp;
  return {
    name: `${name}: a JWT-bearer token's CPU / a complete sign-in's (${agent.cpuMsPerOp.toFixed(2)} / ${figures.signIn.cpuMsPerOp.toFixed(2)} ms)`,
    value: ratio,
    display: `${ratio.toFixed(2)}×`,
    target: '≤ 0.33×',
    pass: ratio <= 1 / 3,
  };
}

/** Introspection against the bare oidc-provider's on the same storage: the fair form of the p99 goal (docs/performance.md). */
function bareChecks(name: string, signet: Measured, bare: Measured): Check[] {
  const p99 = signet.p99 / bare.p99;
  const cpu = signet.cpuMsPerOp / bare.cpuMsPerOp;
  return [
    {
      name: `${name}: introspection p99, Signet / bare oidc-provider on the same storage (${signet.p99.toFixed(1)} / ${bare.p99.toFixed(1)} ms)`,
      value: p99,
      display: `${p99.toFixed(2)}×`,
      target: '≤ 1.25× (proposed)',
      pass: p99 <= 1.25,
    },
    {
      name: `${name}: introspection CPU, Signet / bare oidc-provider on the same storage (${signet.cpuMsPerOp.toFixed(3)} / ${bare.cpuMsPerOp.toFixed(3)} ms)`,
      value: cpu,
      display: `${cpu.toFixed(2)}×`,
      target: 'measured',
      pass: true,
    },
  ];
}

export async function capacity(): Promise<Section> {
  const dir = mkdtempSync(join(tmpdir(), 'signet-capacity-'));
  const rows: string[][] = [];
  const checks: Check[] = [];
  const memoryRows: string[][] = [];
  const pollAnswers: string[] = [];
  let jwt: { full: Measured; cached: Measured; floor: Measured } | undefined;
  try {
    for (const [i, storage] of STORAGES.entries()) {
      const name = STORAGE_NAMES[storage];
      // The resource server's checks need a running issuer (its keys): measured once, on the first storage.
      const withJwts =
        i === 0
          ? async (issuer: string, tokens: string[]) => {
              jwt = {
                full: await validateJwts(issuer, tokens, 0),
                cached: await validateJwts(issuer, tokens, 1000),
                floor: await verifySignatures(issuer, tokens),
              };
            }
          : undefined;
      const figures = await measureStorage(storage, dir, withJwts);
      if (BARE) figures.bare = await bareIntrospection(storage, dir);
      rows.push(row(`${name}: complete sign-in (authorize, wallet signature, token, userinfo)`, figures.signIn));
      for (const [kind, what] of OPERATIONS) rows.push(row(`${name}: ${what}`, figures.operations[kind] as Measured));
      if (figures.bare) rows.push(row(`${name}: bare oidc-provider, the same introspection`, figures.bare));
      checks.push(...storageChecks(name, figures));
      const { memory } = figures;
      memoryRows.push([
        name,
        memory.idleRss.toFixed(0),
        memory.rssAfter.toFixed(0),
        memory.rssPer10k.toFixed(1),
        Number.isNaN(memory.storagePer10k) ? '– (in the process)' : memory.storagePer10k.toFixed(1),
      ]);
      pollAnswers.push(`${name}: ${JSON.stringify(figures.operations['device-poll']?.answers ?? {})}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (jwt) {
    rows.push(row('resource server (@signet/resource-server, in process): JWT access token, signature checked', jwt.full));
    rows.push(row('resource server: the same token again (verified-token cache)', jwt.cached));
    rows.push(row('floor: node:crypto RS256 signature check alone (same tokens, key imported once)', jwt.floor));
    const perCore = 1000 / jwt.full.cpuMsPerOp;
    checks.push({
      name: 'resource server: JWT access tokens checked per second per core (each signature verified)',
      value: perCore,
      display: perCore.toFixed(0),
      target: '≥ 10,000',
      pass: perCore >= 10_000,
    });
  }
  return {
    title: 'Capacity per core: what one provider core serves, operation by operation',
    table: { head: ['operation', 'ops/s measured', 'CPU ms per op', 'ops/s per core', 'p50 / p99 ms'], rows },
    checks,
    notes: [
      `Each storage: the built provider alone on core 0 (rate limits off), the driver (bench/capacity-driver.ts) on core 1, concurrency ${CONCURRENCY}, after ${WARMUP} unmeasured complete sign-ins. Each operation: ${OPS} measured after ${WARM_OPS} unmeasured (BENCH_CAPACITY_OPS), introspection ${INTROSPECTIONS} after a tenth as many (BENCH_CAPACITY_INTROSPECTIONS: its p99 has a goal, and the p99 of a run of a second is decided by the one or two collections that fall in it); what it needs (codes, refresh tokens, access tokens, device codes) minted beforehand by complete sign-ins or device authorization requests whose CPU is not counted. CPU ms per op: the server process's user + system time (/proc, 10 ms ticks) over the measured run divided by its operations; ops/s per core = 1000 / CPU ms per op, what one core would serve with nothing else on it; ops/s measured is the driver's own rate over the run. Complete sign-ins: ${SIGNINS} (BENCH_CAPACITY_SIGNINS), as the flow benchmark's driver makes them. Codes are minted and exchanged 250 at a time (a code lives 60 s); codes and refresh tokens are used once each (a public client's refresh token rotates on every use, REFRESH_REUSE_GRACE_SECONDS at its default); introspection and userinfo take turns over 64 opaque access tokens; each device code is polled once, its first poll (${pollAnswers.join('; ')}): the same work as any poll, on time or too soon (the pace is read and written per pending poll whatever the answer, device/polling.ts), so a device fleet polling every 5 s costs one of these per device every 5 s. JWT-bearer tokens: ${AGENT_NOTE} The resource server: @signet/resource-server's verifyAccessToken in this process over ${JWT_TOKENS} JWT access tokens Signet issued for ${RESOURCE} (RFC 8707, RFC 9068), the issuer's keys fetched once and kept; CPU from process.cpuUsage(); ${JWT_OPS} checks (BENCH_CAPACITY_JWT_OPS), first with the verified-token cache off (every signature checked), then with it on (the same 200 tokens again); the floor is node:crypto's synchronous RS256 verification of the same signatures, the key imported once, and nothing else (the resource server checks signatures the same way since 2026-12-03, and reads the header and claims besides). The bare oidc-provider's introspection (the flow benchmark's bare-provider.mjs with its introspection endpoint on, the same storage, alone on core 0, after what the Signet server did before its introspections: ${WARMUP + SIGNINS} sign-ins, the code exchanges, ${OPS + WARM_OPS} sign-ins with their codes exchanged as the refresh tokens' mint; the same client_secret_basic client and runs over 64 access tokens of its own): the baseline of the introspection p99, which on one saturated core is mostly the pauses of the process's collector (docs/performance.md); BENCH_CAPACITY_BARE=0 leaves it out. \`npm run bench -- capacity\`; BENCH_CAPACITY_STORAGES (sqlite, postgres, redis, memory) picks the storages.`,
      [
        `| storage | idle RSS per replica MB | RSS after the measured sign-ins MB | RSS growth per 10,000 live sessions MB | storage per 10,000 sessions MB |`,
        '|---|---|---|---|---|',
        ...memoryRows.map((r) => `| ${r.join(' | ')} |`),
      ].join('\n'),
      `Memory: idle RSS as the server is ready (VmRSS); growth per 10,000 sessions: VmRSS one second after ${SIGNINS} complete sign-ins (each a session, grant, tokens and sign-in record) less VmRSS before them (after the warm-up), scaled to 10,000. On SQLite, PostgreSQL and Redis the sessions live in storage, so the process's growth is its heap settling under load, not the sessions; the storage column is what they occupy there (SQLite: database pages in use; PostgreSQL: the schema's tables with indexes and TOAST; Redis: MEMORY USAGE summed over the server's keys), everything a sign-in leaves, living up to a day.`,
    ],
  };
}
