/**
 * Pushed authorization requests (RFC 9126) and DPoP (RFC 9449), which oidc-provider enables by
 * default, as real features: a whole wallet sign-in through each with openid-client 6 on both
 * profiles, the per-client switches (require_pushed_authorization_requests,
 * dpop_bound_access_tokens), `/request` inside the authorization rate limit, and its body bounded
 * before anything is stored. Resource indicators through PAR
 * and DPoP give a JWT access token bound to the key (resource-indicators.test.ts has the rest).
 */
import { pkceAuthorization, request, startTestProvider, type TestProvider, walletSignIn } from '@signet/testkit';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from 'jose';
import * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUSHED_REQUEST_LIMIT } from '../src/http/request-size.ts';

const REDIRECT_URI = 'http://127.0.0.1:4999/callback';
const insecure = { execute: [oidc.allowInsecureRequests] };
const wallet = () => privateKeyToAccount(generatePrivateKey());

/** The provider on `profile`, and how a client authenticating with `authMethod` registers and pushes requests. */
function parProvider(profile: 'self-hosted' | 'hosted', authMethod: 'none' | 'client_secret_basic') {
  let provider: TestProvider;

  beforeAll(async () => {
    provider = await startTestProvider({ PROFILE: profile });
  });
  afterAll(() => provider?.stop());

  const register = (metadata: Partial<oidc.ClientMetadata> = {}) =>
    oidc.dynamicClientRegistration(
      new URL(provider.issuer),
      {
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: authMethod,
        grant_types: ['authorization_code', 'refresh_token'],
        ...metadata,
      },
      undefined,
      insecure,
    );

  const parameters = async () => {
    const verifier = oidc.randomPKCECodeVerifier();
    return {
      verifier,
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      params: {
        redirect_uri: REDIRECT_URI,
        scope: profile === 'hosted' ? 'openid profile' : 'openid profile offline_access',
        ...(profile === 'hosted' ? {} : { prompt: 'consent' }),
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      },
    };
  };

  const storedPushedRequests = async () => (await provider.app.services.store.keys('oidc:PushedAuthorizationRequest:')).length;

  return {
    get provider() {
      return provider;
    },
    register,
    parameters,
    storedPushedRequests,
    profile,
    authMethod,
  };
}
type ParProvider = ReturnType<typeof parProvider>;

