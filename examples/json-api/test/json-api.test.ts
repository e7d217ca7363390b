import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createSiweMessage } from '@signet/siwe';
import { ERC1271_ANSWER_SHAPES, realWallets, startTestchain } from '@signet/testchain';
import { freePort, waitForListener } from '@signet/testkit/ports';
import { Hono } from 'hono';
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import {
  buildJsonApi,
  createMemoryNonceStore,
  createRedisNonceStore,
  createTokens,
  enhancedVerifierFor,
  HttpError,
  loadJsonApiConfig,
  localDevelopmentDomains,
  MESSAGES,
  NONCE_MAX_AGE_MS,
  type NonceStore,
  validateAddress,
} from '../src/index.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const T0 = Date.parse('2025-07-01T12:00:00Z');
const minutes = (n: number) => n * 60_000;
const account = privateKeyToAccount(generatePrivateKey());
const stores: NonceStore[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
});

const storeFactories: [string, () => NonceStore][] = [
  ['memory', () => createMemoryNonceStore()],
  ['redis', () => createRedisNonceStore(REDIS_URL, { prefix: `signet-test:nonce:${randomUUID()}:` })],
];

describe.each(storeFactories)('nonce store (%s): every row of the state table', (_kind, factory) => {
  it('(none) → unused → used; used stays used; absent is not found', async () => {
    const store = factory();
    stores.push(store);
    const nonce = await store.create(T0);
    expect(nonce).toMatch(/^[A-Za-z0-9]{8,}$/);
    expect(await store.stats(T0)).toEqual({ total: 1, used: 0, expired: 0, available: 1 });
    expect(await store.consume(nonce, T0 + minutes(10))).toBe('ok'); // age of exactly 10 minutes is allowed
    expect(await store.consume(nonce, T0 + minutes(10))).toBe('used');
    expect(await store.consume('neverIssued123', T0)).toBe('not-found');
    expect(await store.stats(T0 + minutes(1))).toEqual({ total: 1, used: 1, expired: 0, available: 0 });
  });

  it('unused and older than 10 minutes → expired and removed', async () => {
    const store = factory();
    stores.push(store);
    const nonce = await store.create(T0);
    expect(await store.consume(nonce, T0 + NONCE_MAX_AGE_MS + 1)).toBe('expired');
    expect(await store.consume(nonce, T0 + NONCE_MAX_AGE_MS + 2)).toBe('not-found');
  });

  it('stats count expired records until cleanup removes everything older than 10 minutes', async () => {
    const store = factory();
    stores.push(store);
    const old = await store.create(T0);
    const oldUsed = await store.create(T0);
    await store.consume(oldUsed, T0 + 1000);
    await store.create(T0 + minutes(8));
    const later = T0 + minutes(11);
    expect(await store.stats(later)).toEqual({ total: 3, used: 1, expired: 1, available: 1 });
    expect(await store.cleanup(later)).toBe(2);
    expect(await store.stats(later)).toEqual({ total: 1, used: 0, expired: 0, available: 1 });
    expect(await store.consume(old, later)).toBe('not-found');
  });
});

function api(env: Record<string, string> = {}, options: Parameters<typeof buildJsonApi>[1] = {}) {
  return buildJsonApi(loadJsonApiConfig({ NODE_ENV: 'test', ...env }), options);
}

async function signed(nonce: string, overrides: Partial<Parameters<typeof createSiweMessage>[0]> = {}) {
  const message = createSiweMessage({
    domain: 'localhost:3003',
    address: account.address,
    uri: 'http://localhost:3003',
    chainId: 1,
    nonce,
    issuedAt: new Date(T0),
    expirationTime: new Date(T0 + minutes(30)),
    ...overrides,
  });
  return { message, signature: await account.signMessage({ message }) };
}

const post = (app: Hono, path: string, body: unknown, headers: Record<string, string> = {}) =>
  app.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** What a refusal case needs: application B, a fresh nonce from it, and its clock. */
