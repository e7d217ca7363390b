import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSqliteStore } from './sqlite.ts';
import { loadDatabase } from './sqlite-driver.ts';
import { LAYOUT_VERSION } from './sqlite-schema.ts';

/** The layout version, each set's one row, and how many member rows there are. */
const setRows = (file: string) => {
  const db = new (loadDatabase())(file, { readonly: true });
  try {
    return {
      version: db.pragma('user_version', { simple: true }),
      sets: db.prepare('SELECT key, expires_at FROM sets ORDER BY key').all(),
      members: db.prepare('SELECT COUNT(*) FROM set_members').pluck().get(),
    };
  } finally {
    db.close();
  }
};

const tableSql = (file: string) => {
  const db = new (loadDatabase())(file, { readonly: true });
  try {
    return {
      kv: (db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'kv'").get() as { sql: string }).sql,
      indexes: (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'kv'").all() as { name: string }[])
        .map((row) => row.name)
        .filter((name) => !name.startsWith('sqlite_autoindex')),
    };
  } finally {
    db.close();
  }
};

describe('the SQLite layout', () => {
  it('a new database keeps values in a rowid table, with the expiry index', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'signet-layout-')), 'signet.db');
    const store = createSqliteStore(file);
    await store.set('k', 'v', 60);
    await store.close();
    const { kv, indexes } = tableSql(file);
    expect(kv).not.toMatch(/WITHOUT\s+ROWID/i);
    expect(indexes).toEqual(['kv_expiry']);
  });

  it('a database made by an earlier version (kv WITHOUT ROWID) is moved once, keeping every value and expiry', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'signet-layout-')), 'signet.db');
    const old = new (loadDatabase())(file);
    old.exec(`
      CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER) WITHOUT ROWID;
      CREATE TABLE sets (key TEXT NOT NULL, member TEXT NOT NULL, expires_at INTEGER, PRIMARY KEY (key, member)) WITHOUT ROWID;
      CREATE INDEX kv_expiry ON kv (expires_at) WHERE expires_at IS NOT NULL;
    `);
    const insert = old.prepare('INSERT INTO kv (key, value, expires_at) VALUES (?, ?, ?)');
    insert.run('keys:signing', '{"kid":"a"}', null);
    insert.run('oidc:Session:s1', '{"uid":"u"}', Date.now() + 60_000);
    insert.run('oidc:Session:gone', '{"uid":"x"}', Date.now() - 1_000);
    const member = old.prepare('INSERT INTO sets (key, member, expires_at) VALUES (?, ?, ?)');
    member.run('oidc:grant:g', 'oidc:AccessToken:t', null);
    // Layout 0: each member's row carried the set's expiry (a set without one if any row had none).
    const later = Date.now() + 120_000;
    member.run('wallet-grants:w', 'g1', Date.now() + 60_000);
    member.run('wallet-grants:w', 'g2', later);
    member.run('wallet-grants:gone', 'g0', Date.now() - 1_000);
    old.close();

    const store = createSqliteStore(file);
    expect(await store.get('keys:signing')).toBe('{"kid":"a"}');
    expect(await store.get('oidc:Session:s1')).toBe('{"uid":"u"}');
    expect(await store.get('oidc:Session:gone')).toBeUndefined();
    expect(await store.members('oidc:grant:g')).toEqual(['oidc:AccessToken:t']);
    expect((await store.members('wallet-grants:w')).sort()).toEqual(['g1', 'g2']);
    expect(await store.members('wallet-grants:gone')).toEqual([]);
    await store.set('after', '1');
    await store.close();
    const { kv, indexes } = tableSql(file);
    expect(kv).not.toMatch(/WITHOUT\s+ROWID/i);
    expect(indexes).toEqual(['kv_expiry']);
    expect(setRows(file)).toEqual({
      version: LAYOUT_VERSION,
      sets: [
        { key: 'oidc:grant:g', expires_at: null },
        { key: 'wallet-grants:gone', expires_at: expect.any(Number) },
        { key: 'wallet-grants:w', expires_at: later },
      ],
      members: 4,
    });

    // Opening it again changes nothing.
    const again = createSqliteStore(file);
    expect(await again.get('after')).toBe('1');
    expect(await again.keys('oidc:Session:')).toEqual(['oidc:Session:s1']);
    await again.close();
  });

  it('a set keeps one row with its expiry, however many members it has: adding one writes two rows, not the whole set', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'signet-layout-')), 'signet.db');
    const store = createSqliteStore(file);
    for (let i = 0; i < 300; i++) await store.addToSet('wallet-grants:busy', `grant-${i}`, 3600 + i);
    await store.close();
    const { sets, members } = setRows(file);
    expect(members).toBe(300);
    expect(sets).toEqual([{ key: 'wallet-grants:busy', expires_at: expect.any(Number) }]);
    // Each member's row carried the expiry in layout 0: every add rewrote all of them.
    const db = new (loadDatabase())(file, { readonly: true });
    expect(db.prepare("SELECT name FROM pragma_table_info('set_members')").pluck().all()).toEqual(['key', 'member']);
    db.close();
  });

  it('a database of a later layout is refused at open with what to do, and left as it was', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'signet-layout-')), 'signet.db');
    await createSqliteStore(file).close();
    const db = new (loadDatabase())(file);
    db.pragma(`user_version = ${LAYOUT_VERSION + 1}`);
    db.close();
    expect(() => createSqliteStore(file)).toThrow(
      new RegExp(
        `has layout ${LAYOUT_VERSION + 1}, written by a later version of Signet; this version reads up to layout ${LAYOUT_VERSION}`,
      ),
    );
    expect(setRows(file).version).toBe(LAYOUT_VERSION + 1);
  });
});
