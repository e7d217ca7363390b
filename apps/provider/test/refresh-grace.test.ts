/**
 * Refresh-token rotation that survives a lost response (REFRESH_REUSE_GRACE_SECONDS, refresh/):
 * a rotated refresh token presented again within the window answers the same successor pair, on
 * any replica and every shared storage (Redis, a Redis Cluster, PostgreSQL: two providers on one);
 * two refreshes of one token at once get one rotation and the same pair; after the window, or
 * once the successor was used, a reuse ends the whole grant; revocation, logout and the removal
 * of a wallet's sign-ins win inside the window. No token or refresh token is ever logged.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '@signet/provider';
import {
  CookieJar,
  formValue,
  type getDetails,
  messageFor,
  pkceAuthorization,
  request,
  startTestProvider,
  TEST_REDIRECT_URI,
  type TestProvider,
  walletSignIn,
} from '@signet/testkit';
import { postgresSchema, type TestSchema } from '@signet/testkit/postgres';
import { type RedisCluster, startRedisCluster } from '@signet/testkit/redis';
import * as oidc from 'openid-client';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const insecure = { execute: [oidc.allowInsecureRequests] };
const key = () => privateKeyToAccount(generatePrivateKey());
type Answer = { status: number; body: Record<string, unknown> };

/** The token endpoint, as a public client sends a refresh (read as JSON, whatever the status). */
async function refresh(
  provider: TestProvider,
  clientId: string,
  refreshToken: string,
  extra: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${provider.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, ...extra }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * A public client with the refresh_token grant, and a sign-in's tokens: with `offline_access` on
 * self-hosted (where refresh tokens need it), without on hosted (where they end with the session).
 */
async function signedIn(provider: TestProvider, signer: PrivateKeyAccount = key()) {
  const config = await oidc.dynamicClientRegistration(
    new URL(provider.issuer),
    {
      redirect_uris: [TEST_REDIRECT_URI],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
    },
    oidc.None(),
    insecure,
  );
  const selfHosted = provider.config.profile === 'self-hosted';
  const { url, verifier } = await pkceAuthorization(
    config,
    selfHosted ? { scope: 'openid offline_access', prompt: 'consent' } : {},
  );
  const { callbackUrl, jar } = await walletSignIn({ authorizationUrl: url, signer });
  const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier });
  expect(tokens.refresh_token).toBeTruthy();
  return { clientId: config.clientMetadata().client_id, tokens, jar };
}

/** A provider of the describe's own, with these settings. */
function providerWith(settings: Record<string, string>, options: Parameters<typeof startTestProvider>[1] = {}) {
  const state: { provider?: TestProvider } = {};
  beforeAll(async () => {
    state.provider = await startTestProvider(settings, options);
  });
  afterAll(() => state.provider?.stop());
  return () => state.provider as TestProvider;
}

const ended = (answer: Answer) => {
  expect(answer.status).toBe(400);
  expect(answer.body.error).toBe('invalid_grant');
};

describe.each([
  // One process: the two "replicas" are one provider (memory is one process's own).
  ['memory (one provider)', async () => ({ url: 'memory:', stop: async () => {}, single: true })],
  [
    'one SQLite file',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'signet-grace-'));
      return { url: `sqlite:${join(dir, 'signet.db')}`, stop: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  ],
  ['Redis', async () => ({ url: REDIS_URL, stop: async () => {} })],
  [
    'a Redis Cluster',
    async () => {
      const cluster: RedisCluster = await startRedisCluster(3);
      return { url: cluster.url, stop: () => cluster.stop() };
    },
  ],
  [
    'PostgreSQL',
    async () => {
      const schema: TestSchema = postgresSchema();
      return { url: schema.url, stop: () => schema.drop() };
    },
  ],
])('a lost response, two replicas on %s', (_name, storage) => {
  let a: TestProvider;
  let b: TestProvider;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    const shared: { url: string; stop(): Promise<void>; single?: boolean } = await storage();
    stop = shared.stop;
    const settings = { STORAGE_URL: shared.url, STORAGE_PREFIX: `signet-test:grace:${crypto.randomUUID()}:` };
    a = await startTestProvider(settings);
    b = shared.single ? a : await startTestProvider({ ...settings, ISSUER: a.url });
  }, 60_000);
  afterAll(async () => {
    await a?.stop();
    if (b !== a) await b?.stop();
    await stop?.();
  });

  it('the rotated token again, on the other replica, answers the same pair; the successor then rotates as usual', async () => {
    const { clientId, tokens } = await signedIn(a);
    const first = await refresh(a, clientId, tokens.refresh_token as string);
    expect(first.status).toBe(200);
    expect(first.body.refresh_token).not.toBe(tokens.refresh_token);
    // Its answer was lost: the client presents the old token again, to the other replica.
    const again = await refresh(b, clientId, tokens.refresh_token as string);
    expect(again.status).toBe(200);
    expect(again.body.refresh_token).toBe(first.body.refresh_token);
    expect(again.body.access_token).toBe(first.body.access_token);
    expect(again.body.id_token).toBe(first.body.id_token);
    expect(Number(again.body.expires_in)).toBeLessThanOrEqual(Number(first.body.expires_in));
    const next = await refresh(b, clientId, again.body.refresh_token as string);
    expect(next.status).toBe(200);
    expect(next.body.refresh_token).not.toBe(again.body.refresh_token);
  });

  it('two refreshes of one token at once, one on each replica: one rotation, the same pair to both, the grant lives', async () => {
    const { clientId, tokens } = await signedIn(a);
    const [one, two] = await Promise.all([
      refresh(a, clientId, tokens.refresh_token as string),
      refresh(b, clientId, tokens.refresh_token as string),
    ]);
    expect([one.status, two.status]).toEqual([200, 200]);
    expect(two.body.refresh_token).toBe(one.body.refresh_token);
    expect(two.body.access_token).toBe(one.body.access_token);
    expect((await refresh(a, clientId, one.body.refresh_token as string)).status).toBe(200);
  });
});

