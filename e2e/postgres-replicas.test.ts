/**
 * Provider replicas on PostgreSQL, as real processes: two replicas sharing one database (one-time
 * codes, refresh rotation, a key rotated by the CLI), a database that restarts during sign-ins,
 * a primary that turns read-only (as after a failover), and a deployment moved to PostgreSQL from
 * SQLite and from Redis with `signet storage copy`. Each test has a schema of its own on the
 * shared server, or a throw-away cluster where the server itself is stopped or changed.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CookieJar, followToClient, getDetails, messageFor, postSignature, startInteraction } from '@signet/testkit';
import {
  type PostgresCluster,
  postgresSchema,
  startPostgresCluster,
  type TestSchema,
  withParameters,
} from '@signet/testkit/postgres';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { claimsFor, ethereumAgent, JWT_BEARER, tokenRequest } from '../apps/provider/test/agent-assertions.ts';
import { authorizationUrl, exchange, REDIRECT_URI } from './flows.ts';
import { freePort, type Replica, startReplica } from './processes.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SIGNET = join(import.meta.dirname, '..', 'node_modules', '.bin', 'signet');
const schemas: TestSchema[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(schemas.map((schema) => schema.drop()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const fresh = () => {
  const schema = postgresSchema();
  schemas.push(schema);
  return schema;
};

function deployment(issuerPort: number, storage: string) {
  return {
    ISSUER: `http://localhost:${issuerPort}`,
    STORAGE_URL: storage,
    STORAGE_PREFIX: `signet-e2e:${randomUUID()}:`,
    RATE_LIMIT_INTERACTION: '0',
    RATE_LIMIT_REGISTRATION: '0',
    RATE_LIMIT_TOKEN: '0',
    SHUTDOWN_DRAIN_MS: '0',
  };
}

/** A public client allowed refresh tokens. */
async function registerClient(replica: Replica) {
  const response = await fetch(`${replica.url}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
    }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { client_id: string };
}

async function signInForCode(url: URL, account: PrivateKeyAccount, jar = new CookieJar()) {
  const interactionUrl = await startInteraction(jar, url);
  const details = await getDetails(jar, interactionUrl);
  const message = messageFor(details, account.address);
  const posted = await postSignature(jar, interactionUrl, { message, signature: await account.signMessage({ message }) });
  const issuer = new URL(details.uri).origin;
  const callback = await followToClient(jar, interactionUrl, posted.headers.get('location') as string, 5, [
    interactionUrl.origin,
    issuer,
  ]);
  return callback.searchParams.get('code') as string;
}

/** A whole sign-in with refresh tokens (offline_access, consent asked), on `replica`: the token response. */
async function signIn(replica: Replica, clientId: string, account = privateKeyToAccount(generatePrivateKey())) {
  const { url, verifier } = await authorizationUrl(replica, clientId, 'openid offline_access');
  url.searchParams.set('prompt', 'consent');
  const code = await signInForCode(url, account);
  return { code, verifier, account };
}

async function refresh(replica: Replica, clientId: string, refreshToken: string) {
  const response = await fetch(`${replica.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

const ready = async (replica: Replica) => (await fetch(`${replica.url}/health/ready`)).status;

function cli(args: string[], env: Record<string, string>) {
  const result = spawnSync(SIGNET, args, {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env },
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('two replicas on one PostgreSQL database', () => {
  it('share keys and clients; a code works once across replicas; refresh tokens rotate; a key rotated by the CLI reaches both', async () => {
    const schema = fresh();
    const issuerPort = await freePort();
    const env = deployment(issuerPort, schema.url);
    // Started together on an empty schema: they race to migrate it and to create the signing keys.
    const [a, b] = await Promise.all([startReplica(env, issuerPort), startReplica(env)]);
    try {
      const [jwksA, jwksB] = await Promise.all([a, b].map(async (r) => (await fetch(`${r.url}/jwks`)).json()));
      expect(jwksA.keys).toHaveLength(1);
      expect(jwksB).toEqual(jwksA);
      const client = await registerClient(a);

      // Concurrent exchanges of one code on both replicas: exactly one success, three times over.
      for (let round = 0; round < 3; round++) {
        const { code, verifier } = await signIn(b, client.client_id);
        const results = await Promise.all([a, b, a, b].map((r) => exchange(r, client.client_id, code, verifier)));
        expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400]);
      }

      // An agent's assertion (JWT bearer grant) at both replicas at once: its jti is claimed once.
      const agentClient = (await (
        await fetch(`${a.url}/reg`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ grant_types: [JWT_BEARER], response_types: [], token_endpoint_auth_method: 'none' }),
        })
      ).json()) as { client_id: string };
      const agent = ethereumAgent();
      for (let round = 0; round < 3; round++) {
        const assertion = agent.sign(claimsFor(agent.accountId(), env.ISSUER));
        const answers = await Promise.all([a, b, a, b].map((r) => tokenRequest(`${r.url}/token`, agentClient, { assertion })));
        expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400, 400, 400]);
      }

      // Refresh on the other replica: a new refresh token; the old one, presented again on the first
      // within REFRESH_REUSE_GRACE_SECONDS, answers the same pair; once that is used, it is spent on both.
      const { code, verifier } = await signIn(a, client.client_id);
      const tokens = await exchange(a, client.client_id, code, verifier);
      expect(tokens.status).toBe(200);
      expect(tokens.body.refresh_token).toEqual(expect.any(String));
      const rotated = await refresh(b, client.client_id, tokens.body.refresh_token as string);
      expect(rotated.status).toBe(200);
      expect(rotated.body.refresh_token).not.toBe(tokens.body.refresh_token);
      expect((await refresh(a, client.client_id, tokens.body.refresh_token as string)).body.refresh_token).toBe(
        rotated.body.refresh_token,
      );
      expect((await refresh(a, client.client_id, rotated.body.refresh_token as string)).status).toBe(200);
      expect((await refresh(b, client.client_id, tokens.body.refresh_token as string)).body.error).toBe('invalid_grant');

      // The CLI rotates the key in the database; both replicas sign with the new one within 30 s.
      const rotation = cli(['keys', 'rotate', '--json'], env);
      expect(rotation.status, rotation.stderr).toBe(0);
      const kid = JSON.parse(rotation.stdout).signing as string;
      for (const replica of [a, b]) {
        await expect
          .poll(async () => ((await (await fetch(`${replica.url}/jwks`)).json()) as { keys: { kid: string }[] }).keys[0]?.kid, {
            timeout: 40_000,
            interval: 500,
          })
          .toBe(kid);
      }
      const signed = await signIn(b, client.client_id);
      const idToken = (await exchange(b, client.client_id, signed.code, signed.verifier)).body.id_token as string;
      expect(decodeProtectedHeader(idToken).kid).toBe(kid);
      const jwks = createLocalJWKSet(await (await fetch(`${a.url}/jwks`)).json());
      await expect(jwtVerify(idToken, jwks)).resolves.toBeTruthy();
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  }, 120_000);
});