type RoutesContext = { b: ReturnType<typeof api>; newNonce: () => Promise<string>; setNow: (ms: number) => void };

/** Each refusal of the routes: its name, how to get it, and its status and message. */
const refusalCases: [string, (ctx: RoutesContext) => Promise<Response>, number, string][] = [
  ['missing signature', async ({ b }) => post(b.app, '/auth/verify', { message: 'x' }), 400, MESSAGES.missingInput],
  ['missing message', async ({ b }) => post(b.app, '/auth/verify', { signature: '0x' }), 400, MESSAGES.missingInput],
  ['nonce not found', async ({ b }) => post(b.app, '/auth/verify', await signed('neverIssued1234')), 400, MESSAGES.nonceNotFound],
  [
    'nonce already used',
    async ({ b, newNonce }) => {
      const body = await signed(await newNonce());
      await post(b.app, '/auth/verify', body);
      return post(b.app, '/auth/verify', body);
    },
    400,
    MESSAGES.nonceUsed,
  ],
  [
    'nonce expired',
    async ({ b, newNonce, setNow }) => {
      const nonce = await newNonce();
      setNow(T0 + minutes(11));
      try {
        return await post(b.app, '/auth/verify', await signed(nonce, { expirationTime: new Date(T0 + minutes(60)) }));
      } finally {
        setNow(T0);
      }
    },
    400,
    MESSAGES.nonceExpired,
  ],
  [
    'domain not allowed',
    async ({ b, newNonce }) => post(b.app, '/auth/verify', await signed(await newNonce(), { domain: 'evil.example.com' })),
    400,
    'Invalid domain: evil.example.com',
  ],
  [
    'expired message',
    async ({ b, newNonce }) => post(b.app, '/auth/verify', await signed(await newNonce(), { expirationTime: new Date(T0 - 1) })),
    400,
    MESSAGES.expired,
  ],
  [
    'not yet valid',
    async ({ b, newNonce }) =>
      post(b.app, '/auth/verify', await signed(await newNonce(), { notBefore: new Date(T0 + minutes(5)) })),
    400,
    MESSAGES.notYetValid,
  ],
  [
    'invalid signature',
    async ({ b, newNonce }) => {
      const { message } = await signed(await newNonce());
      const other = privateKeyToAccount(generatePrivateKey());
      return post(b.app, '/auth/verify', { message, signature: await other.signMessage({ message }) });
    },
    401,
    MESSAGES.invalidSignature,
  ],
  [
    'unparsable message (the spec sends it to the outer handler)',
    async ({ b }) => post(b.app, '/auth/verify', { message: 'hello', signature: '0x00' }),
    500,
    MESSAGES.verificationFailed,
  ],
  ['unknown route', async ({ b }) => b.app.request('/nope'), 404, MESSAGES.routeNotFound],
];

