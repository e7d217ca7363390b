/**
 * A program with its own key signs in without a browser (`@signet/provider/login`, run by
 * `signet login`): over real HTTP against a real provider, the authorization code flow with PKCE
 * through the interaction's JSON contract, with an Ethereum key and with a Solana key, on both
 * profiles; the ID token's subject is the key's account; the refresh works; every refusal comes
 * back as a LoginError in words.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { base58 } from '@scure/base';
import { ethereumKey, LoginError, login, refresh, solanaKey } from '@signet/provider/login';
import { startTestProvider, TEST_REDIRECT_URI, type TestProvider } from '@signet/testkit';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** A Solana key's 32-byte seed, in hex. */
const SEED = '07'.repeat(32);

async function register(provider: TestProvider, metadata: Record<string, unknown> = {}) {
  const path = provider.config.profile === 'hosted' ? '/register' : '/reg';
  const response = await fetch(`${provider.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Nightly job',
      redirect_uris: [TEST_REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      ...metadata,
    }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { client_id: string; client_secret?: string };
}

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(LoginError);
      const { code, message, status } = error as LoginError;
      return { code, message, status };
    },
  );

describe.each(['self-hosted', 'hosted'] as const)('a program signs in with its own key (%s)', (profile) => {
  let provider: TestProvider;
  let client: { client_id: string; client_secret?: string };

  beforeAll(async () => {
    provider = await startTestProvider({ PROFILE: profile, SOLANA_NETWORKS: 'mainnet,devnet' });
    // Self-hosted: a public client (PKCE alone); hosted: a confidential one (client_secret_basic).
    client = await register(provider, profile === 'hosted' ? {} : { token_endpoint_auth_method: 'none' });
    expect(Boolean(client.client_secret)).toBe(profile === 'hosted');
  });
  afterAll(() => provider?.stop());

  const options = () => ({
    issuer: provider.issuer,
    clientId: client.client_id,
    clientSecret: client.client_secret,
    redirectUri: TEST_REDIRECT_URI,
    scope: 'openid profile siwe offline_access',
  });

  it('an Ethereum key: an ID token for its account, a fresh signature each time, and a refresh', async () => {
    const key = generatePrivateKey();
    const account = privateKeyToAccount(key);
    const first = await login({ ...options(), signer: ethereumKey(key) });
    const sub = `eip155:1:${account.address}`;
    expect(first.sub).toBe(sub);
    expect(first.claims.aud).toBe(client.client_id);
    expect(first.claims.iss).toBe(provider.issuer);
    // The signed message is the wallet page's: this sign-in's nonce, the redirect URI as its resource.
    const message = first.claims.siwe_message as string;
    expect(message).toContain(
      `${new URL(provider.url).host} wants you to sign in with your Ethereum account:\n${account.address}`,
    );
    expect(message).toContain(`- ${TEST_REDIRECT_URI}`);
    expect(first.tokens.refresh_token).toEqual(expect.any(String));

    // A second login signs again (a new interaction, a new nonce): no provider session is reused.
    const second = await login({ ...options(), signer: ethereumKey(`  0x${key.slice(2).toUpperCase()}\n`) });
    expect(second.sub).toBe(sub);
    const nonceOf = (text: string) => /Nonce: (\S+)/.exec(text)?.[1];
    expect(nonceOf(second.claims.siwe_message as string)).not.toBe(nonceOf(message));

    const renewed = await first.refresh();
    expect(renewed.sub).toBe(sub);
    expect(renewed.tokens.access_token).not.toBe(first.tokens.access_token);
    // A refresh token kept elsewhere (a file): the same, from the token alone.
    const kept = await refresh({ ...options(), refreshToken: renewed.tokens.refresh_token as string });
    expect(kept.sub).toBe(sub);
  });

  it('a Solana key (a seed, or solana-keygen JSON): an ID token for its Solana account, and a refresh', async () => {
    const seed = Buffer.from(SEED, 'hex');
    const signer = solanaKey(SEED);
    // solana-keygen's file: the 64-byte secret key (seed, then public key) as a JSON array.
    const keygen = solanaKey(JSON.stringify([...seed, ...base58.decode(signer.address)]));
    expect(keygen.address).toBe(signer.address);
    const result = await login({ ...options(), signer: keygen, solanaNetwork: 'devnet' });
    expect(result.sub).toBe(`solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1:${signer.address}`);
    expect(result.claims.siwe_message).toContain('wants you to sign in with your Solana account:');
    const renewed = await result.refresh();
    expect(renewed.sub).toBe(result.sub);
  });

  it('refusals come back in words: a wrong client, a redirect URI it does not have, a wrong secret, a spent refresh token', async () => {
    const signer = ethereumKey(generatePrivateKey());
    const unknown = await rejection(login({ ...options(), clientId: 'no-such-client', signer }));
    expect(unknown.code).toBe('invalid_client');
    expect(unknown.message).toMatch(/client/);
    const elsewhere = await rejection(login({ ...options(), redirectUri: 'http://127.0.0.1:4999/other', signer }));
    expect(elsewhere.code).toBe('invalid_redirect_uri');
    if (profile === 'hosted') {
      const wrongSecret = await rejection(login({ ...options(), clientSecret: 'not-the-secret', signer }));
      expect(wrongSecret.code).toBe('invalid_client');
    }
    const spent = await rejection(refresh({ ...options(), refreshToken: 'not-a-refresh-token' }));
    expect(spent.code).toBe('invalid_grant');
  });
});

describe('a program signs in with its own key: refusals before and at the wallet step', () => {
  let provider: TestProvider;
  beforeAll(async () => {
    provider = await startTestProvider();
  });
  afterAll(() => provider?.stop());

  it('keys that are not keys are refused without repeating them', () => {
    for (const text of ['', 'not hex', '0x1234', `0x${'zz'.repeat(32)}`, `0x${'00'.repeat(32)}`]) {
      expect(() => ethereumKey(text), text).toThrow(LoginError);
      try {
        ethereumKey(text);
      } catch (error) {
        expect((error as LoginError).code).toBe('INVALID_KEY');
        if (text.length > 4) expect((error as Error).message).not.toContain(text);
      }
    }
    for (const text of ['[1,2,3]', 'abc', JSON.stringify([...Array(64).keys()])]) {
      expect(() => solanaKey(text), text).toThrow(LoginError);
    }
  });

  it('a Solana key where the provider takes none, and an http issuer that is not loopback, are refused in words', async () => {
    const client = await register(provider, { token_endpoint_auth_method: 'none' });
    const solana = await rejection(
      login({ issuer: provider.issuer, clientId: client.client_id, redirectUri: TEST_REDIRECT_URI, signer: solanaKey(SEED) }),
    );
    expect(solana).toMatchObject({ code: 'NAMESPACE_NOT_OFFERED', message: expect.stringContaining('Solana') });
    const insecure = await rejection(
      login({
        issuer: 'http://id.example.com',
        clientId: client.client_id,
        redirectUri: TEST_REDIRECT_URI,
        signer: ethereumKey(generatePrivateKey()),
      }),
    );
    expect(insecure.code).toBe('INSECURE_ISSUER');
  });

  it('a signature the provider refuses (a chain it does not allow) comes back with its code', async () => {
    const client = await register(provider, { token_endpoint_auth_method: 'none' });
    const refused = await rejection(
      login({
        issuer: provider.issuer,
        clientId: client.client_id,
        redirectUri: TEST_REDIRECT_URI,
        signer: ethereumKey(generatePrivateKey()),
        chainId: 137,
      }),
    );
    expect(refused).toMatchObject({ code: 'CHAIN_NOT_ALLOWED', status: 400 });
  });
});

/**
 * A look-alike issuer that relays a real provider: its discovery names itself, every request is
 * passed to the real provider, and the interaction's details come back as the real provider wrote
 * them (or with some fields rewritten to the look-alike's). Before signing, the program must see
 * that they are not the issuer's it was given: otherwise the relay posts the program's signature of
 * the real provider's domain and nonce there, and holds tokens with the program's `sub`.
 */
async function startRelay(real: TestProvider, rewrite: (details: Record<string, unknown>, relay: URL) => void) {
  const posted: string[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const path = request.url ?? '/';
    if (request.method === 'POST') posted.push(path);
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (name !== 'host' && typeof value === 'string') headers.set(name, value);
    }
    const answer = await fetch(`${real.url}${path}`, {
      method: request.method,
      headers,
      body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
      redirect: 'manual',
    });
    const relay = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const out: Record<string, string | string[]> = {};
    answer.headers.forEach((value, name) => {
      if (!['content-length', 'content-encoding', 'transfer-encoding', 'set-cookie'].includes(name)) out[name] = value;
    });
    if (answer.headers.getSetCookie().length > 0) out['set-cookie'] = answer.headers.getSetCookie();
    if (typeof out.location === 'string') out.location = out.location.replace(real.url, relay.origin);
    let body = await answer.text();
    if (path.startsWith('/.well-known/')) body = body.replaceAll(real.url, relay.origin);
    if (path.startsWith('/interaction/') && answer.headers.get('content-type')?.includes('json')) {
      const details = JSON.parse(body) as Record<string, unknown>;
      rewrite(details, relay);
      body = JSON.stringify(details);
    }
    response.writeHead(answer.status, out).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    issuer: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    posted,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('a program signs only what its issuer asks for itself (a relaying look-alike gets nothing)', () => {
  let provider: TestProvider;
  let client: { client_id: string };
  beforeAll(async () => {
    provider = await startTestProvider();
    client = await register(provider, { token_endpoint_auth_method: 'none' });
  });
  afterAll(() => provider?.stop());

  const cases: [string, string, (details: Record<string, unknown>, relay: URL) => void][] = [
    ['passed on as the real provider wrote them', 'DOMAIN_MISMATCH', () => {}],
    [
      'with the look-alike as the domain, the real provider as the URI',
      'URI_MISMATCH',
      (details, relay) => {
        details.domain = relay.host;
      },
    ],
    [
      'with the look-alike as domain and URI, and a resource of its own added',
      'RESOURCES_MISMATCH',
      (details, relay) => {
        details.domain = relay.host;
        details.uri = relay.origin;
        details.resources = [...(details.resources as string[]), 'https://wallet-drainer.example/'];
      },
    ],
    [
      'with the look-alike as domain and URI, and another resource instead of the redirect URI',
      'RESOURCES_MISMATCH',
      (details, relay) => {
        details.domain = relay.host;
        details.uri = relay.origin;
        details.resources = [`${provider.url}/account`];
      },
    ],
  ];

  it.each(cases)('details %s: refused (%s) before anything is signed or posted', async (_, code, rewrite) => {
    const relay = await startRelay(provider, rewrite);
    try {
      const refused = await rejection(
        login({
          issuer: relay.issuer,
          clientId: client.client_id,
          redirectUri: TEST_REDIRECT_URI,
          signer: ethereumKey(generatePrivateKey()),
        }),
      );
      expect(refused.code).toBe(code);
      expect(refused.message).toMatch(/^refusing to sign: /);
      // Nothing was signed and sent: the relay saw no POST at all, so it has nothing to spend.
      expect(relay.posted).toEqual([]);
    } finally {
      await relay.stop();
    }
  });

  it('the same program through the real issuer signs in (the relay, not the program, is what fails)', async () => {
    const result = await login({
      issuer: provider.issuer,
      clientId: client.client_id,
      redirectUri: TEST_REDIRECT_URI,
      signer: ethereumKey(generatePrivateKey()),
    });
    expect(result.sub).toMatch(/^eip155:1:0x/);
  });
});
