import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { createChainRegistry, createSiweMessage } from '@signet/siwe';
import { realWallets, startTestchain, type Testchain } from '@signet/testchain';
import { freePort, waitForListener } from '@signet/testkit/ports';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSessionApp, loadSessionAppConfig } from '../src/index.ts';

const SECRET = 'session-secret-of-at-least-32-characters!!';
const HOST = 'app.example.com';
const T0 = Date.parse('2025-05-05T10:00:00Z');

/** A browser against the in-process app: keeps the session cookie, sends Host. */
function browser(app: ReturnType<typeof buildSessionApp>, host = HOST) {
  let cookie = '';
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await app.request(`http://${host}${path}`, {
      method,
      headers: { host, ...(cookie ? { cookie } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const set = response.headers
      .getSetCookie()
      .filter((c) => c.startsWith('siwe_session='))
      .pop();
    if (set) cookie = set.split(';')[0] as string;
    return response;
  };
  return { call, cookies: () => cookie };
}

const config = (env: Record<string, string> = {}) =>
  loadSessionAppConfig({ SESSION_SECRET: SECRET, RATE_LIMIT_NONCE: '1000', RATE_LIMIT_VERIFY: '1000', ...env });

function messageFor(address: `0x${string}`, nonce: string, overrides: Partial<Parameters<typeof createSiweMessage>[0]> = {}) {
  return createSiweMessage({
    domain: HOST,
    address,
    statement: 'Sign in to the example.',
    uri: `https://${HOST}`,
    chainId: 1,
    nonce,
    issuedAt: new Date(T0 - 60_000),
    expirationTime: new Date(T0 + 10 * 60_000),
    ...overrides,
  });
}

/** The account that signs in to application A in these tests. */
const account = privateKeyToAccount(generatePrivateKey());

/** Asks for a nonce, then posts a message signed by `account` for it. */
async function signIn(b: ReturnType<typeof browser>, overrides = {}) {
  const { nonce } = await (await b.call('GET', '/api/nonce')).json();
  const message = messageFor(account.address, nonce, overrides);
  return {
    message,
    response: await b.call('POST', '/api/verify', { message, signature: await account.signMessage({ message }) }),
  };
}

/** Each refusal: its name, how to get it on a fresh browser, its status and the library's type. */
const refusalCases: [string, (b: ReturnType<typeof browser>) => Promise<Response>, number, string][] = [
  [
    'no nonce issued',
    async (b) => {
      const message = messageFor(account.address, 'abcdefgh1234');
      return b.call('POST', '/api/verify', { message, signature: await account.signMessage({ message }) });
    },
    400,
    'NONCE_MISMATCH',
  ],
  [
    'another nonce',
    async (b) => {
      await b.call('GET', '/api/nonce');
      const message = messageFor(account.address, 'abcdefgh1234');
      return b.call('POST', '/api/verify', { message, signature: await account.signMessage({ message }) });
    },
    400,
    'NONCE_MISMATCH',
  ],
  ['another domain', async (b) => (await signIn(b, { domain: 'evil.example.com' })).response, 400, 'DOMAIN_MISMATCH'],
  // This site's domain line, but a URI on another site (or plain http off loopback).
  [
    'a URI on another site',
    async (b) => (await signIn(b, { uri: 'https://evil.example.com/login' })).response,
    400,
    'URI_MISMATCH',
  ],
  ['an http URI off loopback', async (b) => (await signIn(b, { uri: `http://${HOST}` })).response, 400, 'URI_MISMATCH'],
  ['expired', async (b) => (await signIn(b, { expirationTime: new Date(T0 - 1000) })).response, 400, 'EXPIRED_MESSAGE'],
  [
    'not yet valid',
    async (b) => (await signIn(b, { notBefore: new Date(T0 + 5 * 60_000) })).response,
    400,
    'NOT_YET_VALID_MESSAGE',
  ],
  [
    'another signer',
    async (b) => {
      const { nonce } = await (await b.call('GET', '/api/nonce')).json();
      const message = messageFor(account.address, nonce);
      const other = privateKeyToAccount(generatePrivateKey());
      return b.call('POST', '/api/verify', { message, signature: await other.signMessage({ message }) });
    },
    401,
    'INVALID_SIGNATURE',
  ],
  ['not EIP-4361', async (b) => b.call('POST', '/api/verify', { message: 'hello', signature: '0x00' }), 400, 'UNABLE_TO_PARSE'],
  ['missing signature', async (b) => b.call('POST', '/api/verify', { message: 'hello' }), 400, 'INVALID_REQUEST'],
  ['not JSON', async (b) => b.call('POST', '/api/verify', '{"message":'), 400, 'INVALID_REQUEST'],
  [
    'a huge message',
    async (b) => b.call('POST', '/api/verify', { message: 'x'.repeat(10_001), signature: '0x00' }),
    413,
    'PAYLOAD_TOO_LARGE',
  ],
];

describe('application A: session states and checks', () => {
  let now = T0;
  const app = buildSessionApp(config({ EXPECTED_DOMAIN: HOST }), { now: () => now });

  it('no nonce → nonce pending → authenticated → destroyed', async () => {
    now = T0;
    const b = browser(app);
    expect((await b.call('GET', '/api/me')).status).toBe(401);
    const nonceResponse = await b.call('GET', '/api/nonce');
    expect(nonceResponse.status).toBe(200);
    const { nonce } = await nonceResponse.json();
    expect(nonce).toMatch(/^[A-Za-z0-9]{8,}$/);
    const cookie = nonceResponse.headers.getSetCookie()[0] as string;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).not.toMatch(/;\s*Secure/i);
    // The session is encrypted: the nonce is not readable in the cookie.
    expect(cookie).not.toContain(nonce);

    const message = messageFor(account.address, nonce);
    const verified = await b.call('POST', '/api/verify', { message, signature: await account.signMessage({ message }) });
    expect(verified.status).toBe(200);
    expect(verified.headers.getSetCookie()).toHaveLength(1);
    expect(await verified.json()).toEqual({ address: account.address, chainId: 1 });
    expect(await (await b.call('GET', '/api/me')).json()).toEqual({ address: account.address, chainId: 1 });

    const out = await b.call('POST', '/api/logout');
    expect(await out.json()).toEqual({ ok: true });
    expect((await b.call('GET', '/api/me')).status).toBe(401);
  });

  it('a nonce serves once: the same signed message is refused the second time', async () => {
    now = T0;
    const b = browser(app);
    const { message, response } = await signIn(b);
    expect(response.status).toBe(200);
    const again = await b.call('POST', '/api/verify', { message, signature: await account.signMessage({ message }) });
    expect(again.status).toBe(400);
    expect((await again.json()).error.type).toBe('NONCE_MISMATCH');
  });

  it('refuses with the library types and the documented statuses', async () => {
    now = T0;
    for (const [name, run, status, type] of refusalCases) {
      const response = await run(browser(app));
      const body = await response.json();
      expect({ name, status: response.status, type: body.error?.type }).toEqual({ name, status, type });
      expect(body.error.message).toEqual(expect.any(String));
    }
  });

  it('checks in the spec order: domain before nonce; recovery, then times, then the chain', async () => {
    now = T0;
    const b = browser(app);
    // Wrong domain and wrong nonce: the domain is reported.
    const wrongBoth = messageFor(account.address, 'abcdefgh1234', { domain: 'evil.example.com' });
    await b.call('GET', '/api/nonce');
    const first = await b.call('POST', '/api/verify', {
      message: wrongBoth,
      signature: await account.signMessage({ message: wrongBoth }),
    });
    expect((await first.json()).error.type).toBe('DOMAIN_MISMATCH');
    // A signature that does not recover to the address may still be a contract wallet's, which
    // is asked on chain last: an expired message is refused for its time before any RPC call.
    const { nonce } = await (await b.call('GET', '/api/nonce')).json();
    const expired = messageFor(account.address, nonce, { expirationTime: new Date(T0 - 1000) });
    const other = privateKeyToAccount(generatePrivateKey());
    const second = await b.call('POST', '/api/verify', {
      message: expired,
      signature: await other.signMessage({ message: expired }),
    });
    expect((await second.json()).error.type).toBe('EXPIRED_MESSAGE');
    // In time, the same mismatch ends at the signature.
    const { nonce: fresh } = await (await b.call('GET', '/api/nonce')).json();
    const current = messageFor(account.address, fresh);
    const third = await b.call('POST', '/api/verify', {
      message: current,
      signature: await other.signMessage({ message: current }),
    });
    expect((await third.json()).error.type).toBe('INVALID_SIGNATURE');
  });

  it('a nonce older than 10 minutes is refused', async () => {
    now = T0;
    const b = browser(app);
    const { nonce } = await (await b.call('GET', '/api/nonce')).json();
    now = T0 + 11 * 60_000;
    const message = messageFor(account.address, nonce, { issuedAt: new Date(now), expirationTime: new Date(now + 60_000) });
    const response = await b.call('POST', '/api/verify', { message, signature: await account.signMessage({ message }) });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatchObject({ type: 'NONCE_MISMATCH', message: expect.stringContaining('expired') });
    now = T0;
  });

  it('replayed cookies: the pre-verify cookie cannot verify again, and a logged-out cookie reads nothing', async () => {
    now = T0;
    const b = browser(app);
    const { nonce } = await (await b.call('GET', '/api/nonce')).json();
    const preVerify = b.cookies();
    const message = messageFor(account.address, nonce);
    const body = { message, signature: await account.signMessage({ message }) };
    expect((await b.call('POST', '/api/verify', body)).status).toBe(200);
    const signedIn = b.cookies();
    const withCookie = (cookie: string, method: string, path: string, payload?: unknown) =>
      app.request(`http://${HOST}${path}`, {
        method,
        headers: { host: HOST, cookie, ...(payload ? { 'content-type': 'application/json' } : {}) },
        body: payload ? JSON.stringify(payload) : undefined,
      });
    const replay = await withCookie(preVerify, 'POST', '/api/verify', body);
    expect(replay.status).toBe(400);
    expect((await replay.json()).error.type).toBe('NONCE_MISMATCH');
    expect((await withCookie(signedIn, 'GET', '/api/me')).status).toBe(200);
    expect((await b.call('POST', '/api/logout')).status).toBe(200);
    expect((await withCookie(signedIn, 'GET', '/api/me')).status).toBe(401);
  });

  it('serves a page to try it, with a strict CSP', async () => {
    const response = await app.request('/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await response.text()).toContain('Sign in with your wallet');
  });
});

describe('application A: session states and checks (each on an app of its own)', () => {
  it('without EXPECTED_DOMAIN: Host: evil.example never becomes the expected domain; loopback hosts and localhost:<PORT> do', async () => {
    const unset = buildSessionApp(config({ PORT: '3002' }), { now: () => T0 });
    // The attack: a signature the victim made for evil.example, replayed with Host: evil.example.
    const attacker = browser(unset, 'evil.example');
    const attack = await signInWith(attacker, 'evil.example');
    expect(attack.status).toBe(400);
    expect((await attack.json()).error.type).toBe('DOMAIN_MISMATCH');
    expect((await attacker.call('GET', '/api/me')).status).toBe(401);
    // A message for the app's own default domain, whatever Host says.
    expect((await signInWith(browser(unset, 'evil.example'), 'localhost:3002')).status).toBe(200);
    // Loopback Host headers (development on another port) are trusted as the domain.
    expect((await signInWith(browser(unset, '127.0.0.1:5173'), '127.0.0.1:5173')).status).toBe(200);
    expect((await signInWith(browser(unset, 'localhost:8080'), 'localhost:8080')).status).toBe(200);

    async function signInWith(b: ReturnType<typeof browser>, domain: string) {
      const { nonce } = await (await b.call('GET', '/api/nonce')).json();
      const message = messageFor(account.address, nonce, { domain, uri: `http://${domain}` });
      return b.call('POST', '/api/verify', { message, signature: await account.signMessage({ message }) });
    }
  });

  it('chains: only CHAIN_IDS (default 1, plus the chains of RPC_URLS) are accepted', async () => {
    for (const [env, chainId, status] of [
      [{}, 999, 400],
      [{}, 1, 200],
      [{ CHAIN_IDS: '10' }, 1, 400],
      [{ CHAIN_IDS: '10' }, 10, 200],
    ] as const) {
      const chained = buildSessionApp(config({ EXPECTED_DOMAIN: HOST, ...env }), { now: () => T0 });
      const b = browser(chained);
      const { nonce } = await (await b.call('GET', '/api/nonce')).json();
      const message = messageFor(account.address, nonce, { chainId });
      const response = await b.call('POST', '/api/verify', { message, signature: await account.signMessage({ message }) });
      expect(response.status, `${JSON.stringify(env)} chain ${chainId}`).toBe(status);
      if (status === 400) expect((await response.json()).error.type).toBe('CHAIN_NOT_ALLOWED');
    }
  });

  it('rate-limits /api/nonce and /api/verify per client', async () => {
    const limited = buildSessionApp(config({ RATE_LIMIT_NONCE: '2', RATE_LIMIT_VERIFY: '1' }), { now: () => T0 });
    const b = browser(limited);
    expect((await b.call('GET', '/api/nonce')).status).toBe(200);
    expect((await b.call('GET', '/api/nonce')).status).toBe(200);
    const third = await b.call('GET', '/api/nonce');
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await third.json()).error.type).toBe('RATE_LIMITED');
    expect((await b.call('POST', '/api/verify', { message: 'x', signature: 'y' })).status).toBe(400);
    expect((await b.call('POST', '/api/verify', { message: 'x', signature: 'y' })).status).toBe(429);
  });

  it('production: the session cookie is Secure', async () => {
    const prod = buildSessionApp(config({ NODE_ENV: 'production', EXPECTED_DOMAIN: HOST }), { now: () => T0 });
    const response = await browser(prod).call('GET', '/api/nonce');
    expect(response.headers.getSetCookie()[0]).toMatch(/;\s*Secure/i);
  });
});

describe('application A: contract wallets on a real local chain', () => {
  let chain: Testchain;
  beforeAll(async () => {
    chain = await startTestchain({ chainId: 1, ens: false });
  });
  afterAll(() => chain?.stop());

  it('EIP-1271: a deployed wallet signs in over real HTTP; a dead RPC node gives 503 RPC_UNAVAILABLE', async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const wallet = await chain.deployWallet(owner.address, 5n);
    const app = buildSessionApp(config({ ETH_RPC_URL: chain.url, EXPECTED_DOMAIN: HOST }), {
      chains: createChainRegistry({ 1: chain.url }, { timeoutMs: 1000, retryCount: 0 }),
    });
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    let cookie = '';
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { ...(cookie ? { cookie } : {}), 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const set = response.headers.getSetCookie()[0];
      if (set) cookie = set.split(';')[0] as string;
      return response;
    };
    try {
      const signFor = async () => {
        const { nonce } = await (await call('GET', '/api/nonce')).json();
        const message = messageFor(wallet, nonce, { issuedAt: new Date(), expirationTime: new Date(Date.now() + 60_000) });
        return { message, signature: await owner.signMessage({ message }) };
      };
      const ok = await call('POST', '/api/verify', await signFor());
      expect(ok.status).toBe(200);
      expect(await ok.json()).toEqual({ address: wallet, chainId: 1 });

      const attempt = await signFor();
      await chain.node.pause();
      const down = await call('POST', '/api/verify', attempt);
      expect(down.status).toBe(503);
      expect((await down.json()).error.type).toBe('RPC_UNAVAILABLE');
      await chain.node.resume();
    } finally {
      server.close();
    }
  });
});

