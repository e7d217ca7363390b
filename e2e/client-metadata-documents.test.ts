/**
 * Clients identified by a Client ID Metadata Document (an https URL as client_id), against a
 * provider process that trusts a throw-away CA (NODE_EXTRA_CA_CERTS) and may fetch from loopback
 * (ALLOW_PRIVATE_FETCH, the development switch: the documents are served by this test on
 * https://127.0.0.1). Documents shaped like the ones real MCP clients publish: Claude's (a public
 * client listing a jwt-bearer grant it does not use, loopback and https redirect URIs) and
 * ChatGPT's (private_key_jwt with its keys, offering ["none","private_key_jwt"] by RP Metadata
 * Choices), signed in with openid-client; and the documents Signet refuses, each with words.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type DocumentServer,
  pkceAuthorization,
  selfSignedCertificate,
  startDocumentServer,
  TEST_REDIRECT_URI,
  walletSignIn,
} from '@signet/testkit';
import { exportJWK, generateKeyPair } from 'jose';
import * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Replica, startDocumentTrustingReplica } from './processes.ts';

const insecure = { execute: [oidc.allowInsecureRequests] };
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

let dir: string;
let tls: { key: string; cert: string; certFile: string };
let provider: Replica;
const servers: DocumentServer[] = [];

/** A document server of its own (its own host:port, so its own budget of fetches per host). */
async function documentServer() {
  const server = await startDocumentServer(tls);
  servers.push(server);
  return server;
}

function claudeShaped(clientId: string) {
  return {
    client_id: clientId,
    client_name: 'Claude',
    client_uri: 'https://claude.ai',
    redirect_uris: [TEST_REDIRECT_URI, 'https://claude.ai/api/mcp/auth_callback'],
    grant_types: ['authorization_code', 'refresh_token', JWT_BEARER],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}

/** GET /auth for `clientId` as a program reading JSON: the refusal's status and body. */
async function authorize(clientId: string, target: Replica = provider) {
  const url = new URL(`${target.url}/auth`);
  url.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: TEST_REDIRECT_URI,
    response_type: 'code',
    scope: 'openid',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  }).toString();
  const response = await fetch(url, { redirect: 'manual', headers: { accept: 'application/json' } });
  const text = await response.text();
  return {
    status: response.status,
    location: response.headers.get('location'),
    body: text.startsWith('{') ? JSON.parse(text) : text,
  };
}

const providerWith = (settings: Record<string, string> = {}) => startDocumentTrustingReplica(tls.certFile, settings);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'signet-cimd-'));
  tls = selfSignedCertificate(dir);
  provider = await providerWith();
});
afterAll(async () => {
  if (process.env.SHOW_OUTPUT) console.log(provider?.output());
  await provider?.stop();
  for (const server of servers) await server.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('discovery with CLIENT_ID_METADATA_DOCUMENTS (on by default, self-hosted)', () => {
  it('says client_id_metadata_document_supported and lists every method a document may resolve to', async () => {
    const discovery = await (await fetch(`${provider.url}/.well-known/openid-configuration`)).json();
    expect(discovery.client_id_metadata_document_supported).toBe(true);
    expect(discovery.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['none', 'private_key_jwt']));
  });
});

describe('documents shaped like real MCP clients sign in', () => {
  it("Claude's: a public client with a jwt-bearer grant it does not use (dropped, not fatal), PKCE, openid-client", async () => {
    const server = await documentServer();
    const clientId = server.url('/oauth/claude.json');
    server.serve('/oauth/claude.json', { body: claudeShaped(clientId), headers: { 'cache-control': 'max-age=3600' } });
    const config = await oidc.discovery(new URL(provider.url), clientId, undefined, oidc.None(), insecure);
    const user = privateKeyToAccount(generatePrivateKey());
    const { url, verifier } = await pkceAuthorization(config, { scope: 'openid profile' });
    const { callbackUrl, details } = await walletSignIn({ authorizationUrl: url, signer: user });
    expect(details.client).toMatchObject({ client_id: clientId, client_name: 'Claude' });
    // For native apps too: who asks (the document's host), and whether it is a program on this computer.
    expect(details.metadataDocument).toEqual({ host: new URL(server.origin).host, loopbackOnly: false });
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier });
    expect(tokens.claims()?.sub).toBe(`eip155:1:${user.address}`);
    expect(tokens.claims()?.aud).toBe(clientId);
    // Fetched once, for every request of the sign-in and the token exchange.
    expect(server.requests('/oauth/claude.json')).toBe(1);
  });

  it("ChatGPT's: private_key_jwt with its JWKS, offering [none, private_key_jwt]: the client authenticates with its key", async () => {
    const server = await documentServer();
    const clientId = server.url('/oauth/chatgpt.json');
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), kid: 'chatgpt-1', alg: 'ES256', use: 'sig' };
    server.serve('/oauth/chatgpt.json', {
      body: {
        client_id: clientId,
        client_name: 'ChatGPT',
        redirect_uris: [TEST_REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'private_key_jwt',
        token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
        token_endpoint_auth_signing_alg: 'ES256',
        jwks: { keys: [jwk] },
      },
    });
    const config = await oidc.discovery(
      new URL(provider.url),
      clientId,
      undefined,
      oidc.PrivateKeyJwt({ key: privateKey, kid: 'chatgpt-1' }),
      insecure,
    );
    const user = privateKeyToAccount(generatePrivateKey());
    const { url, verifier } = await pkceAuthorization(config);
    const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer: user });
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier });
    expect(tokens.claims()?.sub).toBe(`eip155:1:${user.address}`);

    // The same client without its key is refused: it resolved to private_key_jwt, not none.
    const publicConfig = await oidc.discovery(new URL(provider.url), clientId, undefined, oidc.None(), insecure);
    const again = await pkceAuthorization(publicConfig);
    const second = await walletSignIn({ authorizationUrl: again.url, signer: user });
    await expect(
      oidc.authorizationCodeGrant(publicConfig, second.callbackUrl, { pkceCodeVerifier: again.verifier }),
    ).rejects.toMatchObject({ error: 'invalid_client' });
  });
});