describe('application B: routes, order, messages and statuses', () => {
  let now = T0;
  const b = api({}, { now: () => now });
  const newNonce = async () => (await (await b.app.request('/auth/nonce')).json()).nonce as string;

  it('GET /health', async () => {
    const response = await b.app.request('/health');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'OK', timestamp: new Date(T0).toISOString(), message: MESSAGES.healthy });
  });

  it('GET /auth/nonce, then POST /auth/verify: 200 with the verified user', async () => {
    now = T0;
    const nonceResponse = await b.app.request('/auth/nonce');
    expect(nonceResponse.status).toBe(200);
    const { success, nonce } = await nonceResponse.json();
    expect(success).toBe(true);
    const response = await post(b.app, '/auth/verify', await signed(nonce));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      success: true,
      token: expect.any(String),
      user: {
        namespace: 'eip155',
        address: account.address,
        domain: 'localhost:3003',
        chainId: 1,
        issuedAt: new Date(T0).toISOString(),
        expirationTime: new Date(T0 + minutes(30)).toISOString(),
      },
      message: MESSAGES.authenticated,
    });
  });

  const ctx: RoutesContext = {
    b,
    newNonce,
    setNow: (ms) => {
      now = ms;
    },
  };

  it.each(refusalCases)('%s', async (_name, run, status, message) => {
    const response = await run(ctx);
    const body = await response.json();
    expect({ status: response.status, success: body.success, message: body.error?.message }).toEqual({
      status,
      success: false,
      message,
    });
  });

  it('the processing order: nonce before domain, domain before time, time before signature', async () => {
    const other = privateKeyToAccount(generatePrivateKey());
    const bad = async (overrides: Partial<Parameters<typeof createSiweMessage>[0]>) => {
      const { message } = await signed(overrides.nonce ?? (await newNonce()), overrides);
      return (await (await post(b.app, '/auth/verify', { message, signature: await other.signMessage({ message }) })).json())
        .error.message;
    };
    expect(await bad({ nonce: 'unknownNonce123', domain: 'evil.example.com' })).toBe(MESSAGES.nonceNotFound);
    expect(await bad({ domain: 'evil.example.com', expirationTime: new Date(T0 - 1) })).toBe('Invalid domain: evil.example.com');
    expect(await bad({ expirationTime: new Date(T0 - 1) })).toBe(MESSAGES.expired);
  });

  it('details for signature failures and verification failures; stack only in development', async () => {
    const { message } = await signed(await newNonce());
    const invalid = await (await post(b.app, '/auth/verify', { message, signature: `0x${'12'.repeat(65)}` })).json();
    expect(invalid.error.details).toMatchObject({ type: 'INVALID_SIGNATURE' });
    expect(invalid.error).not.toHaveProperty('stack');

    const dev = api({ NODE_ENV: 'development' });
    const failing = await (await post(dev.app, '/auth/verify', { message: 'hello', signature: '0x00' })).json();
    expect(failing.error.details).toMatchObject({ type: 'UNABLE_TO_PARSE' });
    expect(failing.error.stack).toEqual(expect.stringContaining('HttpError'));
  });

  it('POST /auth/logout invalidates nothing and says so', async () => {
    expect(await (await b.app.request('/auth/logout', { method: 'POST' })).json()).toEqual({
      success: true,
      message: MESSAGES.loggedOut,
    });
  });

  it('JSON bodies up to 10 MB; larger is 413 in the envelope', async () => {
    const big = JSON.stringify({ message: 'x'.repeat(10 * 1024 * 1024), signature: '0x' });
    const response = await post(b.app, '/auth/verify', big);
    expect(response.status).toBe(413);
    expect((await response.json()).error.message).toBe(MESSAGES.tooLarge);
    const almost = JSON.stringify({ message: 'x'.repeat(9 * 1024 * 1024), signature: '0x' });
    expect((await post(b.app, '/auth/verify', almost)).status).not.toBe(413);
  });
});

