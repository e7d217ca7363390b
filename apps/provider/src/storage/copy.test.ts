import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresSchema, type TestSchema } from '@signet/testkit/postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { CopyConflictError, copyStorage } from './copy.ts';
import { createPostgresStore } from './postgres/postgres.ts';
import { createRedisStore } from './redis/redis.ts';
import { createSqliteStore } from './sqlite/sqlite.ts';
import type { Store } from './store.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const dir = mkdtempSync(join(tmpdir(), 'signet-copy-'));
const schemas: TestSchema[] = [];
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await Promise.all(schemas.map((schema) => schema.drop()));
});

const kinds: [string, () => Store | Promise<Store>][] = [
  ['sqlite', () => createSqliteStore(join(dir, `${randomUUID()}.db`))],
  ['redis', () => createRedisStore(REDIS_URL, { prefix: `signet-test:${randomUUID()}:` })],
  [
    'postgres',
    () => {
      const schema = postgresSchema();
      schemas.push(schema);
      return createPostgresStore(schema.url);
    },
  ],
];

/** A deployment's state: clients and keys (no expiry), sessions and tokens (with one), and what is never copied. */
async function seed(store: Store) {
  await store.set('oidc:Client:rp', '{"client_id":"rp"}');
  await store.set('oidc:RegistrationAccessToken:rat', '{"clientId":"rp"}');
  await store.set('client:used:rp', '{"by":"sign-in"}');
  await store.set('keys:signing', '[{"kid":"k1"}]');
  await store.set('keys:pairwise', 'salt');
  await store.set('account:acct_1', '{"id":"acct_1","primary":"eip155:0:0x1","wallets":[{"id":"eip155:0:0x1","linkedAt":1}]}');
  await store.set('wallet:eip155:0:0x1', 'acct_1');
  // A passkey of the account (accounts/passkeys.ts), what it signed in, and a challenge, which is never copied.
  await store.set('passkey:cred1', '{"id":"cred1","account":"acct_1","publicKey":"pQ","counter":3}');
  await store.addToSet('passkey-grants:cred1', 'g1', 600);
  await store.set('passkey-challenge:ch1', '{"purpose":"sign-in","uid":"u1"}', 600);
  await store.set('oidc:Session:s1', '{"jti":"s1"}', 3600);
  await store.set('oidc:RefreshToken:r1', '{"jti":"r1","grantId":"g1"}', 600);
  await store.addToSet('oidc:grant:g1', 'oidc:RefreshToken:r1', 600);
  await store.set('signin:g1', '{"address":"0x"}', 600);
  await store.increment('rl:token:127.0.0.1:1', 60);
  await store.set('ens:1:account:0xabc', '{}', 60);
}

describe.each(
  kinds.flatMap(([fromKind, from]) =>
    kinds.filter(([toKind]) => toKind !== fromKind).map(([toKind, to]) => [fromKind, toKind, from, to]),
  ),
)('storage copy %s → %s', (_fromKind, _toKind, fromFactory, toFactory) => {
  it('copies clients and keys, and with sessions the sessions and grants, keeping their time left; never counters or caches', async () => {
    const from = await (fromFactory as () => Promise<Store>)();
    const to = await (toFactory as () => Promise<Store>)();
    try {
      await seed(from);
      const first = await copyStorage(from, to);
      expect(first).toEqual({
        clients: { items: 1, records: 3, copied: 3, unchanged: 0, overwritten: 0 },
        keys: { items: 2, records: 2, copied: 2, unchanged: 0, overwritten: 0 },
        // Accounts never expire: they move with clients and keys (an account, its wallet's link, its passkey).
        accounts: { items: 1, records: 3, copied: 3, unchanged: 0, overwritten: 0 },
      });
      expect(await to.get('wallet:eip155:0:0x1')).toBe('acct_1');
      expect(await to.get('passkey:cred1')).toBe('{"id":"cred1","account":"acct_1","publicKey":"pQ","counter":3}');
      expect(await to.getMany(['oidc:Client:rp', 'keys:signing', 'oidc:Session:s1'])).toEqual([
        '{"client_id":"rp"}',
        '[{"kid":"k1"}]',
        undefined,
      ]);
      const withSessions = await copyStorage(from, to, { sessions: true });
      expect(withSessions.sessions).toEqual({ items: 1, records: 5, copied: 5, unchanged: 0, overwritten: 0 });
      expect(await to.members('passkey-grants:cred1')).toEqual(['g1']);
      expect(await to.get('passkey-challenge:ch1')).toBeUndefined();
      expect(withSessions.clients).toEqual({ items: 1, records: 3, copied: 0, unchanged: 3, overwritten: 0 });
      expect(await to.members('oidc:grant:g1')).toEqual(['oidc:RefreshToken:r1']);
      expect(await to.getMany(['rl:token:127.0.0.1:1', 'ens:1:account:0xabc'])).toEqual([undefined, undefined]);
      const copied = new Map((await to.entries?.(''))?.map((entry) => [entry.key, entry]));
      expect(copied.get('keys:signing')?.ttlMs).toBeUndefined();
      expect(copied.get('oidc:Session:s1')?.ttlMs).toBeGreaterThan(3590_000);
      expect(copied.get('oidc:Session:s1')?.ttlMs).toBeLessThanOrEqual(3600_000);
      expect(copied.get('oidc:grant:g1')?.ttlMs).toBeGreaterThan(590_000);
      expect(copied.get('oidc:grant:g1')?.ttlMs).toBeLessThanOrEqual(600_000);
      // Again: nothing changes (idempotent).
      const again = await copyStorage(from, to, { sessions: true });
      expect(Object.values(again).every((tally) => tally.copied === 0 && tally.overwritten === 0)).toBe(true);
      // A target with other values under the same keys is refused, then overwritten with force.
      await to.set('keys:signing', '[{"kid":"made-by-a-provider-on-the-target"}]');
      await expect(copyStorage(from, to)).rejects.toBeInstanceOf(CopyConflictError);
      await expect(copyStorage(from, to)).rejects.toThrow(
        /different values under 1 of the keys to copy \(keys:signing\).*--force/,
      );
      expect((await copyStorage(from, to, { force: true })).keys).toEqual({
        items: 2,
        records: 2,
        copied: 0,
        unchanged: 1,
        overwritten: 1,
      });
      expect(await to.get('keys:signing')).toBe('[{"kid":"k1"}]');
    } finally {
      await Promise.all([from.close(), to.close()]);
    }
  });
});
