/**
 * The PostgreSQL store against servers of this file's own (throw-away clusters, never the shared
 * one): a server that restarts, a primary that turns read-only under the store (as a demoted
 * primary answers after a failover: SQLSTATE 25006), and TLS in each sslmode libpq defines.
 * The provider-level version of the restart (sign-ins, /health/ready) is e2e/postgres-replicas.test.ts.
 */
import { type PostgresCluster, startPostgresCluster, withParameters } from '@signet/testkit/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from './postgres.ts';

// One PostgreSQL server, shared by the "goes away and comes back" describes below.
let cluster: PostgresCluster;

beforeAll(async () => {
  cluster = await startPostgresCluster();
});
afterAll(async () => {
  await cluster?.destroy();
});

describe('PostgreSQL store on a server that goes away and comes back', () => {
  it('restart: operations fail fast with StorageUnavailableError while it is down, then work again without a new store', async () => {
    const store = await createPostgresStore(cluster.url, { statementTimeoutMs: 1000 });
    try {
      await store.set('kept', 'yes');
      await cluster.stop();
      const started = Date.now();
      await expect(store.get('kept')).rejects.toMatchObject({ name: 'StorageUnavailableError' });
      await expect(store.ping()).rejects.toMatchObject({ name: 'StorageUnavailableError' });
      await expect(store.setIfAbsent('claim', 'x', 60)).rejects.toMatchObject({ name: 'StorageUnavailableError' });
      expect(Date.now() - started).toBeLessThan(5000);
      await cluster.start();
      await expect
        .poll(
          () =>
            store.ping().then(
              () => 'ok',
              () => 'down',
            ),
          { timeout: 10_000, interval: 100 },
        )
        .toBe('ok');
      expect(await store.get('kept')).toBe('yes');
      // The claim that failed while it was down was not made: it can be made once now.
      expect(await store.setIfAbsent('claim', 'x', 60)).toBe(true);
      expect(await store.setIfAbsent('claim', 'y', 60)).toBe(false);
    } finally {
      await store.close();
    }
  });

  it('a server with autovacuum off: the store starts and warns once, naming the setting and the schema; with it on, no warning', async () => {
    const startWith = async (autovacuum: 'on' | 'off') => {
      await cluster.sql(`ALTER SYSTEM SET autovacuum = ${autovacuum}`);
      await cluster.sql('SELECT pg_reload_conf()');
      await expect
        .poll(async () => (await cluster.sql<{ autovacuum: string }>('SHOW autovacuum'))[0]?.autovacuum)
        .toBe(autovacuum);
      const warnings: string[] = [];
      const store = await createPostgresStore(cluster.url, { warn: (message) => warnings.push(message) });
      await store.set('works', 'yes');
      await store.close();
      return warnings;
    };
    try {
      const off = await startWith('off');
      expect(off).toHaveLength(1);
      expect(off[0]).toMatch(
        /^PostgreSQL at postgres:\/\/127\.0\.0\.1:\d+\/postgres has autovacuum off: .*schema signet's tables .*turn autovacuum on, or VACUUM them on a schedule$/,
      );
      expect(await startWith('on')).toEqual([]);
    } finally {
      await cluster.sql('ALTER SYSTEM RESET autovacuum');
      await cluster.sql('SELECT pg_reload_conf()');
    }
  });

  it('a crash (SIGKILL) of the server: the same, once it has recovered', async () => {
    const store = await createPostgresStore(cluster.url, { statementTimeoutMs: 1000 });
    try {
      await store.set('durable', 'committed');
      await cluster.kill();
      await expect(store.get('durable')).rejects.toMatchObject({ name: 'StorageUnavailableError' });
      await cluster.start();
      await expect
        .poll(
          () =>
            store.ping().then(
              () => 'ok',
              () => 'down',
            ),
          { timeout: 15_000, interval: 100 },
        )
        .toBe('ok');
      expect(await store.get('durable')).toBe('committed');
    } finally {
      await store.close();
    }
  });
});

