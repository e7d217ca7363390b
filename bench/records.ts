/**
 * What a sign-in costs as the stored work grows (performance round 3): the built provider on
 * SQLite, PostgreSQL and Redis, measured on an empty store, then with 100,000 and 1,000,000 live
 * records, then while expiry removes records as fast as sign-ins add them; and the bytes a
 * sign-in leaves in each storage.
 *
 * The records are copies of the very records the provider wrote for the warm-up's sign-ins
 * (a session and its uid lookup, a grant with its index, an access token, a refresh token, an
 * authorization code and an interaction: every model a sign-in leaves), each with ids of its own,
 * written through the storage's own Store.batch in the layout the provider reads (oidc:<Model>:<id>).
 * Server on core 0, driver on core 1, as in the flow benchmark (flow.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresSchema } from '@signet/testkit/postgres';
import type { Store, Write } from '../apps/provider/src/storage/index.ts';
import { drive, STORAGE_NAMES, type Storage, startServer, stopServers } from './flow.ts';
import type { Check, Section } from './report.ts';
import { type InTurns, inTurns } from './turns.ts';

const LEVELS = (process.env.BENCH_RECORD_LEVELS ?? '0,100000,1000000').split(',').map(Number);
const STORAGES = (process.env.BENCH_RECORD_STORAGES ?? 'sqlite,postgres,redis').split(',') as Storage[];
const FLOWS = Number(process.env.BENCH_FLOWS ?? 1000);
/** Rounds per level (each server one run alone in each). */
const ROUNDS = Number(process.env.BENCH_REPEATS ?? 3);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1500);
/** How long the churn measurement runs, in seconds: longer than the SQLite and PostgreSQL sweeps' minute. */
const CHURN_SECONDS = Number(process.env.BENCH_CHURN_SECONDS ?? 90);
const CONCURRENCY = 16;
/** The models a sign-in leaves in storage, seeded in equal numbers. */
const MODELS = ['Session', 'Grant', 'AccessToken', 'RefreshToken', 'AuthorizationCode', 'Interaction'] as const;
type Model = (typeof MODELS)[number];
const DAY = 24 * 3600;

/**
 * The benchmark's own connection to the storage (seeding, sizes) never sweeps: the provider
 * under test does, and a second sweeper in this process would take the write lock (SQLite) and
 * a core from the driver at the same moments.
 */
const NO_SWEEP = 2 ** 31 - 1;

/** Where one storage's records live for the benchmark, and how big they are. */
type Place = {
  storage: Storage;
  url: string;
  prefix?: string;
  store: Store;
  /** Bytes the storage holds for Signet (SQLite: the database's pages in use; PostgreSQL: tables, indexes and TOAST; Redis: the server's used_memory). */
  size(): Promise<number>;
  /**
   * After seeding, what a store that has held its records for months has long since done, so
   * that the measurement is of sign-ins against that many records and not of the bulk load's
   * aftermath (PostgreSQL: the checkpoint writing the seeded pages back and autovacuum's first
   * pass over them ran in the measured flows and took the provider's cores: 0.84–0.91× at a
   * million records without this). Says what it did.
   */
  settle(): Promise<string>;
  drop(): Promise<void>;
};

/**
 * `slot` keeps two places of one storage apart (their own SQLite file, PostgreSQL schema, or
 * Redis database: 9 for records, 10 for the reference).
 */