/** Discovery and sign-ins through PAR. */
function pushedRequestTests(env: ParProvider) {
  it('discovery advertises both', async () => {
    const { provider, register } = env;
    const client = await register();
    const metadata = client.serverMetadata();
    expect(metadata.pushed_authorization_request_endpoint).toBe(`${provider.url}/request`);
    expect(metadata.dpop_signing_alg_values_supported).toEqual(expect.arrayContaining(['ES256']));
  });

  it('a whole sign-in through PAR: the authorization URL carries only client_id and request_uri', async () => {
    const { register, parameters } = env;
    const client = await register();
    const { verifier, state, nonce, params } = await parameters();
    const url = await oidc.buildAuthorizationUrlWithPAR(client, { ...params, state, nonce });
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    expect(url.searchParams.get('request_uri')).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    const signer = wallet();
    const { callbackUrl, details } = await walletSignIn({ authorizationUrl: url, signer });
    // The message the wallet signed names the pushed redirect_uri, as for any sign-in.
    expect(details.resources).toEqual([REDIRECT_URI]);
    const tokens = await oidc.authorizationCodeGrant(client, callbackUrl, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    expect(tokens.claims()?.sub).toBe(`eip155:1:${signer.address}`);
    // A pushed request is one-time: the same request_uri again is refused (a page: it no longer
    // says where to redirect).
    const again = await fetch(url, { redirect: 'manual' });
    expect(again.status).toBe(400);
    expect(again.headers.get('location')).toBeNull();
    expect(await again.text()).toContain('invalid_request_uri');
  });

  it('require_pushed_authorization_requests: that client’s plain authorization requests are refused', async () => {
    const { register, parameters } = env;
    const client = await register({ require_pushed_authorization_requests: true });
    const { verifier, state, params } = await parameters();
    const { callbackUrl, jar } = await walletSignIn({
      authorizationUrl: await oidc.buildAuthorizationUrlWithPAR(client, { ...params, state }),
      signer: wallet(),
    });
    await oidc.authorizationCodeGrant(client, callbackUrl, { pkceCodeVerifier: verifier, expectedState: state });
    // From the browser that signed in (the error is redirected there; elsewhere it is a page).
    const { url } = await pkceAuthorization(client, { state: 'plain' });
    const refused = await request(jar, url);
    expect(refused.status).toBe(303);
    const target = new URL(refused.headers.get('location') as string);
    expect(target.searchParams.get('error')).toBe('invalid_request');
    expect(target.searchParams.get('error_description')).toMatch(/Pushed Authorization Request must be used/i);
    expect(target.searchParams.get('code')).toBeNull();
  });
}

/** Tokens bound to a key with DPoP. */
function dpopTests(env: ParProvider) {
  it('a whole sign-in with DPoP: the access and refresh tokens are bound to the key, useless without a proof', async () => {
    const { register, parameters, authMethod } = env;
    const client = await register();
    const keys = await oidc.randomDPoPKeyPair();
    const DPoP = oidc.getDPoPHandle(client, keys);
    const { verifier, state, params } = await parameters();
    const url = await oidc.buildAuthorizationUrlWithPAR(client, { ...params, state }, { DPoP });
    const signer = wallet();
    const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer });
    const tokens = await oidc.authorizationCodeGrant(
      client,
      callbackUrl,
      { pkceCodeVerifier: verifier, expectedState: state },
      undefined,
      {
        DPoP,
      },
    );
    expect(tokens.token_type.toLowerCase()).toBe('dpop');
    const sub = tokens.claims()?.sub as string;
    expect(await oidc.fetchUserInfo(client, tokens.access_token, sub, { DPoP })).toMatchObject({ sub });
    // The same token as a bearer token, or with a proof from another key: refused.
    const bearer = await fetch(client.serverMetadata().userinfo_endpoint as string, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(bearer.status).toBe(401);
    const otherKey = oidc.getDPoPHandle(client, await oidc.randomDPoPKeyPair());
    await expect(oidc.fetchUserInfo(client, tokens.access_token, sub, { DPoP: otherKey })).rejects.toThrow();
    // A public client's refresh token is bound to the key too (RFC 9449 §5); a confidential
    // client authenticates instead, and its new access token is bound to the key it presents.
    expect(tokens.refresh_token).toEqual(expect.any(String));
    if (authMethod === 'none') {
      await expect(
        oidc.refreshTokenGrant(client, tokens.refresh_token as string, undefined, { DPoP: otherKey }),
      ).rejects.toMatchObject({
        error: 'invalid_grant',
      });
      const refreshed = await oidc.refreshTokenGrant(client, tokens.refresh_token as string, undefined, { DPoP });
      expect(refreshed.token_type.toLowerCase()).toBe('dpop');
      expect(await oidc.fetchUserInfo(client, refreshed.access_token, sub, { DPoP })).toMatchObject({ sub });
    } else {
      const refreshed = await oidc.refreshTokenGrant(client, tokens.refresh_token as string, undefined, { DPoP: otherKey });
      expect(refreshed.token_type.toLowerCase()).toBe('dpop');
      await expect(oidc.fetchUserInfo(client, refreshed.access_token, sub, { DPoP })).rejects.toThrow();
      expect(await oidc.fetchUserInfo(client, refreshed.access_token, sub, { DPoP: otherKey })).toMatchObject({ sub });
    }
  });

  it('dpop_bound_access_tokens: that client gets no token without a DPoP proof, and one with it', async () => {
    const { register } = env;
    const client = await register({ dpop_bound_access_tokens: true });
    const without = await pkceAuthorization(client);
    const first = await walletSignIn({ authorizationUrl: without.url, signer: wallet() });
    await expect(
      oidc.authorizationCodeGrant(client, first.callbackUrl, { pkceCodeVerifier: without.verifier }),
    ).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    const DPoP = oidc.getDPoPHandle(client, await oidc.randomDPoPKeyPair());
    const withProof = await pkceAuthorization(client);
    const second = await walletSignIn({ authorizationUrl: withProof.url, signer: wallet() });
    const tokens = await oidc.authorizationCodeGrant(
      client,
      second.callbackUrl,
      { pkceCodeVerifier: withProof.verifier },
      undefined,
      {
        DPoP,
      },
    );
    expect(tokens.token_type.toLowerCase()).toBe('dpop');
  });
}