describe('inside and after the window (memory)', () => {
  const lines: string[] = [];
  const logs = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const current = providerWith(
    { REFRESH_REUSE_GRACE_SECONDS: '60', LOG_LEVEL: 'debug' },
    { logger: createLogger('debug', logs, 'json') },
  );
  let provider: TestProvider;
  beforeAll(() => {
    provider = current();
  });

  it('once the successor was used, the old token again ends the whole grant', async () => {
    const { clientId, tokens } = await signedIn(provider);
    const first = await refresh(provider, clientId, tokens.refresh_token as string);
    const next = await refresh(provider, clientId, first.body.refresh_token as string);
    expect(next.status).toBe(200);
    ended(await refresh(provider, clientId, tokens.refresh_token as string));
    ended(await refresh(provider, clientId, next.body.refresh_token as string));
  });

  it('a replay asking another scope is no replay: a reuse, and the grant ends', async () => {
    const { clientId, tokens } = await signedIn(provider);
    const first = await refresh(provider, clientId, tokens.refresh_token as string);
    ended(await refresh(provider, clientId, tokens.refresh_token as string, { scope: 'openid' }));
    ended(await refresh(provider, clientId, first.body.refresh_token as string));
  });

  it('revocation wins: the successor revoked, the old token again is refused and nothing comes back', async () => {
    const { clientId, tokens } = await signedIn(provider);
    const first = await refresh(provider, clientId, tokens.refresh_token as string);
    const revoked = await fetch(`${provider.url}/token/revocation`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: first.body.refresh_token as string, client_id: clientId }),
    });
    expect(revoked.status).toBe(200);
    ended(await refresh(provider, clientId, tokens.refresh_token as string));
    ended(await refresh(provider, clientId, first.body.refresh_token as string));
  });

  it("the removal of a wallet's sign-ins wins (its account deleted on /account)", async () => {
    const signer = key();
    const { clientId, tokens } = await signedIn(provider, signer);
    const first = await refresh(provider, clientId, tokens.refresh_token as string);
    const jar = new CookieJar();
    const page = (method: string, path: string, body?: unknown) =>
      request(jar, new URL(path, provider.url), {
        method,
        headers: { accept: 'application/json', 'content-type': 'application/json', origin: new URL(provider.url).origin },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const details = (await (await page('GET', '/account/reauth')).json()) as Awaited<ReturnType<typeof getDetails>>;
    const message = messageFor(details, signer.address);
    expect((await page('POST', '/account/reauth', { message, signature: await signer.signMessage({ message }) })).status).toBe(
      200,
    );
    expect((await page('DELETE', '/account')).status).toBe(204);
    ended(await refresh(provider, clientId, tokens.refresh_token as string));
    ended(await refresh(provider, clientId, first.body.refresh_token as string));
  });

  it('no access token, refresh token or ID token appears in the logs', async () => {
    const { clientId, tokens } = await signedIn(provider);
    const first = await refresh(provider, clientId, tokens.refresh_token as string);
    await refresh(provider, clientId, tokens.refresh_token as string);
    const secrets = [
      tokens.refresh_token,
      tokens.access_token,
      first.body.refresh_token,
      first.body.access_token,
      first.body.id_token,
    ];
    const logged = lines.join('');
    expect(logged.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(logged).not.toContain(secret as string);
  });
});

describe('after the window (REFRESH_REUSE_GRACE_SECONDS=1)', () => {
  const provider = providerWith({ REFRESH_REUSE_GRACE_SECONDS: '1' });

  it('the old token again is a reuse: the whole grant ends, the successor with it', async () => {
    const { clientId, tokens } = await signedIn(provider());
    const first = await refresh(provider(), clientId, tokens.refresh_token as string);
    expect(first.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    ended(await refresh(provider(), clientId, tokens.refresh_token as string));
    ended(await refresh(provider(), clientId, first.body.refresh_token as string));
  });
});

describe('REFRESH_REUSE_GRACE_SECONDS=0: every reuse ends the grant, as oidc-provider does', () => {
  const provider = providerWith({ REFRESH_REUSE_GRACE_SECONDS: '0' });

  it('the old token again, at once: the grant ends', async () => {
    const { clientId, tokens } = await signedIn(provider());
    const first = await refresh(provider(), clientId, tokens.refresh_token as string);
    ended(await refresh(provider(), clientId, tokens.refresh_token as string));
    ended(await refresh(provider(), clientId, first.body.refresh_token as string));
  });
});

describe('hosted: logout inside the window wins (refresh tokens there end with the session)', () => {
  const provider = providerWith({ PROFILE: 'hosted' });

  it('after the person signs out, the old token again is refused, and so is its successor', async () => {
    const { clientId, tokens, jar } = await signedIn(provider());
    const first = await refresh(provider(), clientId, tokens.refresh_token as string);
    expect(first.status).toBe(200);
    const endSession = new URL(`${provider().url}/session/end`);
    endSession.search = new URLSearchParams({ id_token_hint: tokens.id_token as string }).toString();
    const logoutPage = await (await request(jar, endSession)).text();
    const done = await request(jar, new URL(`${provider().url}/session/end/confirm`), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xsrf: formValue(logoutPage, 'xsrf') as string, logout: 'yes' }),
    });
    expect(done.status).toBe(303);
    ended(await refresh(provider(), clientId, tokens.refresh_token as string));
    ended(await refresh(provider(), clientId, first.body.refresh_token as string));
  });
});