describe('application B: routes, order, messages and statuses (each on an app of its own)', () => {
  it('Failed to generate nonce (500), with the stack only in development', async () => {
    const broken: NonceStore = { ...createMemoryNonceStore(), create: async () => Promise.reject(new Error('store down')) };
    for (const [env, hasStack] of [
      ['development', true],
      ['production', false],
    ] as const) {
      const app = api(
        { NODE_ENV: env, FRONTEND_DOMAIN: 'app.example.com', TOKEN_SECRET: 'a-token-secret-of-at-least-32-characters' },
        { nonces: broken },
      ).app;
      const response = await app.request('/auth/nonce');
      const body = await response.json();
      expect(response.status).toBe(500);
      expect(body.error.message).toBe(MESSAGES.nonceFailed);
      expect('stack' in body.error).toBe(hasStack);
    }
  });

  it('GET /auth/stats: available = total - used - expired; 404 in production', async () => {
    const fresh = api({}, { now: () => T0 });
    const n1 = (await (await fresh.app.request('/auth/nonce')).json()).nonce;
    await (await fresh.app.request('/auth/nonce')).json();
    await post(fresh.app, '/auth/verify', await signed(n1));
    expect(await (await fresh.app.request('/auth/stats')).json()).toEqual({
      success: true,
      stats: { total: 2, used: 1, expired: 0, available: 1 },
    });
    const prod = api({
      NODE_ENV: 'production',
      FRONTEND_DOMAIN: 'app.example.com',
      TOKEN_SECRET: 'a-token-secret-of-at-least-32-characters',
    });
    const hidden = await prod.app.request('/auth/stats');
    expect(hidden.status).toBe(404);
    expect((await hidden.json()).error.message).toBe(MESSAGES.routeNotFound);
  });

  it('100 requests per client per 15 minutes, then 429 with the spec message', async () => {
    let t = T0;
    const limited = api({}, { now: () => t });
    for (let i = 0; i < 100; i++) expect((await limited.app.request('/health')).status).toBe(200);
    const refused = await limited.app.request('/health');
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      success: false,
      error: { message: 'Too many requests from this IP, please try again later.' },
    });
    t += minutes(15);
    expect((await limited.app.request('/health')).status).toBe(200);
  });

  it('the domain allow-list holds the local development values and FRONTEND_DOMAIN; CORS allows only the frontend', async () => {
    const config = loadJsonApiConfig({ FRONTEND_DOMAIN: 'app.example.com' });
    expect(config.allowedDomains).toEqual([...localDevelopmentDomains(3003), 'app.example.com']);
    expect(config.allowedDomains).not.toContain('localhost:3000');
    expect(
      loadJsonApiConfig({
        NODE_ENV: 'production',
        FRONTEND_DOMAIN: 'app.example.com',
        TOKEN_SECRET: 'a-token-secret-of-at-least-32-characters',
      }).allowedDomains,
    ).toEqual(['app.example.com']);
    expect(() => loadJsonApiConfig({ NODE_ENV: 'production' })).toThrow(/^FRONTEND_DOMAIN: is required in production/);
    const withFrontend = api({ FRONTEND_DOMAIN: 'app.example.com' }, { now: () => T0 });
    const nonce = (await (await withFrontend.app.request('/auth/nonce')).json()).nonce;
    expect((await post(withFrontend.app, '/auth/verify', await signed(nonce, { domain: 'app.example.com' }))).status).toBe(200);
    const allowed = await withFrontend.app.request('/health', { headers: { origin: 'https://app.example.com' } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    const other = await withFrontend.app.request('/health', { headers: { origin: 'https://evil.example.com' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(allowed.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('application B: helpers', () => {
  const app = new Hono();
  const secret = 'a-token-secret-of-at-least-32-characters';
  const tokens = createTokens({ secret, now: () => T0 });
  app.onError((error, c) => c.json({ message: error.message }, (error instanceof HttpError ? error.status : 500) as 400));
  app.get('/private', tokens.requireAuth, (c) => c.json({ ok: true }));
  app.get('/accounts/:address', validateAddress('address'), (c) => c.json({ ok: true }));
  app.post('/accounts', validateAddress('address'), (c) => c.json({ ok: true }));

  it('requireAuth: the spec statuses and messages, and a made-up token of 10+ characters is refused', async () => {
    const real = await tokens.issue({ address: account.address, chainId: 1 });
    const forged = await createTokens({ secret: 'another-secret-of-at-least-32-characters', now: () => T0 }).issue({
      address: account.address,
      chainId: 1,
    });
    const expired = await createTokens({ secret, now: () => T0 - minutes(61) }).issue({ address: account.address, chainId: 1 });
    for (const [authorization, status, message] of [
      [undefined, 401, 'Authorization header required'],
      ['Bearer short', 401, 'Invalid authorization token'],
      ['Bearer 0123456789', 401, 'Invalid authorization token'],
      ['0123456789', 401, 'Invalid authorization token'],
      [`Bearer ${forged}`, 401, 'Invalid authorization token'],
      [`Bearer ${expired}`, 401, 'Invalid authorization token'],
      [`Bearer ${real}`, 200, undefined],
    ] as const) {
      const response = await app.request('/private', { headers: authorization ? { authorization } : {} });
      expect(response.status, authorization).toBe(status);
      if (message) expect((await response.json()).message).toBe(message);
    }
  });

  it('validateAddress: required, format, from the path or the body', async () => {
    expect((await app.request(`/accounts/${account.address}`)).status).toBe(200);
    const badPath = await app.request('/accounts/0x123');
    expect(badPath.status).toBe(400);
    expect((await badPath.json()).message).toBe('Invalid Ethereum address format');
    const missing = await post(app, '/accounts', {});
    expect(missing.status).toBe(400);
    expect((await missing.json()).message).toBe('address is required');
    expect((await post(app, '/accounts', { address: account.address.toLowerCase() })).status).toBe(200);
    expect((await post(app, '/accounts', { address: 'not-an-address' })).status).toBe(400);
  });

  it('the enhanced verifier: the spec defaults with this API’s allow-list', async () => {
    const verify = enhancedVerifierFor(loadJsonApiConfig({}));
    const ok = await signed('abcdefghijkl', { issuedAt: new Date(T0 - minutes(1)) });
    await expect(verify({ ...ok, time: T0 })).resolves.toMatchObject({ address: account.address });
    const tooOld = await signed('abcdefghijkl', { issuedAt: new Date(T0 - minutes(11)) });
    await expect(verify({ ...tooOld, time: T0 })).rejects.toMatchObject({ type: 'MESSAGE_TOO_OLD' });
    const polygon = await signed('abcdefghijkl', { chainId: 137 });
    await expect(verify({ ...polygon, time: T0 })).rejects.toMatchObject({ type: 'CHAIN_NOT_ALLOWED' });
  });
});

describe('application B: two instances sharing one Redis nonce store', () => {
  it('never accept one nonce twice, even when the same message hits both at once', async () => {
    const prefix = `signet-test:shared:${randomUUID()}:`;
    const storeA = createRedisNonceStore(REDIS_URL, { prefix });
    const storeB = createRedisNonceStore(REDIS_URL, { prefix });
    stores.push(storeA, storeB);
    const a = api({}, { nonces: storeA, now: () => T0 });
    const b = api({}, { nonces: storeB, now: () => T0 });
    for (let round = 0; round < 5; round++) {
      const nonce = (await (await a.app.request('/auth/nonce')).json()).nonce;
      const body = await signed(nonce);
      const responses = await Promise.all(Array.from({ length: 6 }, (_, i) => post((i % 2 ? a : b).app, '/auth/verify', body)));
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 400, 400, 400, 400, 400]);
      const messages = await Promise.all(
        responses.filter((r) => r.status === 400).map(async (r) => (await r.json()).error.message),
      );
      expect(new Set(messages)).toEqual(new Set([MESSAGES.nonceUsed]));
    }
  });
});

describe('application B: hostile input and the checks the review asked for', () => {
  const now = T0;
  const newNonce = async (b: ReturnType<typeof api>) => (await (await b.app.request('/auth/nonce')).json()).nonce as string;

  it('the provider`s domain (localhost:3000) is not in the default allow-list', async () => {
    const b = api({}, { now: () => now });
    const response = await post(b.app, '/auth/verify', await signed(await newNonce(b), { domain: 'localhost:3000' }));
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toBe(MESSAGES.invalidDomain('localhost:3000'));
  });

  it('chains: CHAIN_IDS (default 1) is enforced; chain 999 is refused', async () => {
    const b = api({}, { now: () => now });
    const refused = await post(b.app, '/auth/verify', await signed(await newNonce(b), { chainId: 999 }));
    expect(refused.status).toBe(400);
    expect((await refused.json()).error.message).toBe(MESSAGES.invalidChain(999));
    const other = api({ CHAIN_IDS: '1,10' }, { now: () => now });
    expect((await post(other.app, '/auth/verify', await signed(await newNonce(other), { chainId: 10 }))).status).toBe(200);
  });

  it('a 9 MB message: 500 Verification failed whose details are the library`s typed error, never a runtime exception`s text', async () => {
    for (const environment of ['development', 'production'] as const) {
      const b = api(
        { NODE_ENV: environment, FRONTEND_DOMAIN: 'app.example.com', TOKEN_SECRET: 'a-token-secret-of-at-least-32-characters' },
        { now: () => now },
      );
      const response = await post(b.app, '/auth/verify', { message: `${'a'.repeat(9 * 1024 * 1024)}`, signature: '0x00' });
      expect(response.status).toBe(500);
      const { error } = await response.json();
      expect(error.message).toBe(MESSAGES.verificationFailed);
      expect(error.details).toMatchObject({ type: 'UNABLE_TO_PARSE' });
      expect(JSON.stringify(error)).not.toMatch(/RangeError|Maximum call stack/);
      if (environment === 'production') expect(error.stack).toBeUndefined();
    }
  });

  it('/auth/verify returns a signed, short-lived token that GET /auth/me accepts; a made-up one is refused', async () => {
    const b = api({}, { now: () => now });
    const verified = await post(b.app, '/auth/verify', await signed(await newNonce(b)));
    expect(verified.status).toBe(200);
    const { token } = await verified.json();
    expect(token.split('.')).toHaveLength(3);
    const me = await b.app.request('/auth/me', { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual({ success: true, user: { address: account.address, chainId: 1, namespace: 'eip155' } });
    const madeUp = await b.app.request('/auth/me', { headers: { authorization: 'Bearer 0123456789abcdef' } });
    expect(madeUp.status).toBe(401);
    expect((await madeUp.json()).error.message).toBe('Invalid authorization token');
  });

  it('listens on loopback by default (HOST), every interface only when asked', async () => {
    const listen = async (env: Record<string, string>) => {
      const port = await freePort();
      const child = spawn(
        process.execPath,
        ['--conditions=@signet/source', '--import', 'tsx', join(import.meta.dirname, '..', 'src', 'server.ts')],
        { env: { ...process.env, PORT: String(port), ...env }, stdio: 'ignore' },
      );
      try {
        return await waitForListener(port);
      } finally {
        child.kill('SIGTERM');
      }
    };
    expect(await listen({})).toEqual(['127.0.0.1']);
    expect(await listen({ HOST: '::' })).toEqual(['::']);
    expect(() => loadJsonApiConfig({ HOST: 'a b' })).toThrow(/^HOST: must be an IP address/);
  });

  it('production needs TOKEN_SECRET', () => {
    expect(() => loadJsonApiConfig({ NODE_ENV: 'production', FRONTEND_DOMAIN: 'app.example.com' })).toThrow(/^TOKEN_SECRET:/);
  });
});

describe('application B: real third-party wallets (Safe, EIP-7702, a deployed verifier, a hostile wallet)', () => {
  it('a Safe signed on chain (0x), ERC-8010, EIP-6492 through SIGNATURE_VERIFIERS, and a gas burner refused in words', async () => {
    const chain = await startTestchain({ chainId: 1, ens: false });
    try {
      const wallets = await realWallets(chain);
      const verifier = await wallets.deployVerifier();
      const now = Date.now();
      // No registry handed in: the API builds its own from its settings, SIGNATURE_VERIFIERS included.
      const b = api({ ETH_RPC_URL: chain.url, SIGNATURE_VERIFIERS: `1=${verifier}` }, { now: () => now });
      const verify = async (address: `0x${string}`, sign: (message: string) => Promise<Hex>) => {
        const { nonce } = (await (await b.app.request('/auth/nonce')).json()) as { nonce: string };
        const message = createSiweMessage({
          domain: 'localhost:3003',
          address,
          uri: 'http://localhost:3003',
          chainId: 1,
          nonce,
          issuedAt: new Date(now),
          expirationTime: new Date(now + minutes(10)),
        });
        const response = await post(b.app, '/auth/verify', { message, signature: await sign(message) });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      };
      const [a, c] = [privateKeyToAccount(generatePrivateKey()), privateKeyToAccount(generatePrivateKey())];

      const safe = await wallets.safe.deploy([a.address, c.address], 2, 401n);
      const onChain = await verify(safe, async (message) => {
        await wallets.safe.signOnChain(safe, message, [a, c]);
        return '0x';
      });
      expect(onChain.status).toBe(200);
      expect(onChain.body.user).toMatchObject({ address: safe, chainId: 1 });

      const eoa = privateKeyToAccount(generatePrivateKey());
      expect((await verify(eoa.address, (m) => wallets.eip7702.signWithAuthorization(eoa, m))).status).toBe(200);

      const cf = await wallets.safe.counterfactual([a.address, c.address], 2, 402n);
      const before = chain.node.requestCount;
      expect(
        (await verify(cf.address, async (m) => chain.wrap6492(await wallets.safe.sign(cf.address, m, [a, c]), cf))).status,
      ).toBe(200);
      const calls = chain.node.requestsSince(before).filter((r) => r.method === 'eth_call');
      expect(calls.map((r) => (r.params[0] as { to?: string }).to?.toLowerCase())).toEqual([verifier.toLowerCase()]);

      const burner = await wallets.gasBurningWallet();
      const hostile = await verify(burner, async () => '0x1234');
      expect(hostile.status).toBe(401);
      expect(hostile.body.error).toMatchObject({
        message: 'Invalid signature',
        details: {
          type: 'INVALID_SIGNATURE',
          message: `the contract wallet ${burner} ran out of gas (the cap is 2000000 per check) on chain 1: not accepted`,
        },
      });
    } finally {
      await chain.stop();
    }
  });

  it('ERC-1271 answers read as Solidity reads them: the magic value with non-zero bytes after it is refused, the right word with more data after it is accepted', async () => {
    const chain = await startTestchain({ chainId: 1, ens: false });
    try {
      const wallets = await realWallets(chain);
      const now = Date.now();
      const b = api({ ETH_RPC_URL: chain.url }, { now: () => now });
      const verify = async (address: `0x${string}`, sign: (message: string) => Promise<Hex>) => {
        const { nonce } = (await (await b.app.request('/auth/nonce')).json()) as { nonce: string };
        const message = createSiweMessage({
          domain: 'localhost:3003',
          address,
          uri: 'http://localhost:3003',
          chainId: 1,
          nonce,
          issuedAt: new Date(now),
          expirationTime: new Date(now + minutes(10)),
        });
        const response = await post(b.app, '/auth/verify', { message, signature: await sign(message) });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      };
      const { dirtyWord, trailingData } = ERC1271_ANSWER_SHAPES;
      const owner = privateKeyToAccount(generatePrivateKey());
      const sign = (message: string) => owner.signMessage({ message });

      const dirty = await wallets.shapedAnswerWallet(owner.address, dirtyWord);
      const refused = await verify(dirty, sign);
      expect(refused.status).toBe(401);
      expect(refused.body.error).toMatchObject({
        message: 'Invalid signature',
        details: {
          type: 'INVALID_SIGNATURE',
          message: `signature was not made by ${dirty}: its contract wallet on chain 1 answered that it is not valid`,
        },
      });
      const padded = await wallets.shapedAnswerWallet(owner.address, trailingData);
      const accepted = await verify(padded, sign);
      expect(accepted.status).toBe(200);
      expect(accepted.body.user).toMatchObject({ address: padded, chainId: 1 });

      const [first, second] = [privateKeyToAccount(generatePrivateKey()), privateKeyToAccount(generatePrivateKey())];
      expect((await verify(first.address, (m) => wallets.signWithShapedAuthorization(first, m, dirtyWord))).status).toBe(401);
      expect((await verify(second.address, (m) => wallets.signWithShapedAuthorization(second, m, trailingData))).status).toBe(
        200,
      );
    } finally {
      await chain.stop();
    }
  });
});