/** Rate limits, request size limits and resources through PAR. */
function parLimitAndResourceTests(env: ParProvider) {
  it('/request counts in the authorization rate limit (with /auth, in every spelling)', async () => {
    const { parameters, profile, authMethod } = env;
    const limited = await startTestProvider({ PROFILE: profile, RATE_LIMIT_AUTHORIZATION: '2' });
    try {
      const client = await oidc.dynamicClientRegistration(
        new URL(limited.issuer),
        { redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: authMethod },
        undefined,
        insecure,
      );
      const { params } = await parameters();
      await oidc.buildAuthorizationUrlWithPAR(client, params);
      const { url } = await pkceAuthorization(client);
      expect((await fetch(url, { redirect: 'manual' })).status).toBe(303);
      for (const path of ['/request', '/REQUEST', '/request/']) {
        const response = await fetch(`${limited.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ client_id: client.clientMetadata().client_id, ...params }),
        });
        expect(response.status, path).toBe(429);
        expect(await response.json()).toMatchObject({ error: 'rate_limited' });
      }
    } finally {
      await limited.stop();
    }
  });

  it('a pushed request over 16 KB, or without Content-Length, is refused before anything is stored', async () => {
    const { provider, register, parameters, storedPushedRequests, authMethod } = env;
    const client = await register();
    const { params } = await parameters();
    const before = await storedPushedRequests();
    const form = (extra: string) =>
      new URLSearchParams({
        client_id: client.clientMetadata().client_id,
        response_type: 'code',
        ...params,
        state: extra,
      }).toString();
    const basic =
      authMethod === 'none'
        ? {}
        : {
            authorization: `Basic ${Buffer.from(`${client.clientMetadata().client_id}:${client.clientMetadata().client_secret}`).toString('base64')}`,
          };
    const post = (body: BodyInit, headers: Record<string, string> = {}) =>
      fetch(`${provider.url}/request`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...basic, ...headers },
        body,
        duplex: 'half',
      } as RequestInit);
    const fifty = await post(form('x'.repeat(50 * 1024)));
    expect(fifty.status).toBe(413);
    expect((await fifty.json()).error_description).toContain(`at most ${PUSHED_REQUEST_LIMIT} bytes`);
    expect((await post(form('x'.repeat(PUSHED_REQUEST_LIMIT)))).status).toBe(413);
    const chunked = await post(
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(form('chunked')));
          controller.close();
        },
      }),
    );
    expect(chunked.status).toBe(411);
    expect(await storedPushedRequests()).toBe(before);
    // Within the limit: stored and answered as RFC 9126 says.
    const accepted = await post(form('ok'));
    expect(accepted.status, await accepted.clone().text()).toBe(201);
    expect(await accepted.json()).toMatchObject({ request_uri: expect.stringMatching(/^urn:/), expires_in: expect.any(Number) });
    expect(await storedPushedRequests()).toBe(before + 1);
  });

  it('a resource through PAR with DPoP: a JWT for that audience bound to the key (hosted, by default: invalid_target)', async () => {
    const { register, parameters, profile } = env;
    const client = await register();
    const { verifier, params } = await parameters();
    const resource = 'https://api.example.com/';
    const dpop = oidc.getDPoPHandle(client, await oidc.randomDPoPKeyPair('ES256'));
    if (profile === 'hosted') {
      // RESOURCE_INDICATORS names no resource by default on hosted: the pushed request is refused.
      await expect(oidc.buildAuthorizationUrlWithPAR(client, { ...params, resource }, { DPoP: dpop })).rejects.toMatchObject({
        error: 'invalid_target',
        error_description: expect.stringMatching(/issues tokens for no resource/),
      });
      return;
    }
    const url = await oidc.buildAuthorizationUrlWithPAR(client, { ...params, resource }, { DPoP: dpop });
    const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer: wallet() });
    const tokens = await oidc.authorizationCodeGrant(
      client,
      callbackUrl,
      { pkceCodeVerifier: verifier },
      { resource },
      { DPoP: dpop },
    );
    expect(tokens.token_type).toBe('dpop');
    const claims = decodeJwt(tokens.access_token);
    expect(claims.aud).toBe(resource);
    expect((claims.cnf as { jkt?: string } | undefined)?.jkt).toMatch(/^[\w-]{43}$/);
  });
}

describe.each([
  ['self-hosted', 'none'],
  ['hosted', 'client_secret_basic'],
] as const)('PAR and DPoP with openid-client 6, %s profile (%s client)', (profile, authMethod) => {
  const env = parProvider(profile, authMethod);
  pushedRequestTests(env);
  dpopTests(env);
  parLimitAndResourceTests(env);
});

/**
 * One DPoP proof, one use: the same proof sent at once to two providers sharing one Redis (and
 * many times to each) is accepted exactly once. oidc-provider's own check finds, then saves:
 * every concurrent copy found nothing and passed.
 */
describe('DPoP proofs are claimed atomically, across replicas', () => {
  const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  let a: TestProvider;
  let b: TestProvider;
  beforeAll(async () => {
    const shared = { STORAGE_URL: REDIS_URL, STORAGE_PREFIX: `signet-test:dpop:${crypto.randomUUID()}:` };
    a = await startTestProvider(shared);
    b = await startTestProvider({ ...shared, ISSUER: a.url });
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
  });

  /** A DPoP proof for GET <userinfo> with this access token, as a client makes one (RFC 9449 §4.2). */
  async function proof(keys: CryptoKeyPair, htu: string, accessToken: string) {
    const ath = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(accessToken))).toString('base64url');
    return new SignJWT({ htm: 'GET', htu, ath, jti: crypto.randomUUID() })
      .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: await exportJWK(keys.publicKey) })
      .setIssuedAt()
      .sign(keys.privateKey);
  }

  it('the same proof posted 16 times at once, to two replicas on one Redis: exactly one 200', async () => {
    const client = await oidc.dynamicClientRegistration(
      new URL(a.issuer),
      { redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' },
      undefined,
      insecure,
    );
    const keys = (await generateKeyPair('ES256', { extractable: true })) as CryptoKeyPair;
    const DPoP = oidc.getDPoPHandle(client, keys);
    const { url, verifier } = await pkceAuthorization(client);
    const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer: wallet() });
    const tokens = await oidc.authorizationCodeGrant(client, callbackUrl, { pkceCodeVerifier: verifier }, undefined, { DPoP });
    expect(tokens.token_type.toLowerCase()).toBe('dpop');
    const userinfo = client.serverMetadata().userinfo_endpoint as string;
    const jwt = await proof(keys, userinfo, tokens.access_token);
    const send = (base: string) =>
      fetch(`${base}${new URL(userinfo).pathname}`, { headers: { authorization: `DPoP ${tokens.access_token}`, dpop: jwt } });
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => send(i % 2 === 0 ? a.url : b.url)));
    const statuses = answers.map((response) => response.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 401)).toHaveLength(15);
    // A fresh proof still works: only the replayed one is spent.
    const fresh = await fetch(userinfo.replace(a.issuer, a.url), {
      headers: { authorization: `DPoP ${tokens.access_token}`, dpop: await proof(keys, userinfo, tokens.access_token) },
    });
    expect(fresh.status).toBe(200);
  });

  it('userinfo requests with a DPoP proof count in RATE_LIMIT_TOKEN (each stores its proof), in every spelling of the path', async () => {
    const limited = await startTestProvider({ RATE_LIMIT_TOKEN: '3' });
    try {
      const client = await oidc.dynamicClientRegistration(
        new URL(limited.issuer),
        { redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' },
        undefined,
        insecure,
      );
      const keys = (await generateKeyPair('ES256', { extractable: true })) as CryptoKeyPair;
      const DPoP = oidc.getDPoPHandle(client, keys);
      const { url, verifier } = await pkceAuthorization(client);
      const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer: wallet() });
      // The token request is the first of the three.
      const tokens = await oidc.authorizationCodeGrant(client, callbackUrl, { pkceCodeVerifier: verifier }, undefined, {
        DPoP,
      });
      const userinfo = client.serverMetadata().userinfo_endpoint as string;
      const statuses: number[] = [];
      for (const path of [
        userinfo,
        userinfo,
        userinfo,
        userinfo.toUpperCase().replace(/^HTTP:\/\/LOCALHOST/, 'http://localhost'),
      ]) {
        const response = await fetch(path, {
          headers: { authorization: `DPoP ${tokens.access_token}`, dpop: await proof(keys, userinfo, tokens.access_token) },
        });
        statuses.push(response.status);
      }
      expect(statuses).toEqual([200, 200, 429, 429]);
    } finally {
      await limited.stop();
    }
  });
});