describe('application A: where it listens', () => {
  const start = async (env: Record<string, string>) => {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      ['--conditions=@signet/source', '--import', 'tsx', join(import.meta.dirname, '..', 'src', 'server.ts')],
      { env: { ...process.env, SESSION_SECRET: SECRET, PORT: String(port), ...env }, stdio: 'ignore' },
    );
    try {
      return await waitForListener(port);
    } finally {
      child.kill('SIGTERM');
    }
  };

  it('loopback by default (HOST): not reachable from the network; every interface only when asked', async () => {
    expect(await start({})).toEqual(['127.0.0.1']);
    expect(await start({ HOST: '0.0.0.0' })).toEqual(['0.0.0.0']);
    expect(() => loadSessionAppConfig({ SESSION_SECRET: SECRET, HOST: 'not a host' })).toThrow(/^HOST: must be an IP address/);
  });
});

describe('application A: real third-party wallets (Safe, EIP-7702, a deployed verifier, a hostile wallet)', () => {
  let chain: Testchain;
  beforeAll(async () => {
    chain = await startTestchain({ chainId: 1, ens: false });
  });
  afterAll(() => chain?.stop());

  it('a Safe signed on chain (0x), ERC-8010, EIP-6492 through SIGNATURE_VERIFIERS, and a gas burner refused in words', async () => {
    const wallets = await realWallets(chain);
    const verifier = await wallets.deployVerifier();
    // No registry handed in: the app builds its own from its settings, SIGNATURE_VERIFIERS included.
    const app = buildSessionApp(config({ ETH_RPC_URL: chain.url, EXPECTED_DOMAIN: HOST, SIGNATURE_VERIFIERS: `1=${verifier}` }));
    const verify = async (address: `0x${string}`, sign: (message: string) => Promise<`0x${string}`>) => {
      const { call } = browser(app);
      const { nonce } = await (await call('GET', '/api/nonce')).json();
      const message = messageFor(address, nonce, { issuedAt: new Date(), expirationTime: new Date(Date.now() + 60_000) });
      const response = await call('POST', '/api/verify', { message, signature: await sign(message) });
      return { status: response.status, body: await response.json() };
    };
    const [a, b] = [privateKeyToAccount(generatePrivateKey()), privateKeyToAccount(generatePrivateKey())];

    const safe = await wallets.safe.deploy([a.address, b.address], 2, 301n);
    const onChain = await verify(safe, async (message) => {
      await wallets.safe.signOnChain(safe, message, [a, b]);
      return '0x';
    });
    expect(onChain).toEqual({ status: 200, body: { address: safe, chainId: 1 } });

    const eoa = privateKeyToAccount(generatePrivateKey());
    expect((await verify(eoa.address, (m) => wallets.eip7702.signWithAuthorization(eoa, m))).status).toBe(200);

    const cf = await wallets.safe.counterfactual([a.address, b.address], 2, 302n);
    const before = chain.node.requestCount;
    const counterfactual = await verify(cf.address, async (m) =>
      chain.wrap6492(await wallets.safe.sign(cf.address, m, [a, b]), cf),
    );
    expect(counterfactual.status).toBe(200);
    const calls = chain.node.requestsSince(before).filter((r) => r.method === 'eth_call');
    expect(calls.map((r) => (r.params[0] as { to?: string }).to?.toLowerCase())).toEqual([verifier.toLowerCase()]);

    const burner = await wallets.gasBurningWallet();
    const hostile = await verify(burner, async () => '0x1234');
    expect(hostile.status).toBe(401);
    expect(hostile.body.error).toEqual({
      type: 'INVALID_SIGNATURE',
      message: `the contract wallet ${burner} ran out of gas (the cap is 2000000 per check) on chain 1: not accepted`,
    });
  });
});

describe('application A: settings', () => {
  it('refuses to start without a 32+ character SESSION_SECRET, naming it (real process)', () => {
    const result = spawnSync(
      process.execPath,
      ['--conditions=@signet/source', '--import', 'tsx', join(import.meta.dirname, '..', 'src', 'server.ts')],
      {
        env: { ...process.env, SESSION_SECRET: 'too-short' },
        encoding: 'utf8',
        timeout: 20_000,
      },
    );
    expect(result.status).toBe(78);
    expect(result.stderr).toContain('SESSION_SECRET: must be at least 32 characters');
  });

  it.each([
    [{}, /^SESSION_SECRET: is required/],
    [{ SESSION_SECRET: SECRET, EXPECTED_DOMAIN: 'https://x.example/' }, /^EXPECTED_DOMAIN:/],
    [{ SESSION_SECRET: SECRET, ETH_RPC_URL: 'nope' }, /^ETH_RPC_URL:/],
    [{ SESSION_SECRET: SECRET, NODE_ENV: 'production' }, /^EXPECTED_DOMAIN: is required in production/],
  ])('refuses %j', (env, message) => {
    expect(() => loadSessionAppConfig(env)).toThrow(message);
  });
});