export async function openPlace(storage: Storage, dir: string, slot: 'records' | 'reference' = 'records'): Promise<Place> {
  switch (storage) {
    case 'sqlite': {
      const path = join(dir, `${slot}.db`);
      const { createSqliteStore } = await import('../apps/provider/src/storage/sqlite/sqlite.ts');
      const { loadDatabase } = await import('../apps/provider/src/storage/sqlite/sqlite-driver.ts');
      const store = createSqliteStore(path, { sweepIntervalMs: NO_SWEEP });
      const Database = loadDatabase();
      return {
        storage,
        url: `sqlite:${path}`,
        store,
        async size() {
          const db = new Database(path, { readonly: true });
          try {
            const pages =
              (db.pragma('page_count', { simple: true }) as number) - (db.pragma('freelist_count', { simple: true }) as number);
            return pages * (db.pragma('page_size', { simple: true }) as number);
          } finally {
            db.close();
          }
        },
        async settle() {
          const db = new Database(path);
          try {
            db.pragma('wal_checkpoint(TRUNCATE)');
          } finally {
            db.close();
          }
          return 'SQLite: the WAL checkpointed into the database (wal_checkpoint(TRUNCATE))';
        },
        drop: () => store.close(),
      };
    }
    case 'postgres': {
      const schema = postgresSchema();
      const { createPostgresStore } = await import('../apps/provider/src/storage/postgres/postgres.ts');
      const { sql } = await import('@signet/testkit/postgres');
      const store = await createPostgresStore(schema.url, { sweepIntervalMs: NO_SWEEP });
      return {
        storage,
        url: schema.url,
        store,
        async size() {
          const [row] = await sql<{ bytes: string }>(
            schema.url,
            `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes FROM pg_class c
             JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
            [schema.schema],
          );
          return Number(row?.bytes ?? 0);
        },
        async settle() {
          const tables = ['kv', 'sets', 'set_members'].map((table) => `"${schema.schema}".${table}`).join(', ');
          await sql(schema.url, `VACUUM (ANALYZE) ${tables}`);
          await sql(schema.url, 'CHECKPOINT').catch((error: Error) => {
            throw new Error(
              `storedRecords settles PostgreSQL with CHECKPOINT, which needs a superuser or the pg_checkpoint role (POSTGRES_URL's user): ${error.message}`,
            );
          });
          return "PostgreSQL: VACUUM (ANALYZE) of the schema's tables, then CHECKPOINT (as autovacuum and the checkpointer would have by then)";
        },
        async drop() {
          await store.close();
          await schema.drop();
        },
      };
    }
    case 'redis': {
      // A database of its own on the machine's Redis, emptied before and after. used_memory is the
      // server's: read around the seeded server's own runs, while the reference's server is idle.
      const url = `redis://127.0.0.1:6379/${slot === 'records' ? 9 : 10}`;
      const prefix = `bench-${slot}:`;
      const { createRedisStore } = await import('../apps/provider/src/storage/redis/redis.ts');
      const store = createRedisStore(url, { prefix });
      const client = store.client as import('ioredis').Redis;
      // ASYNC: a million keys take Redis seconds to free, past the store's command timeout.
      await client.flushdb('ASYNC');
      return {
        storage,
        url,
        prefix,
        store,
        async size() {
          return Number(/used_memory:(\d+)/.exec(await client.info('memory'))?.[1] ?? Number.NaN);
        },
        async settle() {
          return 'Redis: nothing (no background work of its own to wait for)';
        },
        async drop() {
          await client.flushdb('ASYNC');
          await store.close();
        },
      };
    }
    default:
      throw new Error(`storedRecords: no ${storage} storage here (sqlite, postgres, redis)`);
  }
}

type Template = Record<string, unknown>;

/**
 * A sign-in begun and left (as people leave them): its interaction stays stored until it
 * expires, and is the interaction record copied (finished sign-ins delete theirs).
 */