describe('PostgreSQL store on a server that goes away and comes back: read-only', () => {
  it('a primary turned read-only under the store (25006): writes fail as 503, the pool reconnects, ping fails until writes are taken again', async () => {
    const store = await createPostgresStore(cluster.url, { poolSize: 4, statementTimeoutMs: 1000 });
    const sessions = async () =>
      (
        await cluster.sql<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'signet' AND backend_type = 'client backend'",
        )
      )[0]?.n ?? 0;
    try {
      // Open several pooled connections.
      await Promise.all(Array.from({ length: 4 }, (_, i) => store.set(`k${i}`, 'v')));
      const before = await cluster.sql<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE application_name = 'signet'");
      expect(before.length).toBeGreaterThan(0);
      // As after a failover whose DNS still names the old primary: the same server now refuses writes.
      await cluster.sql('ALTER SYSTEM SET default_transaction_read_only = on');
      await cluster.sql('SELECT pg_reload_conf()');
      await new Promise((resolve) => setTimeout(resolve, 300));
      await expect(store.set('k0', 'w')).rejects.toMatchObject({
        name: 'StorageUnavailableError',
        message: expect.stringMatching(/read-only.*\[25006\]/),
      });
      await expect(store.batch([{ op: 'set', key: 'k1', value: 'w' }])).rejects.toMatchObject({
        name: 'StorageUnavailableError',
      });
      await expect(store.ping()).rejects.toMatchObject({ message: expect.stringMatching(/read-only/) });
      // Every connection open before was dropped, not only the one that failed.
      await expect
        .poll(
          async () => {
            const now = await cluster.sql<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE application_name = 'signet'");
            return now.filter((row) => before.some((old) => old.pid === row.pid)).length;
          },
          { timeout: 5000, interval: 100 },
        )
        .toBe(0);
      // A writable primary answers again: ping succeeds and writes go through.
      await cluster.sql('ALTER SYSTEM RESET default_transaction_read_only');
      await cluster.sql('SELECT pg_reload_conf()');
      await expect
        .poll(
          () =>
            store.ping().then(
              () => 'ok',
              () => 'down',
            ),
          { timeout: 10_000, interval: 200 },
        )
        .toBe('ok');
      await store.set('k0', 'w');
      expect(await store.get('k0')).toBe('w');
      expect(await sessions()).toBeLessThanOrEqual(4);
    } finally {
      await store.close();
    }
  });
});

describe('PostgreSQL store over TLS: each sslmode as libpq means it', () => {
  let tls: PostgresCluster;
  let plain: PostgresCluster;
  beforeAll(async () => {
    [tls, plain] = await Promise.all([startPostgresCluster({ tls: true }), startPostgresCluster()]);
  });
  afterAll(async () => {
    await Promise.all([tls?.destroy(), plain?.destroy()]);
  });

  /** Whether the store's own session is encrypted, as the server reports it. */
  const encrypted = async (url: string) => {
    const store = await createPostgresStore(url, { poolSize: 1 });
    try {
      await store.set('probe', '1');
      const cluster = url.includes(`:${tls.port}/`) ? tls : plain;
      const rows = await cluster.sql<{ ssl: boolean }>(
        "SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'signet'",
      );
      return rows.map((row) => row.ssl);
    } finally {
      await store.close();
    }
  };
  const on = (cluster: PostgresCluster, parameters: Record<string, string>, host = '127.0.0.1') =>
    withParameters(cluster.url.replace('127.0.0.1', host), parameters);

  it('disable: plain; prefer (the default): TLS where offered, plain where not; allow: plain where accepted', async () => {
    expect(await encrypted(on(tls, { sslmode: 'disable' }))).toEqual([false]);
    expect(await encrypted(on(tls, { sslmode: 'prefer' }))).toEqual([true]);
    expect(await encrypted(on(plain, { sslmode: 'prefer' }))).toEqual([false]);
    expect(await encrypted(on(tls, { sslmode: 'allow' }))).toEqual([false]);
  });

  it('require: encrypts without verifying (a certificate from an unknown CA is accepted); on a server without TLS, refused', async () => {
    expect(await encrypted(on(tls, { sslmode: 'require' }))).toEqual([true]);
    await expect(createPostgresStore(on(plain, { sslmode: 'require' }))).rejects.toMatchObject({
      name: 'SettingsError',
      message: expect.stringMatching(/does not answer \(The server does not support SSL connections\)/),
    });
  });

  it('verify-ca: the chain must lead to sslrootcert, any name; verify-full: and the name must match the host', async () => {
    const ca = tls.caFile as string;
    // Without the CA: Node's own CAs do not know the test CA.
    await expect(createPostgresStore(on(tls, { sslmode: 'verify-ca' }))).rejects.toMatchObject({
      message: expect.stringMatching(/self[- ]signed|unable to (get|verify)/i),
    });
    expect(await encrypted(on(tls, { sslmode: 'verify-ca', sslrootcert: ca }))).toEqual([true]);
    // require with a root certificate verifies the chain, as libpq does.
    expect(await encrypted(on(tls, { sslmode: 'require', sslrootcert: ca }))).toEqual([true]);
    // The certificate names localhost and 127.0.0.1: both pass verify-full; another name for the same server does not.
    expect(await encrypted(on(tls, { sslmode: 'verify-full', sslrootcert: ca }))).toEqual([true]);
    expect(await encrypted(on(tls, { sslmode: 'verify-full', sslrootcert: ca }, 'localhost'))).toEqual([true]);
    await expect(createPostgresStore(on(tls, { sslmode: 'verify-full', sslrootcert: ca }, '127.0.0.2'))).rejects.toMatchObject({
      message: expect.stringMatching(/does not match certificate|altnames/i),
    });
    // verify-ca does not check the name: the same other name is accepted.
    expect(await encrypted(on(tls, { sslmode: 'verify-ca', sslrootcert: ca }, '127.0.0.2'))).toEqual([true]);
  });
});
