/**
 * Hostile input, proven: random and mutated bodies, headers, paths and query strings against a
 * running provider over real HTTP. Never a 5xx (storage is in memory here, so not even the
 * documented 503s), never a crash (the server answers /health afterwards), and never a code, a
 * token or a sign-in. Bounded in count and time.
 */

import { base58 } from '@scure/base';
import {
  anyText,
  bitcoinKey,
  bitcoinMessageFor,
  CookieJar,
  contentType,
  getDetails,
  messageFor,
  mutated,
  pkceAuthorization,
  printable,
  registerPublicClient,
  solanaKeypair,
  solanaMessageFor,
  startInteraction,
  startTestProvider,
  type TestProvider,
} from '@signet/testkit';
import fc from 'fast-check';
import type * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimsFor, ethereumAgent, JWT_BEARER, tokenRequest } from './agent-assertions.ts';

const RUNS = 250;
// One provider and valid submissions to mutate, shared by the "hostile input" describes below.
let provider: TestProvider;
let client: oidc.Configuration;
let authorizationQuery: string;
let validInteraction: { message: string; signature: string };
let validSolana: { message: string; signature: string };
let validBitcoin: { message: string; signature: string };

beforeAll(async () => {
  provider = await startTestProvider({ SOLANA_NETWORKS: 'mainnet', BITCOIN_NETWORKS: 'mainnet' });
  client = await registerPublicClient(provider.url);
  const { url } = await pkceAuthorization(client);
  authorizationQuery = url.search.slice(1);
  const account = privateKeyToAccount(generatePrivateKey());
  const jar = new CookieJar();
  const details = await getDetails(jar, await startInteraction(jar, url));
  const message = messageFor(details, account.address);
  validInteraction = { message, signature: await account.signMessage({ message }) };
  const keypair = solanaKeypair();
  const solana = solanaMessageFor(details, keypair.address);
  validSolana = { message: solana, signature: base58.encode(keypair.sign(solana)) };
  const key = bitcoinKey();
  const bitcoin = bitcoinMessageFor(details, key.address('p2tr'));
  validBitcoin = { message: bitcoin, signature: key.sign('p2tr', bitcoin) };
});
afterAll(async () => {
  const health = await fetch(`${provider.url}/health`);
  expect(health.status).toBe(200);
  await provider?.stop();
});

const send = async (path: string, init: RequestInit & { headers?: Record<string, string> }) => {
  const response = await fetch(`${provider.url}${path}`, { redirect: 'manual', ...init });
  const body = await response.text();
  expect(response.status, `${init.method ?? 'GET'} ${path} → ${response.status} ${body.slice(0, 200)}`).toBeLessThan(500);
  return { response, body };
};

describe('hostile input against the running provider', () => {
  it('GET /auth with random and mutated query strings and paths: never a code, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          mutated(authorizationQuery),
          fc.dictionary(printable, printable, { maxKeys: 8 }).map((d) => new URLSearchParams(d).toString()),
          printable,
        ),
        fc.constantFrom('/auth', '/AUTH', '/auth/', '/auth/x', '/auth//'),
        async (query, path) => {
          const { response } = await send(`${path}?${query}`, {});
          expect(response.headers.get('location') ?? '').not.toMatch(/[?&#]code=/);
        },
      ),
      { numRuns: RUNS, interruptAfterTimeLimit: 15_000 },
    );
  });

  it('POST /interaction/<uid> with random and mutated bodies and headers: never a 303 onward, never a 5xx', async () => {
    const { url } = await pkceAuthorization(client);
    const jar = new CookieJar();
    const interactionUrl = await startInteraction(jar, url);
    const cookie = jar.header(interactionUrl);
    const valid = JSON.stringify(validInteraction);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          mutated(valid),
          anyText,
          mutated(new URLSearchParams(validInteraction).toString()),
          // Sign In With Solana: signed for another sign-in of this provider, then mutated.
          mutated(JSON.stringify(validSolana)),
          mutated(new URLSearchParams(validSolana).toString()),
          // Sign in with Bitcoin (BIP-322, Taproot), likewise.
          mutated(JSON.stringify(validBitcoin)),
          mutated(new URLSearchParams(validBitcoin).toString()),
        ),
        contentType,
        fc.boolean(),
        async (body, type, withCookie) => {
          const { response } = await send(interactionUrl.pathname, {
            method: 'POST',
            headers: { ...(type ? { 'content-type': type } : {}), ...(withCookie && cookie ? { cookie } : {}) },
            body,
          });
          expect(response.status).not.toBe(303);
        },
      ),
      { numRuns: RUNS, interruptAfterTimeLimit: 15_000 },
    );
  });
});