describe('hosted, with CLIENT_ID_METADATA_DOCUMENTS=true (the operator turns it on)', () => {
  it("ChatGPT's shape with a jwks_uri; a document naming no method is a public client, not the profile's client_secret_basic", async () => {
    const hosted = await providerWith({ PROFILE: 'hosted', CLIENT_ID_METADATA_DOCUMENTS: 'true' });
    try {
      const server = await documentServer();
      const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
      server.serve('/jwks.json', { body: { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] } });
      const chatgpt = server.url('/chatgpt.json');
      server.serve('/chatgpt.json', {
        body: {
          client_id: chatgpt,
          client_name: 'ChatGPT',
          redirect_uris: [TEST_REDIRECT_URI],
          token_endpoint_auth_method: 'private_key_jwt',
          token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
          token_endpoint_auth_signing_alg: 'ES256',
          jwks_uri: server.url('/jwks.json'),
        },
      });
      const issuer = new URL(`${hosted.url}/`);
      const user = privateKeyToAccount(generatePrivateKey());
      const withKey = await oidc.discovery(
        issuer,
        chatgpt,
        undefined,
        oidc.PrivateKeyJwt({ key: privateKey, kid: 'k1' }),
        insecure,
      );
      expect(withKey.serverMetadata().client_id_metadata_document_supported).toBe(true);
      expect(withKey.serverMetadata().token_endpoint_auth_methods_supported).toEqual([
        'client_secret_basic',
        'client_secret_post',
        'private_key_jwt',
        'none',
      ]);
      const first = await pkceAuthorization(withKey);
      const signed = await walletSignIn({ authorizationUrl: first.url, signer: user });
      const tokens = await oidc.authorizationCodeGrant(withKey, signed.callbackUrl, { pkceCodeVerifier: first.verifier });
      expect(tokens.claims()?.sub).toBe(`eip155:1:${user.address}`);

      const plain = server.url('/plain.json');
      server.serve('/plain.json', { body: { client_id: plain, redirect_uris: [TEST_REDIRECT_URI] } });
      const publicClient = await oidc.discovery(issuer, plain, undefined, oidc.None(), insecure);
      const second = await pkceAuthorization(publicClient);
      const back = await walletSignIn({ authorizationUrl: second.url, signer: user });
      const publicTokens = await oidc.authorizationCodeGrant(publicClient, back.callbackUrl, {
        pkceCodeVerifier: second.verifier,
      });
      expect(publicTokens.claims()?.aud).toBe(plain);
    } finally {
      await hosted.stop();
    }
  });
});

