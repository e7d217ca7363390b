/**
 * What adding a member to a set costs as the set grows (performance round 4): the grant
 * indexes are sets (a grant's tokens, a wallet's grants of the day), and an agent signing in
 * every few seconds gives its wallet's set thousands of members a day. Each storage's own Store,
 * in this process: members added one by one (each awaited: its own commit on SQLite and
 * PostgreSQL, its own command on Redis) to a set of 10 members and to one of 5,000, taking
 * turns in chunks so that the host's noise falls on both. Before SQLite kept a set's expiry in
 * one row, each add rewrote every member's row: 85 µs at 10 members, 3.8 ms at 5,000.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store, Write } from '../apps/provider/src/storage/index.ts';
import type { Storage } from './flow.ts';
import { openPlace } from './records.ts';
import type { Check, Section } from './report.ts';
import { median } from './stats.ts';

const SMALL = 10;
const LARGE = Number(process.env.BENCH_SET_SIZE ?? 5000);
const ADDS = 600;
const CHUNK = 50;
const TTL = 24 * 3600;
const STORAGES: Storage[] = ['sqlite', 'postgres', 'redis'];

async function seed(store: Store, key: string, members: number) {
  for (let from = 0; from < members; from += 500) {
    const writes: Write[] = [];
    for (let i = from; i < Math.min(members, from + 500); i++)
      writes.push({ op: 'addToSet', key, member: `seed-${i}`, ttlSeconds: TTL });
    await store.batch(writes);
  }
}

/**
 * Redis's own time in the add's script (INFO commandstats: EVALSHA's total µs), read before and
 * after: on Redis the wall time is mostly the round trip, and what a set's size could change is
 * the server's work. Nothing else may run scripts on the server meanwhile (none does in a bench run).
 */
async function redisScriptMicros(store: Store): Promise<number> {
  const client = (store as Store & { client: import('ioredis').Redis }).client;
  const usec = /cmdstat_evalsha:calls=\d+,usec=(\d+)/.exec(await client.info('commandstats'))?.[1];
  if (usec === undefined) throw new Error('setGrowth: Redis INFO commandstats shows no EVALSHA (the add runs as a script)');
  return Number(usec);
}

/** µs per add, one chunk at a time (each add awaited): wall time, and on Redis the server's. */
async function chunk(store: Store, key: string, start: number, redis: boolean): Promise<[number, number]> {
  const before = redis ? await redisScriptMicros(store) : 0;
  const t = performance.now();
  for (let i = start; i < start + CHUNK; i++) await store.addToSet(key, `added-${i}`, TTL);
  const wall = ((performance.now() - t) * 1000) / CHUNK;
  return [wall, redis ? ((await redisScriptMicros(store)) - before) / CHUNK : Number.NaN];
}

export async function setGrowth(): Promise<Section> {
  const dir = mkdtempSync(join(tmpdir(), 'signet-bench-sets-'));
  const rows: string[][] = [];
  const checks: Check[] = [];
  try {
    for (const storage of STORAGES) {
      const place = await openPlace(storage, dir);
      try {
        const small = `bench-set:small:${storage}`;
        const large = `bench-set:large:${storage}`;
        await place.store.delete(small, large);
        await seed(place.store, small, SMALL);
        await seed(place.store, large, LARGE);
        const redis = storage === 'redis';
        const times = { small: [] as number[], large: [] as number[], smallServer: [] as number[], largeServer: [] as number[] };
        for (let start = 0; start < ADDS; start += CHUNK) {
          const [smallWall, smallServer] = await chunk(place.store, small, start, redis);
          const [largeWall, largeServer] = await chunk(place.store, large, start, redis);
          times.small.push(smallWall);
          times.large.push(largeWall);
          times.smallServer.push(smallServer);
          times.largeServer.push(largeServer);
        }
        // Redis: judged on the server's time in the script (the wall time is the round trip's).
        const [a, b] = redis
          ? [median(times.smallServer), median(times.largeServer)]
          : [median(times.small), median(times.large)];
        if ((await place.store.members(large)).length !== LARGE + ADDS) throw new Error(`setGrowth: ${storage} lost members`);
        await place.store.delete(small, large);
        const wall = (value: number) => value.toFixed(1);
        const server = (value: number) => (redis ? ` (Redis: ${value.toFixed(1)} in the script)` : '');
        rows.push([
          storage,
          `${wall(median(times.small))}${server(a)}`,
          `${wall(median(times.large))}${server(b)}`,
          `${(b / a).toFixed(2)}×`,
        ]);
        checks.push({
          name: `${storage}: an add to a set of ${LARGE.toLocaleString('en')} / to a set of ${SMALL}${redis ? ' (Redis\u2019s time in the script)' : ''}`,
          value: b / a,
          display: `${(b / a).toFixed(2)}×`,
          target: '≤ 1.5×',
          pass: b / a <= 1.5,
        });
      } finally {
        await place.drop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    title: 'Adding to a set as it grows (a wallet\u2019s grants of the day, a grant\u2019s tokens)',
    table: {
      head: ['storage', `µs per add, set of ${SMALL}`, `µs per add, set of ${LARGE.toLocaleString('en')}`, 'ratio'],
      rows,
    },
    checks,
    notes: [
      `Each storage's Store in the bench process, ${ADDS} members added one by one (each awaited) to each set, in turns of ${CHUNK}; medians of the turns. Wall time: on PostgreSQL and Redis it includes the round trip; Redis is judged on its own time in the add's script (INFO commandstats, EVALSHA), as the round trip moved its wall-time ratio between 0.8× and 2.3× from run to run.`,
    ],
  };
}