describe('a PostgreSQL server that restarts, or turns read-only, under a running provider', () => {
  let cluster: PostgresCluster;
  let replica: Replica;
  afterAll(async () => {
    await replica?.stop();
    await cluster?.destroy();
  });

  it('restart during sign-ins: /health/ready 503 while down, no code usable twice, a fresh sign-in after', async () => {
    cluster = await startPostgresCluster();
    const port = await freePort();
    replica = await startReplica({ ...deployment(port, cluster.url), STORAGE_STATEMENT_TIMEOUT_MS: '1000' }, port);
    const client = await registerClient(replica);
    const before = await signIn(replica, client.client_id);
    await cluster.stop();
    const started = Date.now();
    expect(await ready(replica)).toBe(503);
    const duringOutage = await exchange(replica, client.client_id, before.code, before.verifier);
    expect(duringOutage).toMatchObject({ status: 503, body: { error: 'temporarily_unavailable' } });
    expect(Date.now() - started).toBeLessThan(10_000);
    await cluster.start();
    await expect.poll(() => ready(replica), { timeout: 15_000, interval: 200 }).toBe(200);
    // The code that failed during the outage was never spent: now it works once, whoever asks.
    const results = await Promise.all([1, 2, 3].map(() => exchange(replica, client.client_id, before.code, before.verifier)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400]);
    const after = await signIn(replica, client.client_id);
    expect((await exchange(replica, client.client_id, after.code, after.verifier)).status).toBe(200);
    expect(replica.process.exitCode).toBeNull();
  }, 90_000);

  it('a primary turned read-only (25006, as after a failover): not ready and 503 until a writable primary answers', async () => {
    const client = await registerClient(replica);
    const pending = await signIn(replica, client.client_id);
    await cluster.sql('ALTER SYSTEM SET default_transaction_read_only = on');
    await cluster.sql('SELECT pg_reload_conf()');
    await expect.poll(() => ready(replica), { timeout: 10_000, interval: 200 }).toBe(503);
    const refused = await exchange(replica, client.client_id, pending.code, pending.verifier);
    expect(refused).toMatchObject({ status: 503, body: { error: 'temporarily_unavailable' } });
    await cluster.sql('ALTER SYSTEM RESET default_transaction_read_only');
    await cluster.sql('SELECT pg_reload_conf()');
    await expect.poll(() => ready(replica), { timeout: 10_000, interval: 200 }).toBe(200);
    expect((await exchange(replica, client.client_id, pending.code, pending.verifier)).status).toBe(200);
    expect(replica.output()).not.toMatch(/postgres:\/\/[^@\s]*:[^@\s]*@/);
  }, 60_000);
});