describe('hostile input against the running provider: registration and token', () => {
  it('POST /reg with random and mutated bodies: a 201 only for a valid client, never a 5xx', async () => {
    const valid = JSON.stringify({ redirect_uris: ['https://rp.example.com/cb'], client_name: 'Fuzz' });
    const withNamespaces = JSON.stringify({
      redirect_uris: ['https://rp.example.com/cb'],
      account_namespaces: ['eip155', 'solana', 'bip122'],
    });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(mutated(valid), anyText, mutated(withNamespaces)),
        contentType,
        fc.constantFrom('/reg', '/REG', '/reg/'),
        async (body, type, path) => {
          const { response, body: text } = await send(path, {
            method: 'POST',
            headers: type ? { 'content-type': type } : {},
            body,
          });
          if (response.status === 201) {
            const registered = JSON.parse(text) as { redirect_uris: string[] };
            // Schemes and hosts are case-insensitive (RFC 3986): "Https://…" is an https URI.
            for (const uri of registered.redirect_uris)
              expect(uri).toMatch(/^https:\/\/|^http:\/\/(localhost|127\.0\.0\.1|\[::1\])[:/]/i);
          }
        },
      ),
      { numRuns: RUNS, interruptAfterTimeLimit: 15_000 },
    );
  });

  it('POST /token with the JWT bearer grant and mutated assertions (its jti spent): never a token, never a 5xx', async () => {
    const registered = await fetch(`${provider.url}/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_types: [JWT_BEARER], response_types: [], token_endpoint_auth_method: 'none' }),
    });
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const agent = ethereumAgent();
    const valid = agent.sign(claimsFor(agent.accountId(), provider.issuer));
    expect((await tokenRequest(`${provider.url}/token`, { client_id: clientId }, { assertion: valid })).status).toBe(200);
    await fc.assert(
      fc.asyncProperty(fc.oneof(mutated(valid), anyText), async (assertion) => {
        const answer = await tokenRequest(`${provider.url}/token`, { client_id: clientId }, { assertion });
        expect(answer.status, JSON.stringify(answer.body)).toBeGreaterThanOrEqual(400);
        expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(500);
        expect(answer.body.access_token).toBeUndefined();
      }),
      { numRuns: RUNS, interruptAfterTimeLimit: 15_000 },
    );
  });

  it('POST /token with random and mutated bodies and Authorization headers: never a token, never a 5xx', async () => {
    const clientId = client.clientMetadata().client_id;
    const valid = new URLSearchParams({
      grant_type: 'authorization_code',
      code: 'x'.repeat(43),
      client_id: clientId,
      redirect_uri: 'http://127.0.0.1:4999/callback',
      code_verifier: 'v'.repeat(43),
    }).toString();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(mutated(valid), anyText),
        contentType,
        fc.option(printable, { nil: undefined }),
        async (body, type, auth) => {
          const { response, body: text } = await send('/token', {
            method: 'POST',
            headers: { ...(type ? { 'content-type': type } : {}), ...(auth ? { authorization: `Basic ${auth}` } : {}) },
            body,
          });
          expect(response.status).not.toBe(200);
          expect(text).not.toContain('access_token');
        },
      ),
      { numRuns: RUNS, interruptAfterTimeLimit: 15_000 },
    );
  });
});
