/**
 * Several provider replicas sharing one Redis, as real processes: shared state, one-time codes
 * across replicas, a replica killed under load, restarts, and Redis outages.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CookieJar, followToClient, getDetails, messageFor, postSignature, request, startInteraction } from '@signet/testkit';
import { startRedisCluster } from '@signet/testkit/redis';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimsFor, ethereumAgent, JWT_BEARER, tokenRequest } from '../apps/provider/test/agent-assertions.ts';
import { authorizationUrl, exchange, REDIRECT_URI, registerPublicClient } from './flows.ts';
import { freePort, type RedisServer, type Replica, startRedis, startReplica } from './processes.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const dirs: string[] = [];
// A three-primary Redis Cluster of this file's own: the shared-state tests run on it too.
const cluster = await startRedisCluster(3);
afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  await cluster.stop();
});

/** Settings every replica of one deployment shares: one issuer, one storage, one prefix. */
function deployment(issuerPort: number, storage = REDIS_URL) {
  return {
    ISSUER: `http://localhost:${issuerPort}`,
    STORAGE_URL: storage,
    STORAGE_PREFIX: `signet-e2e:${randomUUID()}:`,
    RATE_LIMIT_INTERACTION: '0',
    RATE_LIMIT_REGISTRATION: '0',
    RATE_LIMIT_TOKEN: '0',
    // Stops at once on SIGTERM (the drain is e2e/health.test.ts's concern).
    SHUTDOWN_DRAIN_MS: '0',
  };
}

const on = (replica: Replica, url: URL | string) => {
  const target = new URL(url);
  target.port = String(replica.port);
  return target;
};

/** A whole sign-in on one replica, as a browser with `jar` would do it: returns the code. */
async function signInForCode(url: URL, account: PrivateKeyAccount, jar = new CookieJar()) {
  const interactionUrl = await startInteraction(jar, url);
  const details = await getDetails(jar, interactionUrl);
  const message = messageFor(details, account.address);
  const posted = await postSignature(jar, interactionUrl, { message, signature: await account.signMessage({ message }) });
  // The issuer's origin is the deployment's front door (here: replica a's port), whichever replica answered.
  const issuer = new URL(details.uri).origin;
  const callback = await followToClient(jar, interactionUrl, posted.headers.get('location') as string, 5, [
    interactionUrl.origin,
    issuer,
  ]);
  return { code: callback.searchParams.get('code') as string, jar };
}

