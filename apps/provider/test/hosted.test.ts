import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { messageFor, request, startTestProvider, type TestProvider, walletSignIn } from '@signet/testkit';
import { createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REDIRECT_URI = 'http://127.0.0.1:4999/callback';
const HTTPS_REDIRECT = 'https://rp.example.com/callback';
const insecure = { execute: [oidc.allowInsecureRequests] };

// One hosted provider, shared by the "hosted profile" describes below.
let provider: TestProvider;
let base: string;

beforeAll(async () => {
  // The jwks_uri test serves client keys on loopback, which the provider refuses to fetch by default.
  provider = await startTestProvider({ PROFILE: 'hosted', ALLOW_PRIVATE_FETCH: 'true' });
  base = provider.url;
});
afterAll(() => provider?.stop());

const register = async (metadata: Record<string, unknown>) => {
  const response = await fetch(`${base}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT_URI], ...metadata }),
  });
  const body = await response.json();
  if (response.status !== 201) throw new Error(`registration failed: ${JSON.stringify(body)}`);
  return body as Record<string, string>;
};

async function codeFlow(config: oidc.Configuration, scope = 'openid profile') {
  const signer = privateKeyToAccount(generatePrivateKey());
  const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT_URI, scope, state: 'abc' });
  const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer });
  const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { expectedState: 'abc' });
  return { signer, tokens };
}

describe('hosted profile (PROFILE=hosted)', () => {
  it('discovery has the values of the spec table, field by field', async () => {
    const d = await (await fetch(`${base}/.well-known/openid-configuration`)).json();
    const set = (value: string[]) => new Set(value.map((v) => v.split(' ').sort().join(' ')));
    expect(d.issuer).toBe(`${base}/`);
    expect(d.authorization_endpoint).toBe(`${base}/authorize`);
    expect(d.token_endpoint).toBe(`${base}/token`);
    expect(d.userinfo_endpoint).toBe(`${base}/userinfo`);
    expect(d.jwks_uri).toBe(`${base}/jwk`);
    expect(d.registration_endpoint).toBe(`${base}/register`);
    // Exactly the table's values: `wallets` (which works for account clients) and `email` are
    // advertised only when the operator turns them on (the email scope test, below).
    expect(d.scopes_supported).toEqual(['openid', 'profile']);
    expect(set(d.response_types_supported)).toEqual(set(['code', 'id_token', 'token id_token']));
    expect(d.subject_types_supported).toEqual(['pairwise']);
    expect(d.id_token_signing_alg_values_supported).toEqual(['RS256']);
    expect(d.userinfo_signing_alg_values_supported).toEqual(['RS256']);
    expect(set(d.token_endpoint_auth_methods_supported)).toEqual(
      set(['client_secret_basic', 'client_secret_post', 'private_key_jwt']),
    );
    expect(d.claims_supported).toEqual(['sub', 'aud', 'exp', 'iat', 'iss', 'preferred_username', 'picture']);
    expect(d.op_policy_uri).toMatch(new RegExp(`^${base}/legal/`));
    expect(d.op_tos_uri).toMatch(new RegExp(`^${base}/legal/`));
    for (const url of Object.values(d).filter((v): v is string => typeof v === 'string' && v.startsWith('http'))) {
      expect(new URL(url).pathname).not.toMatch(/\/\//);
    }
  });

  it('discovery answers at the issuer with the well-known path appended as written (`<issuer>/.well-known/…`, a double slash: django-allauth)', async () => {
    const { issuer } = await (await fetch(`${base}/.well-known/openid-configuration`)).json();
    const appended = await fetch(`${issuer}/.well-known/openid-configuration`);
    expect(new URL(`${issuer}/.well-known/openid-configuration`).pathname).toBe('//.well-known/openid-configuration');
    expect(appended.status).toBe(200);
    expect(appended.headers.get('cache-control')).toBe('public, max-age=300');
    expect(await appended.json()).toEqual(await (await fetch(`${base}/.well-known/openid-configuration`)).json());
    // Only that path: another double-slash path is still unknown.
    expect((await fetch(`${base}//jwk`)).status).toBe(404);
  });

  it('serves the privacy policy and terms as real pages', async () => {
    const d = await (await fetch(`${base}/.well-known/openid-configuration`)).json();
    for (const url of [d.op_policy_uri, d.op_tos_uri]) {
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(await page.text()).toMatch(/<h1>(Privacy policy|Terms of use)<\/h1>/);
    }
  });
});