async function abandonSignIn(url: string): Promise<void> {
  const redirect = 'http://127.0.0.1:4999/callback';
  const registered = await fetch(`${url}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [redirect], token_endpoint_auth_method: 'none' }),
  });
  const { client_id } = (await registered.json()) as { client_id: string };
  const query = new URLSearchParams({
    client_id,
    redirect_uri: redirect,
    response_type: 'code',
    scope: 'openid',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  });
  const response = await fetch(`${url}/auth?${query}`, { redirect: 'manual' });
  if (response.status !== 303 && response.status !== 302) throw new Error(`storedRecords: /auth answered ${response.status}`);
}

/** One record of each model the warm-up's sign-ins left, to copy. */
async function templatesOf(store: Store): Promise<Record<Model, Template>> {
  const found: Partial<Record<Model, Template>> = {};
  for (const model of MODELS) {
    const prefix = `oidc:${model}:`;
    // The records themselves, not the layout's other keys (uid and user-code lookups, consumed markers).
    const ids = (await store.keys(prefix)).filter((key) => !/^(uid|userCode):|:consumed$/.test(key.slice(prefix.length)));
    for (const key of ids.slice(0, 20)) {
      const value = await store.get(key);
      if (value !== undefined) {
        found[model] = JSON.parse(value) as Template;
        break;
      }
    }
  }
  // The benchmark's flows ask for `openid` only: no refresh token. One is an access token's
  // payload with a refresh token's fields (what oidc-provider writes for offline_access).
  if (!found.RefreshToken && found.AccessToken) {
    found.RefreshToken = {
      ...found.AccessToken,
      kind: 'RefreshToken',
      rotations: 0,
      iiat: found.AccessToken.iat,
      exp: undefined,
    };
  }
  const missing = MODELS.filter((model) => !found[model]);
  if (missing.length > 0) throw new Error(`storedRecords: the warm-up left no ${missing.join(', ')} record to copy`);
  return found as Record<Model, Template>;
}

let serial = 0;
const freshId = () => `seed${(serial++).toString(36)}x${Math.random().toString(36).slice(2, 10)}`;

/**
 * Writes `count` records (rounded up to whole sign-ins: one of each model, the session's uid
 * lookup and the grant's index) through Store.batch, each living `ttl()` seconds.
 */
async function seed(store: Store, templates: Record<Model, Template>, count: number, ttl: () => number): Promise<number> {
  const signIns = Math.ceil(count / MODELS.length);
  let writes: Write[] = [];
  for (let i = 0; i < signIns; i++) {
    const seconds = ttl();
    const grantId = freshId();
    const sessionId = freshId();
    const uid = freshId();
    const ids = Object.fromEntries(
      MODELS.map((model) => [model, model === 'Grant' ? grantId : model === 'Session' ? sessionId : freshId()]),
    );
    for (const model of MODELS) {
      const payload: Template = { ...templates[model], jti: ids[model] };
      if ('grantId' in payload) payload.grantId = grantId;
      if (model === 'Session') payload.uid = uid;
      if (typeof payload.exp === 'number') payload.exp = Math.floor(Date.now() / 1000) + seconds;
      writes.push({ op: 'set', key: `oidc:${model}:${ids[model]}`, value: JSON.stringify(payload), ttlSeconds: seconds });
    }
    writes.push({ op: 'set', key: `oidc:Session:uid:${uid}`, value: sessionId, ttlSeconds: seconds });
    for (const model of ['AccessToken', 'RefreshToken', 'AuthorizationCode'] as const) {
      writes.push({ op: 'addToSet', key: `oidc:grant:${grantId}`, member: `oidc:${model}:${ids[model]}`, ttlSeconds: seconds });
    }
    if (writes.length >= 3000) {
      await store.batch(writes);
      writes = [];
    }
  }
  if (writes.length > 0) await store.batch(writes);
  return signIns * MODELS.length;
}

const MB = 1024 * 1024;
type Server = Awaited<ReturnType<typeof startServer>>;
/** The table's columns after the first, for a level measured in turns. */
function levelColumns(turns: InTurns, storageBytes: number, bytesPerSignIn: number, seeding: string): string[] {
  return [
    turns.subject.flowsPerSecond.toFixed(0),
    `${turns.ratio.flowsPerSecond.toFixed(2)}×`,
    turns.subject.p99.toFixed(0),
    `${turns.ratio.p99.toFixed(2)}×`,
    turns.subject.cpuMsPerFlow.toFixed(2),
    `${turns.ratio.windowCpuMsPerFlow.toFixed(2)}×`,
    (storageBytes / MB).toFixed(0),
    Number.isNaN(bytesPerSignIn) ? '–' : bytesPerSignIn.toFixed(0),
    seeding,
  ];
}

/** The seeded server against the reference in turns, with the seeded storage's growth over its own runs. */
async function levelInTurns(reference: Server, seeded: Server, place: Place, seconds?: number) {
  let grew = 0;
  let before = 0;
  const turns = await inTurns(reference, seeded, {
    flows: FLOWS,
    rounds: seconds === undefined ? ROUNDS : 2,
    ...(seconds === undefined ? {} : { seconds }),
    aroundSubject: {
      before: async () => {
        before = await place.size();
      },
      after: async () => {
        grew += (await place.size()) - before;
      },
    },
  });
  return { turns, bytesPerSignIn: grew / turns.subject.flows };
}

const check = (name: string, turns: InTurns): Check => ({
  name,
  value: turns.ratio.flowsPerSecond,
  display: `${turns.ratio.flowsPerSecond.toFixed(2)}× (p99 ${turns.ratio.p99.toFixed(2)}×, CPU with idle turns ${turns.ratio.windowCpuMsPerFlow.toFixed(2)}×)`,
  target: '≥ 0.90×',
  pass: turns.ratio.flowsPerSecond >= 0.9,
});

/**
 * Churn: records that expire one after another, as many each second as the empty store's
 * sign-ins wrote (records per sign-in × flows/s), over CHURN_SECONDS: the sweeps run while
 * sign-ins go on, and the rounds go on until the time is up.
 */
async function measureChurn(options: {
  servers: { reference: Server; seeded: Server };
  place: Place;
  templates: Awaited<ReturnType<typeof templatesOf>>;
  emptyFlowsPerSecond: number;
  storage: Storage;
  seeded: number;
}): Promise<{ row: string[]; check: Check; note: string }> {
  const { servers, place, templates, storage, seeded } = options;
  const name = STORAGE_NAMES[storage];
  const perSecond = Math.round(options.emptyFlowsPerSecond * MODELS.length);
  const start = Date.now();
  const churnCount = perSecond * CHURN_SECONDS;
  await seed(
    place.store,
    templates,
    churnCount,
    () => 2 + Math.floor((Date.now() - start) / 1000 + Math.random() * CHURN_SECONDS),
  );
  const before = await place.size();
  const { turns } = await levelInTurns(servers.reference, servers.seeded, place, CHURN_SECONDS);
  const after = await place.size();
  return {
    row: [
      `${name}, ${seeded.toLocaleString('en')} live + ${churnCount.toLocaleString('en')} expiring over ${CHURN_SECONDS} s`,
      ...levelColumns(turns, before, Number.NaN, '–'),
    ],
    check: check(`${name}: flows/s while ${perSecond.toLocaleString('en')} records/s expire / empty store`, turns),
    note: `${name} churn: ${turns.rounds} rounds in ${turns.seconds.toFixed(0)} s while ${churnCount.toLocaleString('en')} records expired; storage ${(before / MB).toFixed(0)} MB before, ${(after / MB).toFixed(0)} MB after (expired records removed by ${storage === 'redis' ? "Redis's own expiry" : 'the provider’s sweep, every minute'}).`,
  };
}

/** Two servers on two places of one storage, warmed up: the reference stays empty, the other is seeded. */
async function startPair(storage: Storage, dir: string) {
  const places = { reference: await openPlace(storage, dir, 'reference'), seeded: await openPlace(storage, dir, 'records') };
  const servers: Server[] = [];
  try {
    for (const place of [places.reference, places.seeded]) {
      const server = await startServer('signet', storage, dir, {
        storageUrl: place.url,
        ...(place.prefix ? { prefix: place.prefix } : {}),
      });
      servers.push(server);
      await drive('signet', server.url, CONCURRENCY, [server.child.pid as number], '1', WARMUP);
    }
  } catch (error) {
    await stopServers(servers);
    await Promise.all([places.reference.drop(), places.seeded.drop()]);
    throw error;
  }
  const [reference, seeded] = servers as [Server, Server];
  return {
    places,
    servers: { reference, seeded },
    async stop() {
      await stopServers(servers);
      await Promise.all([places.reference.drop(), places.seeded.drop()]);
    },
  };
}

/** One storage's levels and churn: rows, checks and notes. */
async function measureStorage(storage: Storage, rows: string[][], checks: Check[], notes: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'signet-records-'));
  const name = STORAGE_NAMES[storage];
  try {
    const pair = await startPair(storage, dir);
    const { servers } = pair;
    const place = pair.places.seeded;
    try {
      await abandonSignIn(servers.seeded.url);
      const templates = await templatesOf(place.store);
      let seeded = 0;
      let emptyFlowsPerSecond = Number.NaN;
      let settled: string | undefined;
      for (const level of LEVELS) {
        const t = performance.now();
        let seedSeconds = 0;
        if (level > seeded) {
          seeded += await seed(place.store, templates, level - seeded, () => DAY);
          seedSeconds = (performance.now() - t) / 1000;
          settled = await place.settle();
        }
        const storageBytes = await place.size();
        const { turns, bytesPerSignIn } = await levelInTurns(servers.reference, servers.seeded, place);
        if (Number.isNaN(emptyFlowsPerSecond)) emptyFlowsPerSecond = turns.reference.flowsPerSecond;
        const seeding = level > 0 ? `${seedSeconds.toFixed(0)} s` : '–';
        rows.push([
          `${name}, ${level.toLocaleString('en')} records`,
          ...levelColumns(turns, storageBytes, bytesPerSignIn, seeding),
        ]);
        if (level > 0) checks.push(check(`${name}: flows/s with ${level.toLocaleString('en')} records / empty store`, turns));
        if (level === 0) {
          notes.push(
            `${name}: two empty stores read ${turns.ratio.flowsPerSecond.toFixed(2)}× flows/s (the method's own spread). A sign-in leaves ${bytesPerSignIn.toFixed(0)} bytes in storage (growth over ${turns.subject.flows} sign-ins on the empty store). Every record a sign-in leaves expires within a day (session, grant and refresh token 24 h, access token 1 h, interaction 10 min + 10, code 1 min), so a day's sign-ins are the most the store holds: at one sign-in a second, ${((bytesPerSignIn * 86_400) / MB).toFixed(0)} MB.`,
          );
        }
      }
      const churn = await measureChurn({ servers, place, templates, emptyFlowsPerSecond, storage, seeded });
      rows.push(churn.row);
      checks.push(churn.check);
      if (settled) notes.push(`${name}, after seeding and before measuring: ${settled}.`);
      notes.push(churn.note);
    } finally {
      await pair.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    // Each storage's rows as soon as it is done: a later storage's failure loses nothing measured.
    console.error(`storedRecords so far:\n${rows.map((row) => row.join(' | ')).join('\n')}`);
  }
}

export async function storedRecords(): Promise<Section> {
  const rows: string[][] = [];
  const checks: Check[] = [];
  const notes: string[] = [];
  for (const storage of STORAGES) await measureStorage(storage, rows, checks, notes);
  notes.push(
    `Records: copies of the records the warm-up's sign-ins left (${MODELS.join(', ')}; each sign-in's six with its session uid lookup and grant index), in equal numbers, living a day; written through the storage's own batch. Two provider processes on each storage, both up: one on a store that stays empty but for what its own sign-ins leave (the reference), one on the store seeded level by level; each ran ${WARMUP} warm-up flows. Each level: ${ROUNDS} rounds, each server running ${FLOWS} flows alone at concurrency ${CONCURRENCY} in each round, the order swapped every round; "vs empty store" is the median over rounds of the ratio within a round (until 2026-12-03 the levels were measured in phases of their own, minutes apart, and a change in the host's speed between phases moved the ratio by ±0.2). "CPU with idle turns": each process's CPU over the level's whole window, its idle turns included (a sweep that ran in the other's turn), over every flow it served, seeded against reference. Server on core 0, driver on core 1. Churn: records expiring evenly over ${CHURN_SECONDS} s, as many a second as the empty store's sign-ins write; rounds until the time is up. Bytes per sign-in: the seeded storage's growth over its own runs (SQLite: pages in use; PostgreSQL: tables, indexes and TOAST; Redis: used_memory, the server's). \`npm run bench -- storedRecords\`; BENCH_RECORD_LEVELS, BENCH_RECORD_STORAGES, BENCH_CHURN_SECONDS, BENCH_REPEATS (rounds) change it.`,
  );
  return {
    title: 'Stored records: sign-ins as the store grows',
    table: {
      head: [
        'storage, records',
        'flows/s',
        'vs empty store',
        'p99 ms',
        'p99 vs empty',
        'CPU ms/flow',
        'CPU with idle turns vs empty',
        'storage MB',
        'bytes per sign-in',
        'seeding',
      ],
      rows,
    },
    checks,
    notes,
  };
}
