/**
 * 100,000 registered clients (performance round 3): the built provider's start (spawn to its
 * first 200 on /health/ready), its resident memory and its sign-ins per second with one client
 * stored and with 100,000, on SQLite, PostgreSQL and Redis. With 100,000, every sign-in goes to a
 * client picked at random among them, so no per-client cache holds them all: what a bound on
 * each cache costs shows here, and the memory it saves.
 *
 * The clients are copies of the one the load driver registers (its metadata and its
 * registration access token), each with its own id, and each marked used as the provider marks
 * a client at its first sign-in; written through the storage's own Store.batch.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Write } from '../apps/provider/src/storage/index.ts';
import { drive, STORAGE_NAMES, type Storage, startServer, stopServers } from './flow.ts';
import { openPlace } from './records.ts';
import type { Check, Section } from './report.ts';
import { median } from './stats.ts';

const COUNT = Number(process.env.BENCH_CLIENTS ?? 100_000);
const STORAGES = (process.env.BENCH_RECORD_STORAGES ?? 'sqlite,postgres,redis').split(',') as Storage[];
const FLOWS = Number(process.env.BENCH_FLOWS ?? 1000);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1500);
const CONCURRENCY = 16;
const PREFIX = 'bench-client-';

const rss = (pid: number, field: 'VmRSS' | 'VmHWM') =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) / 1024;

type Figures = { readyMs: number; idleRss: number; peakRss: number; flowsPerSecond: number; p99: number; cpuMsPerFlow: number };

/** A fresh provider process on the place's storage: its start, its memory, and its sign-ins. */
async function measureProcess(
  storage: Storage,
  dir: string,
  place: { url: string; prefix?: string },
  clients?: string,
): Promise<Figures> {
  const server = await startServer('signet', storage, dir, {
    storageUrl: place.url,
    ...(place.prefix ? { prefix: place.prefix } : {}),
  });
  try {
    const pid = server.child.pid as number;
    await drive('signet', server.url, CONCURRENCY, [pid], '1', WARMUP, undefined, 0, clients);
    const runs = [];
    for (let i = 0; i < REPEATS; i++)
      runs.push(await drive('signet', server.url, CONCURRENCY, [pid], '1', FLOWS, undefined, 0, clients));
    return {
      readyMs: server.readyMs,
      idleRss: server.idleRss,
      peakRss: rss(pid, 'VmHWM'),
      flowsPerSecond: median(runs.map((r) => r.flowsPerSecond)),
      p99: median(runs.map((r) => r.p99)),
      cpuMsPerFlow: median(runs.map((r) => r.cpuMsPerFlow)),
    };
  } finally {
    await stopServers([server]);
  }
}

export async function manyClients(): Promise<Section> {
  const rows: string[][] = [];
  const checks: Check[] = [];
  for (const storage of STORAGES) {
    const dir = mkdtempSync(join(tmpdir(), 'signet-clients-'));
    const place = await openPlace(storage, dir);
    const name = STORAGE_NAMES[storage];
    try {
      // One client: the driver registers its own in each run.
      const one = await measureProcess(storage, dir, place);
      const [clientKey] = (await place.store.keys('oidc:Client:')).filter((key) => !key.endsWith(':consumed'));
      const [tokenKey] = await place.store.keys('oidc:RegistrationAccessToken:');
      const client = JSON.parse((await place.store.get(clientKey as string)) as string) as Record<string, unknown>;
      const token = JSON.parse((await place.store.get(tokenKey as string)) as string) as Record<string, unknown>;
      const t = performance.now();
      let writes: Write[] = [];
      for (let i = 0; i < COUNT; i++) {
        const id = `${PREFIX}${i}`;
        const tokenId = `${id}-rat`;
        writes.push(
          { op: 'set', key: `oidc:Client:${id}`, value: JSON.stringify({ ...client, client_id: id }) },
          {
            op: 'set',
            key: `oidc:RegistrationAccessToken:${tokenId}`,
            value: JSON.stringify({ ...token, jti: tokenId, clientId: id }),
          },
          { op: 'set', key: `client:used:${id}`, value: JSON.stringify({ at: Date.now(), by: 'sign-in' }) },
        );
        if (writes.length >= 3000) {
          await place.store.batch(writes);
          writes = [];
        }
      }
      if (writes.length > 0) await place.store.batch(writes);
      const seedSeconds = (performance.now() - t) / 1000;
      const many = await measureProcess(storage, dir, place, `${PREFIX}${COUNT}`);
      for (const [label, f] of [
        ['1 client', one],
        [`${COUNT.toLocaleString('en')} clients, each sign-in to one at random`, many],
      ] as const) {
        rows.push([
          `${name}, ${label}`,
          f.readyMs.toFixed(0),
          f.idleRss.toFixed(0),
          f.peakRss.toFixed(0),
          f.flowsPerSecond.toFixed(0),
          f.p99.toFixed(0),
          f.cpuMsPerFlow.toFixed(2),
        ]);
      }
      const ratio = many.flowsPerSecond / one.flowsPerSecond;
      checks.push(
        {
          name: `${name}: start to ready with ${COUNT.toLocaleString('en')} clients`,
          value: many.readyMs,
          display: `${(many.readyMs / 1000).toFixed(2)} s (1 client: ${(one.readyMs / 1000).toFixed(2)} s)`,
          target: '≤ 2 s',
          pass: many.readyMs <= 2000,
        },
        {
          name: `${name}: flows/s with ${COUNT.toLocaleString('en')} clients / 1 client`,
          value: ratio,
          display: `${ratio.toFixed(2)}× (CPU per flow ${(many.cpuMsPerFlow / one.cpuMsPerFlow).toFixed(2)}×)`,
          target: '≥ 0.90×',
          pass: ratio >= 0.9,
        },
        {
          name: `${name}: peak RSS with ${COUNT.toLocaleString('en')} clients − with 1`,
          value: many.peakRss - one.peakRss,
          display: `${(many.peakRss - one.peakRss).toFixed(0)} MB (${many.peakRss.toFixed(0)} against ${one.peakRss.toFixed(0)})`,
          target: '≤ 30 MB (every cache bounded)',
          pass: many.peakRss - one.peakRss <= 30,
        },
      );
      rows.push([
        `${name}: ${COUNT.toLocaleString('en')} clients written in ${seedSeconds.toFixed(0)} s`,
        '',
        '',
        '',
        '',
        '',
        '',
      ]);
    } finally {
      await place.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return {
    title: `${COUNT.toLocaleString('en')} registered clients: start, memory, sign-ins`,
    table: {
      head: ['storage, clients', 'spawn to ready ms', 'idle RSS MB', 'peak RSS MB', 'flows/s', 'p99 ms', 'CPU ms/flow'],
      rows,
    },
    checks,
    notes: [
      `Each configuration is a fresh provider process (built JavaScript, server on core 0, driver on core 1): start measured from spawning it to its first 200 on /health/ready; ${WARMUP} warm-up flows, then ${REPEATS} runs of ${FLOWS} at concurrency ${CONCURRENCY} (medians); peak RSS after them. With ${COUNT.toLocaleString('en')} clients every flow signs in to one picked at random, so the client-object cache (1,000), Redis's tracked reads (10,000) and the used-client memory (10,000) are always full and mostly miss. \`npm run bench -- manyClients\`; BENCH_CLIENTS changes the count.`,
    ],
  };
}