describe('hosted profile (PROFILE=hosted): client authentication', () => {
  it('registers at /register with a secret by default, and manages the client at /client/<id>', async () => {
    const client = await register({ client_name: 'Hosted RP' });
    expect(client.client_secret).toEqual(expect.any(String));
    expect(client.token_endpoint_auth_method).toBe('client_secret_basic');
    expect(client.registration_client_uri).toBe(`${base}/client/${client.client_id}`);
    const auth = { authorization: `Bearer ${client.registration_access_token}` };
    expect(await (await fetch(client.registration_client_uri as string, { headers: auth })).json()).toMatchObject({
      client_id: client.client_id,
      registration_client_uri: `${base}/client/${client.client_id}`,
    });
    const update = await fetch(client.registration_client_uri as string, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        client_id: client.client_id,
        client_secret: client.client_secret,
        redirect_uris: [REDIRECT_URI],
        client_name: 'Renamed',
      }),
    });
    expect(update.status).toBe(200);
    expect((await update.json()).client_name).toBe('Renamed');
    expect((await fetch(`${base}/register/${client.client_id}`, { headers: auth })).status).toBe(404);
    expect((await fetch(client.registration_client_uri as string, { method: 'DELETE', headers: auth })).status).toBe(204);

    const publicClient = await register({ token_endpoint_auth_method: 'none' });
    expect(publicClient).not.toHaveProperty('client_secret');
  });

  it('client_secret_basic and client_secret_post sign-ins (openid-client)', async () => {
    for (const [method, auth] of [
      ['client_secret_basic', oidc.ClientSecretBasic],
      ['client_secret_post', oidc.ClientSecretPost],
    ] as const) {
      const registered = await register({ token_endpoint_auth_method: method });
      const config = await oidc.discovery(
        new URL(base),
        registered.client_id as string,
        registered.client_secret,
        auth(),
        insecure,
      );
      const { signer, tokens } = await codeFlow(config);
      const claims = tokens.claims();
      expect(claims?.iss).toBe(`${base}/`);
      expect(claims?.sub).toBe(`eip155:1:${signer.address}`);
    }
  });

  it('private_key_jwt with an inline jwks (openid-client signs the assertion)', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const registered = await register({
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_signing_alg: 'ES256',
      jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] },
    });
    expect(registered).not.toHaveProperty('client_secret');
    const config = await oidc.discovery(
      new URL(base),
      registered.client_id as string,
      undefined,
      oidc.PrivateKeyJwt({ key: privateKey, kid: 'k1' }),
      insecure,
    );
    const { signer, tokens } = await codeFlow(config);
    expect(tokens.claims()?.sub).toBe(`eip155:1:${signer.address}`);
  });

  it('private_key_jwt with a jwks_uri the provider fetches', async () => {
    const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
    const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'rsa1', alg: 'RS256', use: 'sig' }] };
    const server: Server = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks)),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const registered = await register({
        token_endpoint_auth_method: 'private_key_jwt',
        jwks_uri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`,
      });
      const config = await oidc.discovery(
        new URL(base),
        registered.client_id as string,
        undefined,
        oidc.PrivateKeyJwt({ key: privateKey, kid: 'rsa1' }),
        insecure,
      );
      const { signer, tokens } = await codeFlow(config);
      expect(tokens.claims()?.sub).toBe(`eip155:1:${signer.address}`);
    } finally {
      server.close();
    }
  });
});

describe('hosted profile (PROFILE=hosted): SSRF and oauth4webapi', () => {
  it('by default refuses to fetch a jwks_uri on a loopback or private address (SSRF)', async () => {
    const strict = await startTestProvider({ PROFILE: 'hosted' });
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'e1', alg: 'ES256', use: 'sig' }] };
    let fetched = 0;
    const server: Server = createServer((_req, res) => {
      fetched += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const response = await fetch(`${strict.url}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          redirect_uris: [REDIRECT_URI],
          token_endpoint_auth_method: 'private_key_jwt',
          jwks_uri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`,
        }),
      });
      const registered = await response.json();
      const config = await oidc.discovery(
        new URL(strict.url),
        registered.client_id,
        undefined,
        oidc.PrivateKeyJwt({ key: privateKey, kid: 'e1' }),
        insecure,
      );
      const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT_URI, scope: 'openid' });
      const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer: privateKeyToAccount(generatePrivateKey()) });
      await expect(oidc.authorizationCodeGrant(config, callbackUrl)).rejects.toMatchObject({ error: 'invalid_client' });
      expect(fetched).toBe(0);
    } finally {
      server.close();
      await strict.stop();
    }
  });

  it('a client_secret_basic sign-in with oauth4webapi', async () => {
    const registered = await register({});
    const issuer = new URL(`${base}/`);
    const as = await oauth
      .discoveryRequest(issuer, { [oauth.allowInsecureRequests]: true })
      .then((response) => oauth.processDiscoveryResponse(issuer, response));
    const client: oauth.Client = { client_id: registered.client_id as string };
    const clientAuth = oauth.ClientSecretBasic(registered.client_secret as string);
    const verifier = oauth.generateRandomCodeVerifier();
    const nonce = oauth.generateRandomNonce();
    const url = new URL(as.authorization_endpoint as string);
    url.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'openid profile',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      nonce,
    }).toString();
    const signer = privateKeyToAccount(generatePrivateKey());
    const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer });
    const params = oauth.validateAuthResponse(as, client, callbackUrl);
    const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, REDIRECT_URI, verifier, {
      [oauth.allowInsecureRequests]: true,
    });
    const result = await oauth.processAuthorizationCodeResponse(as, client, response, {
      expectedNonce: nonce,
      requireIdToken: true,
    });
    expect(oauth.getValidatedIdTokenClaims(result)?.sub).toBe(`eip155:1:${signer.address}`);
  });
});

describe('hosted profile (PROFILE=hosted): implicit responses and signed userinfo', () => {
  it('implicit id_token and id_token token responses (fragment)', async () => {
    const jwks = createRemoteJWKSet(new URL(`${base}/jwk`));
    for (const responseType of ['id_token', 'id_token token']) {
      const registered = await register({
        redirect_uris: [HTTPS_REDIRECT],
        response_types: [responseType],
        grant_types: ['implicit'],
        token_endpoint_auth_method: 'none',
      });
      const nonce = oidc.randomNonce();
      const url = new URL(`${base}/authorize`);
      url.search = new URLSearchParams({
        client_id: registered.client_id as string,
        redirect_uri: HTTPS_REDIRECT,
        response_type: responseType,
        scope: 'openid profile',
        nonce,
        state: 's1',
      }).toString();
      const signer = privateKeyToAccount(generatePrivateKey());
      const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer });
      expect(callbackUrl.search).toBe('');
      const fragment = new URLSearchParams(callbackUrl.hash.slice(1));
      expect(fragment.get('state')).toBe('s1');
      const { payload } = await jwtVerify(fragment.get('id_token') as string, jwks, {
        issuer: `${base}/`,
        audience: registered.client_id as string,
      });
      expect(payload).toMatchObject({ sub: `eip155:1:${signer.address}`, nonce, preferred_username: signer.address });
      if (responseType === 'id_token token') {
        expect(payload.at_hash).toEqual(expect.any(String));
        const accessToken = fragment.get('access_token') as string;
        const userinfo = await fetch(`${base}/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
        expect(await userinfo.json()).toMatchObject({ sub: `eip155:1:${signer.address}` });
      } else {
        expect(fragment.get('access_token')).toBeNull();
      }
    }
  });

  it('signed userinfo: application/jwt signed with RS256', async () => {
    const registered = await register({ userinfo_signed_response_alg: 'RS256' });
    const config = await oidc.discovery(
      new URL(base),
      registered.client_id as string,
      registered.client_secret,
      oidc.ClientSecretBasic(),
      insecure,
    );
    const { signer, tokens } = await codeFlow(config);
    const response = await fetch(`${base}/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(response.headers.get('content-type')).toMatch(/^application\/jwt/);
    const { payload, protectedHeader } = await jwtVerify(await response.text(), createRemoteJWKSet(new URL(`${base}/jwk`)), {
      issuer: `${base}/`,
      audience: registered.client_id as string,
    });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload).toMatchObject({ sub: `eip155:1:${signer.address}`, preferred_username: signer.address });
    // openid-client reads the signed response too.
    expect(await oidc.fetchUserInfo(config, tokens.access_token, `eip155:1:${signer.address}`)).toMatchObject({
      sub: `eip155:1:${signer.address}`,
    });
  });
});

describe('hosted profile (PROFILE=hosted): pairwise subjects', () => {
  it('account clients, pairwise: one opaque sub per sector for every wallet of the person, and neither wallet nor wallets', async () => {
    const alice = privateKeyToAccount(generatePrivateKey());
    const ledger = privateKeyToAccount(generatePrivateKey());
    const signIn = async (metadata: Record<string, unknown>, redirectUri: string, signer = alice) => {
      const registered = await register({ redirect_uris: [redirectUri], account_subject: true, ...metadata });
      const config = await oidc.discovery(
        new URL(base),
        registered.client_id as string,
        registered.client_secret,
        oidc.ClientSecretBasic(),
        insecure,
      );
      const url = oidc.buildAuthorizationUrl(config, { redirect_uri: redirectUri, scope: 'openid wallets', prompt: 'login' });
      const { callbackUrl, jar } = await walletSignIn({ authorizationUrl: url, signer });
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl);
      const claims = tokens.claims() as Record<string, unknown>;
      const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub as string);
      return { claims, userinfo, jar };
    };
    const first = await signIn({ subject_type: 'pairwise' }, 'http://127.0.0.1:4999/a');
    // Alice links her Ledger on /account (the hosted issuer's own origin).
    const origin = new URL(base).origin;
    const call = (method: string, path: string, body?: unknown) =>
      request(first.jar, new URL(`${base}${path}`), {
        method,
        headers: { accept: 'application/json', 'content-type': 'application/json', origin },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const message = messageFor(await (await call('GET', '/account/link')).json(), ledger.address);
    const linked = await call('POST', '/account/wallets', { message, signature: await ledger.signMessage({ message }) });
    expect(linked.status, await linked.clone().text()).toBe(201);

    const withLedger = await signIn({ subject_type: 'pairwise' }, 'http://127.0.0.1:4999/b', ledger);
    const otherSector = await signIn({ subject_type: 'pairwise' }, 'http://localhost:4999/c', ledger);
    const publicClient = await signIn({}, REDIRECT_URI, ledger);
    // One sub in a sector whichever wallet signs; another sector, another sub; none names a wallet.
    expect(withLedger.claims.sub).toBe(first.claims.sub);
    expect(otherSector.claims.sub).not.toBe(first.claims.sub);
    expect(publicClient.claims.sub).toMatch(/^acct_/);
    expect(first.claims.sub).not.toBe(publicClient.claims.sub);
    for (const { claims, userinfo } of [first, withLedger, otherSector]) {
      expect(JSON.stringify({ claims, userinfo })).not.toMatch(
        new RegExp(`${alice.address.slice(2)}|${ledger.address.slice(2)}|acct_`, 'i'),
      );
      expect(claims).not.toHaveProperty('wallet');
      expect(userinfo).not.toHaveProperty('wallets');
    }
    // The public account client gets both.
    expect(publicClient.claims.wallet).toBe(`eip155:0:${ledger.address}`);
    expect(publicClient.userinfo.wallets).toEqual([`eip155:0:${alice.address}`, `eip155:0:${ledger.address}`]);
  });

  it('pairwise subjects: stable within a sector, different across sectors; public stays eip155', async () => {
    const signer = privateKeyToAccount(generatePrivateKey());
    const subFor = async (metadata: Record<string, unknown>, redirectUri = REDIRECT_URI) => {
      const registered = await register({ redirect_uris: [redirectUri], ...metadata });
      const config = await oidc.discovery(
        new URL(base),
        registered.client_id as string,
        registered.client_secret,
        oidc.ClientSecretBasic(),
        insecure,
      );
      const url = oidc.buildAuthorizationUrl(config, { redirect_uri: redirectUri, scope: 'openid' });
      const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer });
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl);
      const sub = tokens.claims()?.sub as string;
      expect((await oidc.fetchUserInfo(config, tokens.access_token, sub)).sub).toBe(sub);
      return sub;
    };
    const a1 = await subFor({ subject_type: 'pairwise' }, 'http://127.0.0.1:4999/a');
    const a2 = await subFor({ subject_type: 'pairwise' }, 'http://127.0.0.1:4999/b');
    const b = await subFor({ subject_type: 'pairwise' }, 'http://localhost:4999/c');
    const pub = await subFor({});
    expect(a1).toBe(a2);
    expect(a1).not.toBe(b);
    expect(a1).not.toContain(signer.address.slice(2).toLowerCase());
    expect(a1).not.toContain(signer.address.slice(2));
    expect(pub).toBe(`eip155:1:${signer.address}`);
  });
});