describe.each([
  ['one Redis', () => REDIS_URL],
  ['a three-primary Redis Cluster', () => cluster.url],
])('two replicas, %s, one issuer', (_shape, storage) => {
  let a: Replica;
  let b: Replica;
  let env: Record<string, string>;
  beforeAll(async () => {
    const issuerPort = await freePort();
    env = deployment(issuerPort, storage());
    // Started together on an empty prefix: they race to create the signing keys.
    [a, b] = await Promise.all([startReplica(env, issuerPort), startReplica(env)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('share the signing keys (created once), clients and their management', async () => {
    const [jwksA, jwksB] = await Promise.all([
      fetch(`${a.url}/jwks`).then((r) => r.json()),
      fetch(`${b.url}/jwks`).then((r) => r.json()),
    ]);
    expect(jwksA.keys).toHaveLength(1);
    expect(jwksB).toEqual(jwksA);
    const client = await registerPublicClient(a);
    const read = await fetch(on(b, client.registration_client_uri), {
      headers: { authorization: `Bearer ${client.registration_access_token}` },
    });
    expect(read.status).toBe(200);
    expect((await read.json()).client_id).toBe(client.client_id);
    const deleted = await fetch(on(b, client.registration_client_uri), {
      method: 'DELETE',
      headers: { authorization: `Bearer ${client.registration_access_token}` },
    });
    expect(deleted.status).toBe(204);
    expect(
      (
        await fetch(on(a, client.registration_client_uri), {
          headers: { authorization: `Bearer ${client.registration_access_token}` },
        })
      ).status,
    ).toBe(401);
  });

  it('authorize on one, sign and finish on the other, token from either; a code spent on one is refused on the other', async () => {
    const client = await registerPublicClient(a);
    const account = privateKeyToAccount(generatePrivateKey());
    const { url, verifier } = await authorizationUrl(a, client.client_id);
    const jar = new CookieJar();
    const interactionOnA = await startInteraction(jar, url);
    const interactionOnB = on(b, interactionOnA);
    const details = await getDetails(jar, interactionOnB);
    const message = messageFor(details, account.address);
    const posted = await postSignature(jar, interactionOnB, { message, signature: await account.signMessage({ message }) });
    expect(posted.status).toBe(303);
    // returnTo names the issuer's origin (replica a's port here); finish on b instead.
    const resumeOnB = on(b, new URL(posted.headers.get('location') as string, interactionOnB));
    const callback = await followToClient(jar, interactionOnB, resumeOnB.href);
    const code = callback.searchParams.get('code') as string;
    expect(code, callback.href).toBeTruthy();

    const first = await exchange(b, client.client_id, code, verifier);
    expect(first.status).toBe(200);
    const replay = await exchange(a, client.client_id, code, verifier);
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

    // The ID token from B verifies with A's key set; the access token works at A (and was revoked by the replay).
    const userinfo = await fetch(`${a.url}/me`, { headers: { authorization: `Bearer ${first.body.access_token}` } });
    expect(userinfo.status).toBe(401);
  });

  it('two replicas racing on one code: exactly one success', async () => {
    for (let round = 0; round < 5; round++) {
      const client = await registerPublicClient(a);
      const account = privateKeyToAccount(generatePrivateKey());
      const { url, verifier } = await authorizationUrl(b, client.client_id);
      const { code } = await signInForCode(url, account);
      const results = await Promise.all([a, b, a, b].map((replica) => exchange(replica, client.client_id, code, verifier)));
      expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400]);
    }
  });

  it("the CLI lists every client the replicas registered (on a Cluster: every primary's)", async () => {
    const registered = await Promise.all(Array.from({ length: 8 }, (_, i) => registerPublicClient(i % 2 ? a : b)));
    const listed = spawnSync(join(import.meta.dirname, '..', 'node_modules', '.bin', 'signet'), ['clients', 'list', '--json'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', ...env, LOG_LEVEL: 'warn' },
      timeout: 30_000,
    });
    expect(listed.status, listed.stderr).toBe(0);
    const ids = (JSON.parse(listed.stdout) as { client_id: string }[]).map((client) => client.client_id);
    for (const client of registered) expect(ids).toContain(client.client_id);
  });

  it("an agent's assertion (JWT bearer grant) at both at once: accepted exactly once", async () => {
    const registered = await fetch(`${a.url}/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_types: [JWT_BEARER], response_types: [], token_endpoint_auth_method: 'none' }),
    });
    const client = (await registered.json()) as { client_id: string };
    const agent = ethereumAgent();
    for (let round = 0; round < 3; round++) {
      const assertion = agent.sign(claimsFor(agent.accountId(), env.ISSUER as string));
      const answers = await Promise.all(
        [a, b, a, b].map((replica) => tokenRequest(`${replica.url}/token`, client, { assertion })),
      );
      expect(answers.map((answer) => answer.status).sort(), JSON.stringify(answers.map((answer) => answer.body))).toEqual([
        200, 400, 400, 400,
      ]);
    }
  });

  it('tokens issued by one are valid at the other', async () => {
    const client = await registerPublicClient(b);
    const account = privateKeyToAccount(generatePrivateKey());
    const { url, verifier } = await authorizationUrl(a, client.client_id);
    const { code } = await signInForCode(url, account);
    const tokens = await exchange(a, client.client_id, code, verifier);
    const userinfo = await fetch(`${b.url}/me`, { headers: { authorization: `Bearer ${tokens.body.access_token}` } });
    expect(await userinfo.json()).toMatchObject({ sub: `eip155:1:${account.address}` });
  });
});

describe('a replica killed with SIGKILL under load', () => {
  it('every flow that had not reached the dead replica completes; the restarted replica serves old tokens', async () => {
    const issuerPort = await freePort();
    const env = deployment(issuerPort);
    const a = await startReplica(env, issuerPort);
    let b = await startReplica(env);
    const client = await registerPublicClient(a);
    const FLOWS = 24;
    const outcome = {
      attempted: FLOWS,
      completed: 0,
      completedAfterFailover: 0,
      failed: [] as string[],
      failedNeverOnDeadReplica: [] as string[],
    };
    const tokens: string[] = [];
    let bDown = false;

    // Each flow runs its steps on its own replica (sticky sessions). When its replica dies it
    // continues on the other, as a load balancer would send it; a request the dead replica was
    // answering when it died is not replayed if it had changed state (the code exchange).
    const flow = async (i: number) => {
      const home = i % 2 === 0 ? a : b;
      let failedOver = false;
      let lastStep = 'start';
      const step = async <T>(name: string, run: (replica: Replica) => Promise<T>): Promise<T> => {
        lastStep = name;
        const replica = home === b && bDown ? a : home;
        try {
          return await run(replica);
        } catch (error) {
          if (replica !== b || !bDown) throw error;
          failedOver = true;
          return run(a);
        }
      };
      try {
        const account = privateKeyToAccount(generatePrivateKey());
        const jar = new CookieJar();
        const { url, verifier } = await step('authorize', (r) => authorizationUrl(r, client.client_id));
        const interactionUrl = await step('authorize', (r) => startInteraction(jar, on(r, url)));
        const details = await step('details', (r) => getDetails(jar, on(r, interactionUrl)));
        const message = messageFor(details, account.address);
        const signature = await account.signMessage({ message });
        await new Promise((resolve) => setTimeout(resolve, (i % 6) * 40));
        const posted = await step('sign', (r) => postSignature(jar, on(r, interactionUrl), { message, signature }));
        if (posted.status !== 303) throw new Error(`interaction answered ${posted.status}`);
        const callback = await step('resume', (r) =>
          followToClient(
            jar,
            on(r, interactionUrl),
            on(r, new URL(posted.headers.get('location') as string, interactionUrl)).href,
          ),
        );
        const exchanged = await step('token', (r) =>
          exchange(r, client.client_id, callback.searchParams.get('code') as string, verifier),
        );
        if (exchanged.status !== 200) throw new Error(`token answered ${exchanged.status} ${exchanged.body.error}`);
        tokens.push(exchanged.body.access_token as string);
        if (failedOver) outcome.completedAfterFailover += 1;
        else outcome.completed += 1;
      } catch (error) {
        const reason = `flow ${i} (${home === a ? 'A' : 'B'}, at ${lastStep}): ${(error as Error).message}`;
        outcome.failed.push(reason);
        if (home === a) outcome.failedNeverOnDeadReplica.push(reason);
      }
    };

    const running = Array.from({ length: FLOWS }, (_, i) => flow(i));
    await new Promise((resolve) => setTimeout(resolve, 150));
    b.process.kill('SIGKILL');
    bDown = true;
    await b.exited;
    await Promise.all(running);
    console.log(`kill test: ${JSON.stringify(outcome)}`);

    // Every flow that never reached the dead replica completed; the others either completed
    // (resumed on A: their state was in Redis) or failed only where B died mid-request.
    expect(outcome.failedNeverOnDeadReplica).toEqual([]);
    expect(outcome.completed + outcome.completedAfterFailover + outcome.failed.length).toBe(FLOWS);
    expect(outcome.completed).toBeGreaterThanOrEqual(FLOWS / 2);
    for (const reason of outcome.failed) expect(reason).toMatch(/\(B, at (token|sign|resume)\)/);

    // The restarted replica serves every token issued before, whoever issued it.
    b = await startReplica(env);
    try {
      for (const token of tokens) {
        const userinfo = await fetch(`${b.url}/me`, { headers: { authorization: `Bearer ${token}` } });
        expect(userinfo.status).toBe(200);
      }
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});

describe('restarts lose nothing (SQLite and Redis)', () => {
  it.each([
    [
      'SQLite',
      () => {
        const dir = mkdtempSync(join(tmpdir(), 'signet-restart-'));
        dirs.push(dir);
        return `sqlite:${join(dir, 'signet.db')}`;
      },
    ],
    ['Redis', () => REDIS_URL],
  ])('%s: clients, keys, sessions and live tokens survive', async (_kind, storage) => {
    const port = await freePort();
    const env = deployment(port, storage());
    let replica = await startReplica(env, port);
    const client = await registerPublicClient(replica);
    const jwks = await (await fetch(`${replica.url}/jwks`)).json();
    const account = privateKeyToAccount(generatePrivateKey());
    const { url, verifier } = await authorizationUrl(replica, client.client_id);
    const { code, jar } = await signInForCode(url, account);
    const tokens = await exchange(replica, client.client_id, code, verifier);
    expect(await replica.stop('SIGTERM')).toBe(0);

    replica = await startReplica(env, port);
    try {
      expect(await (await fetch(`${replica.url}/jwks`)).json()).toEqual(jwks);
      const userinfo = await fetch(`${replica.url}/me`, { headers: { authorization: `Bearer ${tokens.body.access_token}` } });
      expect(await userinfo.json()).toMatchObject({ sub: `eip155:1:${account.address}` });
      // The session survived: the same browser gets a code without signing again.
      const again = await authorizationUrl(replica, client.client_id);
      const silent = await request(jar, again.url);
      expect(new URL(silent.headers.get('location') as string).searchParams.get('code')).toBeTruthy();
    } finally {
      await replica.stop();
    }
  });
});

describe('Redis outages', () => {
  let redis: RedisServer;
  let replica: Replica;
  beforeAll(async () => {
    redis = await startRedis();
    replica = await startReplica({ ...deployment(await freePort(), redis.url) });
  });
  afterAll(async () => {
    redis?.thaw();
    await replica?.stop();
    await redis?.stop();
  });

  const timed = async (run: () => Promise<Response>) => {
    const started = Date.now();
    const response = await run();
    return { response, ms: Date.now() - started };
  };

  it('down: /health says so and storage-bound requests answer 503 promptly; back: it recovers by itself', async () => {
    const client = await registerPublicClient(replica);
    await redis.stop();

    const health = await timed(() => fetch(`${replica.url}/health`));
    expect(health.response.status).toBe(503);
    expect(await health.response.json()).toMatchObject({ status: 'unavailable' });
    expect(health.ms).toBeLessThan(5000);

    const registration = await timed(() =>
      fetch(`${replica.url}/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [REDIRECT_URI] }),
      }),
    );
    expect(registration.response.status).toBe(503);
    expect((await registration.response.json()).error).toBe('temporarily_unavailable');
    expect(registration.ms).toBeLessThan(5000);

    const { url } = await authorizationUrl(replica, client.client_id);
    const authorize = await timed(() => fetch(url, { redirect: 'manual' }));
    expect(authorize.response.status).toBe(503);
    expect(authorize.ms).toBeLessThan(5000);

    await redis.start();
    await expect.poll(async () => (await fetch(`${replica.url}/health`)).status, { timeout: 10_000, interval: 200 }).toBe(200);
    // The client registered before the outage is still there (Redis persisted it), and sign-ins work again.
    const jar = new CookieJar();
    const again = await authorizationUrl(replica, client.client_id);
    const interactionUrl = await startInteraction(jar, again.url);
    expect(interactionUrl.pathname).toMatch(/^\/interaction\//);
    expect(replica.process.exitCode).toBeNull();
  });

  it('frozen (connections open, no answers): bounded by the command timeout, not a hang', async () => {
    redis.freeze();
    try {
      const health = await timed(() => fetch(`${replica.url}/health`));
      expect(health.response.status).toBe(503);
      expect(health.ms).toBeLessThan(6000);
    } finally {
      redis.thaw();
    }
    await expect.poll(async () => (await fetch(`${replica.url}/health`)).status, { timeout: 10_000, interval: 200 }).toBe(200);
    const metrics = await (await fetch(`${replica.url}/metrics`)).text();
    expect(metrics).toMatch(/signet_storage_errors_total\{[^}]*\} [1-9]/);
  });
});

