import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSqliteStore, SWEEP, SWEEP_BATCH } from './sqlite.ts';
import { loadDatabase } from './sqlite-driver.ts';

const T = 1_800_000_000_000;

/** A database with `expired` expired and `live` live values, an expired set and a live one. */
async function seeded(expired: number, live: number) {
  const file = join(mkdtempSync(join(tmpdir(), 'signet-sweep-')), 'signet.db');
  await createSqliteStore(file).close();
  const db = new (loadDatabase())(file);
  const kv = db.prepare('INSERT INTO kv (key, value, expires_at) VALUES (?, ?, ?)');
  const set = db.prepare('INSERT INTO sets (key, expires_at) VALUES (?, ?)');
  const member = db.prepare('INSERT INTO set_members (key, member) VALUES (?, ?)');
  db.transaction(() => {
    for (let i = 0; i < Math.max(expired, live); i++) {
      if (i < expired) kv.run(`gone:${i}`, 'x', T - 1_000);
      if (i < live) kv.run(`live:${i}`, 'y', T + 60_000);
    }
    kv.run('forever', 'z', null);
    set.run('oidc:grant:old', T - 1);
    for (let i = 0; i < 4; i++) member.run('oidc:grant:old', `oidc:AccessToken:${i}`);
    set.run('oidc:grant:new', T + 60_000);
    member.run('oidc:grant:new', 'oidc:AccessToken:n');
    set.run('oidc:grant:unbounded', null);
    member.run('oidc:grant:unbounded', 'oidc:AccessToken:u');
  })();
  db.close();
  return file;
}

function rows(file: string) {
  const db = new (loadDatabase())(file, { readonly: true });
  try {
    return {
      expiredKv: db.prepare("SELECT COUNT(*) FROM kv WHERE key LIKE 'gone:%'").pluck().get() as number,
      sets: db.prepare('SELECT COUNT(*) FROM sets').pluck().get() as number,
      members: db.prepare('SELECT COUNT(*) FROM set_members').pluck().get() as number,
    };
  } finally {
    db.close();
  }
}

describe('the SQLite expiry sweep', () => {
  it('deletes, on its own timer, every expired row and set member, and keeps the rest', async () => {
    const file = await seeded(25, 10);
    expect(rows(file)).toEqual({ expiredKv: 25, sets: 3, members: 6 });
    const store = createSqliteStore(file, { now: () => T, sweepIntervalMs: 20 });
    // Expired rows are invisible before the sweep.
    expect(await store.get('gone:0')).toBeUndefined();
    for (let i = 0; i < 100 && rows(file).expiredKv > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(rows(file)).toEqual({ expiredKv: 0, sets: 2, members: 2 });
    expect(await store.get('live:9')).toBe('y');
    expect(await store.get('forever')).toBe('z');
    expect(await store.members('oidc:grant:new')).toEqual(['oidc:AccessToken:n']);
    expect(await store.members('oidc:grant:unbounded')).toEqual(['oidc:AccessToken:u']);
    await store.close();
  });

  it('deletes in batches (SWEEP_BATCH rows) with a turn of the event loop between them, until none is left', async () => {
    expect(SWEEP_BATCH).toBeLessThanOrEqual(1_000);
    const expired = Math.round(SWEEP_BATCH * 2.5);
    const file = await seeded(expired, 10);
    const store = createSqliteStore(file, { now: () => T, sweepIntervalMs: 3_600_000 });
    let turns = 0;
    let done = false;
    const turn = () => {
      turns += 1;
      if (!done) setImmediate(turn);
    };
    setImmediate(turn);
    const removed = await store.sweep();
    done = true;
    // 2.5 batches of values and 4 set members: three batches, two turns between them (one
    // DELETE of everything held the event loop until it finished: no turn).
    expect(removed).toBe(expired + 4);
    expect(turns).toBeGreaterThanOrEqual(2);
    expect(rows(file)).toEqual({ expiredKv: 0, sets: 2, members: 2 });
    expect(await store.get('live:9')).toBe('y');
    await store.close();
  });

  it('uses the expiry indexes, so a sweep reads the expired rows and not the whole table', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'signet-sweep-')), 'signet.db');
    const store = createSqliteStore(file);
    const db = new (loadDatabase())(file, { readonly: true });
    try {
      const plan = (sql: string) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(1, 1000) as { detail: string }[]).map((row) => row.detail).join('; ');
      expect(plan(SWEEP.kv)).toMatch(/USING (COVERING )?INDEX kv_expiry/);
      expect(plan(SWEEP.sets)).toMatch(/USING (COVERING )?INDEX sets_expiry/);
      expect(plan(SWEEP.setMembers)).toMatch(/USING (COVERING )?INDEX sets_expiry/);
    } finally {
      db.close();
      await store.close();
    }
  });
});