describe('a sign-in by a client whose document is held costs what a registered client costs, or less', () => {
  /** Every storage operation the provider process counted (its /metrics), by operation. */
  async function storageOperations(target: Replica) {
    const text = await (await fetch(`${target.url}/metrics`)).text();
    const counts: Record<string, number> = {};
    for (const [, operation, value] of text.matchAll(/^signet_storage_operations_total\{operation="([^"]+)"\} (\d+)/gm)) {
      counts[operation as string] = Number(value);
    }
    return counts;
  }
  const difference = (after: Record<string, number>, before: Record<string, number>) =>
    Object.fromEntries(Object.entries(after).map(([operation, n]) => [operation, n - (before[operation] ?? 0)]));
  const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

  it("no storage read of the client and no fetch: its operations are at most a registered client's, the document fetched once", async () => {
    const sqlite = await providerWith({ STORAGE_URL: `sqlite:${join(dir, 'io.db')}` });
    try {
      const server = await documentServer();
      const clientId = server.url('/claude.json');
      server.serve('/claude.json', { body: claudeShaped(clientId), headers: { 'cache-control': 'max-age=3600' } });
      const registered = await oidc.dynamicClientRegistration(
        new URL(sqlite.url),
        { redirect_uris: [TEST_REDIRECT_URI], token_endpoint_auth_method: 'none' },
        oidc.None(),
        insecure,
      );
      const byDocument = await oidc.discovery(new URL(sqlite.url), clientId, undefined, oidc.None(), insecure);
      const user = privateKeyToAccount(generatePrivateKey());
      const signIn = async (config: oidc.Configuration) => {
        const { url, verifier } = await pkceAuthorization(config);
        const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer: user });
        await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier });
      };
      // Each client's first sign-in does its one-time work (the document's fetch, the client's first use).
      await signIn(registered);
      await signIn(byDocument);
      const measure = async (config: oidc.Configuration) => {
        const before = await storageOperations(sqlite);
        await signIn(config);
        return difference(await storageOperations(sqlite), before);
      };
      const ofRegistered = await measure(registered);
      const ofDocument = await measure(byDocument);
      expect(total(ofRegistered)).toBeGreaterThan(0);
      expect(total(ofDocument)).toBeLessThan(total(ofRegistered));
      expect(ofDocument.get ?? 0).toBeLessThan(ofRegistered.get ?? 0);
      expect(server.requests('/claude.json')).toBe(1);
    } finally {
      await sqlite.stop();
    }
  });
});

describe('documents Signet refuses: invalid_client or invalid_client_metadata with words, never a 500', () => {
  it.each([
    [
      'client_id is not the URL',
      (url: string) => ({ body: { ...claudeShaped(`${url}-other`) } }),
      'invalid_client_metadata',
      /client_id does not match/,
    ],
    [
      'a shared-secret method',
      (url: string) => ({ body: { ...claudeShaped(url), token_endpoint_auth_method: 'client_secret_basic' } }),
      'invalid_client_metadata',
      /shared-secret/,
    ],
    ['not JSON', () => ({ body: '<html>hello</html>', contentType: 'text/html' }), 'invalid_client', /is not JSON/],
    [
      'larger than 5 KB',
      (url: string) => ({ body: { ...claudeShaped(url), client_name: 'x'.repeat(6000) } }),
      'invalid_client',
      /larger than 5 KB/,
    ],
    ['404', () => ({ status: 404, body: 'nothing here' }), 'invalid_client', /answered 404/],
  ])('%s', async (_name, answer, error, words) => {
    const server = await documentServer();
    const clientId = server.url('/doc.json');
    server.serve('/doc.json', answer(clientId));
    const refused = await authorize(clientId);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe(error);
    expect(refused.body.error_description).toContain(clientId);
    expect(refused.body.error_description).toMatch(words);
    // Remembered: asking again costs no fetch, and answers the same words.
    const again = await authorize(clientId);
    expect(again.body).toEqual(refused.body);
    expect(server.requests('/doc.json')).toBe(1);
  });

  it('a document on a private address, without ALLOW_PRIVATE_FETCH: refused before any request leaves', async () => {
    const strict = await providerWith({ ALLOW_PRIVATE_FETCH: 'false' });
    try {
      const server = await documentServer();
      const clientId = server.url('/claude.json');
      server.serve('/claude.json', { body: claudeShaped(clientId) });
      const refused = await authorize(clientId, strict);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ error: 'invalid_client' });
      expect(refused.body.error_description).toMatch(/127\.0\.0\.1 is a private or special-use address/);
      expect(server.requests()).toBe(0);
    } finally {
      await strict.stop();
    }
  });

  it('a burst of distinct bad URLs: each fetched once per period, and at most 10 a minute from one host', async () => {
    const server = await documentServer();
    const urls = Array.from({ length: 8 }, (_, i) => server.url(`/missing-${i}.json`));
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(urls.map((url) => authorize(url)));
      for (const answer of answers) expect(answer.body.error_description).toMatch(/answered 404/);
    }
    expect(server.requests()).toBe(8);
    // Two more distinct documents reach the budget of this host; the next ones are not fetched.
    const more = Array.from({ length: 4 }, (_, i) => server.url(`/more-${i}.json`));
    const answers = [];
    for (const url of more) answers.push(await authorize(url));
    expect(server.requests()).toBe(10);
    expect(answers.slice(2).map((answer) => answer.body.error_description)).toEqual([
      expect.stringMatching(/too many client metadata documents fetched from 127\.0\.0\.1:\d+ in the last minute/),
      expect.stringMatching(/too many client metadata documents fetched from 127\.0\.0\.1:\d+ in the last minute/),
    ]);
  });
});