describe('graceful shutdown', () => {
  it('SIGTERM: in-flight requests finish, new connections are refused, the process exits 0', async () => {
    // An ENS node that takes 1.5 s to answer makes the sign-in slow enough to be caught in flight.
    const { createServer } = await import('node:http');
    const slow = createServer((_req, res) => {
      setTimeout(
        () =>
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end('{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"nope"}}'),
        1500,
      );
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const port = await freePort();
    const replica = await startReplica(
      {
        ...deployment(port, 'memory:'),
        ENS_RPC_URL: `http://127.0.0.1:${(slow.address() as { port: number }).port}`,
        ENS_TIMEOUT_MS: '5000',
      },
      port,
    );
    try {
      const client = await registerPublicClient(replica);
      const account = privateKeyToAccount(generatePrivateKey());
      const { url } = await authorizationUrl(replica, client.client_id);
      const jar = new CookieJar();
      const interactionUrl = await startInteraction(jar, url);
      const details = await getDetails(jar, interactionUrl);
      const message = messageFor(details, account.address);
      const inFlight = postSignature(jar, interactionUrl, { message, signature: await account.signMessage({ message }) });
      await new Promise((resolve) => setTimeout(resolve, 300));
      replica.process.kill('SIGTERM');
      const response = await inFlight;
      expect(response.status).toBe(303);
      expect(await replica.exited).toBe(0);
      await expect(fetch(`${replica.url}/health`)).rejects.toThrow();
    } finally {
      slow.closeAllConnections();
      slow.close();
      await replica.stop();
    }
  });
});