describe('moving a deployment to PostgreSQL (signet storage copy)', () => {
  it.each([
    [
      'SQLite',
      () => {
        const dir = mkdtempSync(join(tmpdir(), 'signet-move-'));
        dirs.push(dir);
        return `sqlite:${join(dir, 'signet.db')}`;
      },
    ],
    ['Redis', () => REDIS_URL],
  ])(
    '%s → PostgreSQL: the same client keeps working, tokens verify with the same keys, users stay signed in',
    async (_kind, source) => {
      const port = await freePort();
      const from = deployment(port, source());
      const old = await startReplica(from, port);
      const client = await registerClient(old);
      const jwks = await (await fetch(`${old.url}/jwks`)).json();
      const first = await signIn(old, client.client_id);
      const tokens = await exchange(old, client.client_id, first.code, first.verifier);
      expect(tokens.status).toBe(200);
      expect(await old.stop()).toBe(0);

      const target = fresh();
      const copied = cli(['storage', 'copy', '--from', from.STORAGE_URL, '--to', target.url, '--sessions', '--json'], from);
      expect(copied.status, copied.stderr).toBe(0);
      const summary = JSON.parse(copied.stdout);
      expect(summary.clients.copied).toBeGreaterThanOrEqual(1);
      expect(summary.keys.copied).toBe(3);
      expect(summary.sessions.copied).toBeGreaterThan(0);
      expect(copied.stdout + copied.stderr).not.toMatch(/password/);
      // Again: nothing new (idempotent).
      const again = JSON.parse(
        cli(['storage', 'copy', '--from', from.STORAGE_URL, '--to', target.url, '--sessions', '--json'], from).stdout,
      );
      expect(again.keys).toEqual({ items: 3, records: 3, copied: 0, unchanged: 3, overwritten: 0 });

      const moved = await startReplica({ ...from, STORAGE_URL: target.url }, port);
      try {
        expect(await (await fetch(`${moved.url}/jwks`)).json()).toEqual(jwks);
        // An ID token issued before the move verifies with the moved key set; the refresh token still works.
        await expect(jwtVerify(tokens.body.id_token as string, createLocalJWKSet(jwks))).resolves.toBeTruthy();
        const refreshed = await refresh(moved, client.client_id, tokens.body.refresh_token as string);
        expect(refreshed.status).toBe(200);
        // A new sign-in with the same client: its ID token is signed by the same key.
        const next = await signIn(moved, client.client_id, first.account);
        const nextTokens = await exchange(moved, client.client_id, next.code, next.verifier);
        expect(nextTokens.status).toBe(200);
        const verified = await jwtVerify(nextTokens.body.id_token as string, createLocalJWKSet(jwks));
        expect(verified.payload.sub).toBe(`eip155:1:${first.account.address}`);
      } finally {
        await moved.stop();
      }
    },
    90_000,
  );
});

describe('a PostgreSQL URL with a password never shows it', () => {
  it('a provider that cannot reach its database stops naming STORAGE_URL and host:port/database only', async () => {
    const port = await freePort();
    const url = withParameters(`postgres://signet:s3cret-pw@127.0.0.1:${await freePort()}/signet`, { sslmode: 'disable' });
    const failed = startReplica(deployment(port, url));
    await expect(failed).rejects.toThrow(/STORAGE_URL: PostgreSQL at postgres:\/\/127\.0\.0\.1:\d+\/signet does not answer/);
    await expect(failed).rejects.not.toThrow(/s3cret-pw/);
  });
});
