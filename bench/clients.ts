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
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TRACKING_KEY, useKey } from '../apps/provider/src/clients/usage.ts';
import type { Store, Write } from '../apps/provider/src/storage/index.ts';
import { drive, STORAGE_NAMES, type Storage, startServer, status, stopServers } from './flow.ts';
import { openPlace } from './records.ts';
import type { Check, Section } from './report.ts';
import { inTurns } from './turns.ts';

const COUNT = Number(process.env.BENCH_CLIENTS ?? 100_000);
const STORAGES = (process.env.BENCH_RECORD_STORAGES ?? 'sqlite,postgres,redis').split(',') as Storage[];
const FLOWS = Number(process.env.BENCH_FLOWS ?? 1000);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1500);
const CONCURRENCY = 16;
const PREFIX = 'bench-client-';

type Server = Awaited<ReturnType<typeof startServer>>;

/** A provider process on the place's storage, warmed up: its start to ready and its idle memory. */
async function startWarm(storage: Storage, dir: string, place: { url: string; prefix?: string }, clients?: string) {
  const server = await startServer('signet', storage, dir, {
    storageUrl: place.url,
    ...(place.prefix ? { prefix: place.prefix } : {}),
  });
  try {
    await drive('signet', server.url, CONCURRENCY, [server.child.pid as number], '1', WARMUP, undefined, 0, clients);
  } catch (error) {
    await stopServers([server]);
    throw error;
  }
  return server;
}

/** Copies of the one client the driver registered (and its registration access token), each with its own id. */
async function seedClients(from: Store, to: Store): Promise<number> {
  const [clientKey] = (await from.keys('oidc:Client:')).filter((key) => !key.endsWith(':consumed'));
  const [tokenKey] = await from.keys('oidc:RegistrationAccessToken:');
  const client = JSON.parse((await from.get(clientKey as string)) as string) as Record<string, unknown>;
  const token = JSON.parse((await from.get(tokenKey as string)) as string) as Record<string, unknown>;
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
      { op: 'set', key: useKey(id), value: JSON.stringify({ at: Date.now(), by: 'sign-in' }) },
    );
    if (writes.length >= 3000) {
      await to.batch(writes);
      writes = [];
    }
  }
  // The store has been run by a provider before, as one that holds 100,000 clients has: without
  // the usage-tracking record, the first start marks every stored client as used, one write each.
  const tracking = await from.get(TRACKING_KEY);
  if (tracking === undefined) throw new Error('manyClients: the one-client store holds no usage-tracking record to copy');
  writes.push({ op: 'set', key: TRACKING_KEY, value: tracking });
  await to.batch(writes);
  return (performance.now() - t) / 1000;
}

/**
 * One storage: a provider on a store with one client and one on a store with COUNT, both up,
 * measured in turns (turns.ts); each one's start and memory from its own process.
 */
async function measureStorage(storage: Storage, rows: string[][], checks: Check[]) {
  const dir = mkdtempSync(join(tmpdir(), 'signet-clients-'));
  const places = { one: await openPlace(storage, dir, 'reference'), many: await openPlace(storage, dir, 'records') };
  const name = STORAGE_NAMES[storage];
  const servers: Server[] = [];
  try {
    // One client: the driver registers its own in each run.
    const one = await startWarm(storage, dir, places.one);
    servers.push(one);
    const seedSeconds = await seedClients(places.one.store, places.many.store);
    const many = await startWarm(storage, dir, places.many, `${PREFIX}${COUNT}`);
    servers.push(many);
    const turns = await inTurns(one, many, { flows: FLOWS, rounds: REPEATS, clients: { subject: `${PREFIX}${COUNT}` } });
    const peak = { one: status(one.child.pid as number, 'VmHWM'), many: status(many.child.pid as number, 'VmHWM') };
    for (const [label, server, side, peakRss] of [
      ['1 client', one, turns.reference, peak.one],
      [`${COUNT.toLocaleString('en')} clients, each sign-in to one at random`, many, turns.subject, peak.many],
    ] as const) {
      rows.push([
        `${name}, ${label}`,
        server.readyMs.toFixed(0),
        server.idleRss.toFixed(0),
        peakRss.toFixed(0),
        side.flowsPerSecond.toFixed(0),
        side.p99.toFixed(0),
        side.cpuMsPerFlow.toFixed(2),
      ]);
    }
    const { ratio } = turns;
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
        value: ratio.flowsPerSecond,
        display: `${ratio.flowsPerSecond.toFixed(2)}× (CPU per flow ${ratio.cpuMsPerFlow.toFixed(2)}×, with idle turns ${ratio.windowCpuMsPerFlow.toFixed(2)}×)`,
        target: '≥ 0.90×',
        pass: ratio.flowsPerSecond >= 0.9,
      },
      {
        name: `${name}: peak RSS with ${COUNT.toLocaleString('en')} clients − with 1`,
        value: peak.many - peak.one,
        display: `${(peak.many - peak.one).toFixed(0)} MB (${peak.many.toFixed(0)} against ${peak.one.toFixed(0)})`,
        target: '≤ 30 MB (every cache bounded)',
        pass: peak.many - peak.one <= 30,
      },
    );
    rows.push([`${name}: ${COUNT.toLocaleString('en')} clients written in ${seedSeconds.toFixed(0)} s`, '', '', '', '', '', '']);
  } finally {
    await stopServers(servers);
    await Promise.all([places.one.drop(), places.many.drop()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function manyClients(): Promise<Section> {
  const rows: string[][] = [];
  const checks: Check[] = [];
  for (const storage of STORAGES) await measureStorage(storage, rows, checks);
  return {
    title: `${COUNT.toLocaleString('en')} registered clients: start, memory, sign-ins`,
    table: {
      head: ['storage, clients', 'spawn to ready ms', 'idle RSS MB', 'peak RSS MB', 'flows/s', 'p99 ms', 'CPU ms/flow'],
      rows,
    },
    checks,
    notes: [
      `Each configuration is a provider process of its own (built JavaScript, server on core 0, driver on core 1), the two up together: start measured from spawning it to its first 200 on /health/ready; ${WARMUP} warm-up flows each, then ${REPEATS} rounds in which each runs ${FLOWS} flows alone at concurrency ${CONCURRENCY}, the order swapped every round (figures: medians; the ratio: the median of the ratios within a round; until 2026-12-03 the two were measured one after the other, and the host's drift between them moved the ratio); peak RSS after them. With ${COUNT.toLocaleString('en')} clients every flow signs in to one picked at random, so the client-object cache (1,000), Redis's tracked reads (10,000) and the used-client memory (10,000) are always full and mostly miss. \`npm run bench -- manyClients\`; BENCH_CLIENTS changes the count.`,
    ],
  };
}
