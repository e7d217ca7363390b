/**
 * Resource indicators (RFC 8707) with RFC 9068 JWT access tokens, on both profiles, with
 * openid-client: a token asked for a resource is a JWT for that audience, signed with the
 * provider's keys and carrying the client's own subject; `resource` stays the same from the
 * authorization request to the refresh, or `invalid_target`; without `resource` nothing changes
 * (opaque tokens, /me). Such a token is introspected and revoked as itself, never by its jti.
 */
import { startTestProvider, type TestProvider, walletSignIn } from '@signet/testkit';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REDIRECT_URI = 'http://127.0.0.1:4999/callback';
const insecure = { execute: [oidc.allowInsecureRequests] };
const MCP = 'https://mcp.example.com/mcp';

type Profile = 'self-hosted' | 'hosted';

function harness(profile: Profile, settings: Record<string, string> = {}) {
  const state: { provider?: TestProvider } = {};
  beforeAll(async () => {
    state.provider = await startTestProvider({ PROFILE: profile, ...settings });
  });
  afterAll(() => state.provider?.stop());
  const provider = () => state.provider as TestProvider;

  async function register(metadata: Partial<oidc.ClientMetadata> = {}) {
    const base = { redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code', 'refresh_token'] };
    const confidential = profile === 'hosted' && metadata.token_endpoint_auth_method === undefined;
    const registered = await oidc.dynamicClientRegistration(
      new URL(provider().issuer),
      { ...base, token_endpoint_auth_method: confidential ? 'client_secret_basic' : 'none', ...metadata },
      oidc.None(),
      insecure,
    );
    const { client_id: clientId, client_secret: secret } = registered.clientMetadata();
    if (typeof secret !== 'string') return registered;
    return oidc.discovery(new URL(provider().issuer), clientId, secret, oidc.ClientSecretBasic(secret), insecure);
  }

  /** A whole sign-in; `resource` at the authorization request (and by default at the token request). */
  async function signIn(
    config: oidc.Configuration,
    { resource, tokenResource = resource, scope = 'openid profile offline_access' }: Record<string, string | undefined> = {},
  ) {
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: scope as string,
      prompt: 'consent',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...(resource ? { resource } : {}),
    });
    const user = privateKeyToAccount(generatePrivateKey());
    const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer: user });
    const tokens = await oidc.authorizationCodeGrant(
      config,
      callbackUrl,
      { pkceCodeVerifier: verifier },
      tokenResource ? { resource: tokenResource } : undefined,
    );
    return { tokens, user };
  }

  async function post(path: string, config: oidc.Configuration, body: Record<string, string>) {
    const { client_id: clientId, client_secret: secret } = config.clientMetadata();
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (typeof secret === 'string') headers.authorization = `Basic ${btoa(`${clientId}:${secret}`)}`;
    const response = await fetch(`${provider().url}${path}`, {
      method: 'POST',
      headers,
      body: new URLSearchParams(typeof secret === 'string' ? body : { ...body, client_id: clientId }),
    });
    return { status: response.status, body: (await response.json().catch(() => ({}))) as Record<string, unknown> };
  }

  return { provider, register, signIn, post };
}

describe.each([
  ['self-hosted', {}],
  ['hosted', { RESOURCE_INDICATORS: 'https://mcp.example.com/' }],
] as const)('RFC 8707 resources and RFC 9068 access tokens (%s)', (profile, settings) => {
  const { provider, register, signIn, post } = harness(profile, settings);
  const paths = profile === 'hosted' ? { me: '/userinfo', token: '/token' } : { me: '/me', token: '/token' };

  it('a token for a resource is a JWT: typ at+jwt, the provider keys, aud = the resource, the ID token sub', async () => {
    const config = await register();
    const { tokens } = await signIn(config, { resource: MCP });
    expect(decodeProtectedHeader(tokens.access_token)).toMatchObject({ typ: 'at+jwt', alg: 'RS256' });
    const keys = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri as string));
    const { payload } = await jwtVerify(tokens.access_token, keys, { issuer: provider().issuer, audience: MCP, typ: 'at+jwt' });
    expect(payload).toMatchObject({
      sub: tokens.claims()?.sub,
      client_id: config.clientMetadata().client_id,
      scope: 'openid profile',
      // Who signed in, as the ID token says it (profile): a resource server's whoami needs no userinfo.
      preferred_username: tokens.claims()?.preferred_username,
    });
    expect(payload.preferred_username).toEqual(expect.any(String));
    expect(payload.siwe_message).toBeUndefined();
    for (const claim of ['iat', 'exp', 'jti']) expect(payload[claim], claim).toBeDefined();
    expect(Number(payload.exp) - Number(payload.iat)).toBe(3600);
  });

  it('the same resource at the refresh: a new JWT for it; another resource: invalid_target with words', async () => {
    const config = await register();
    const { tokens } = await signIn(config, { resource: MCP });
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string, { resource: MCP });
    expect(decodeJwt(refreshed.access_token).aud).toBe(MCP);
    // Without resource at the refresh: the grant's.
    const again = await oidc.refreshTokenGrant(config, refreshed.refresh_token ?? (tokens.refresh_token as string));
    expect(decodeJwt(again.access_token).aud).toBe(MCP);
    const other = await post(paths.token, config, {
      grant_type: 'refresh_token',
      refresh_token: again.refresh_token ?? (tokens.refresh_token as string),
      resource: 'https://mcp.example.com/other',
    });
    expect(other.status).toBe(400);
    expect(other.body.error).toBe('invalid_target');
    expect(other.body.error_description).toMatch(
      /https:\/\/mcp\.example\.com\/other is not the resource this grant was made for/,
    );
  });

  it('a token request naming another resource than the authorization request: invalid_target', async () => {
    const config = await register();
    await expect(signIn(config, { resource: MCP, tokenResource: 'https://mcp.example.com/elsewhere' })).rejects.toMatchObject({
      error: 'invalid_target',
      error_description: expect.stringMatching(/not the resource this grant was made for/),
    });
  });

  it('a resource RESOURCE_INDICATORS does not allow: invalid_target at the authorization request, in words', async () => {
    const config = await register();
    // A client this browser never signed in to: the error is shown by the provider (redirects/unused-clients.ts).
    await expect(signIn(config, { resource: 'http://api.example.com/' })).rejects.toThrow(
      /answered 400[\s\S]*resource http:\/\/api\.example\.com\/ is not a resource this provider issues tokens for[\s\S]*invalid_target/,
    );
    await expect(signIn(config, { resource: 'https://mcp.example.com/a/../admin' })).rejects.toThrow(
      /dot segment[\s\S]*invalid_target/,
    );
  });

  it("without resource: an opaque token that /me takes; a JWT for a resource is not /me's (401, its own audience)", async () => {
    const config = await register();
    const plain = await signIn(config);
    expect(plain.tokens.access_token.split('.')).toHaveLength(1);
    const sub = plain.tokens.claims()?.sub as string;
    expect((await oidc.fetchUserInfo(config, plain.tokens.access_token, sub)).sub).toBe(sub);
    const { tokens } = await signIn(config, { resource: MCP });
    const me = await fetch(`${provider().url}${paths.me}`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(me.status).toBe(401);
    expect(me.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });

  it('introspection and revocation take the JWT itself; its jti alone is nothing', async () => {
    const config = await register();
    const { tokens } = await signIn(config, { resource: MCP });
    const { jti } = decodeJwt(tokens.access_token);
    const active = await post('/token/introspection', config, { token: tokens.access_token });
    expect(active.body).toMatchObject({
      active: true,
      aud: MCP,
      sub: tokens.claims()?.sub,
      client_id: config.clientMetadata().client_id,
      token_type: 'Bearer',
    });
    expect((await post('/token/introspection', config, { token: jti as string })).body).toEqual({ active: false });
    const revoked = await post('/token/revocation', config, { token: tokens.access_token });
    expect(revoked.status).toBe(200);
    expect((await post('/token/introspection', config, { token: tokens.access_token })).body).toEqual({ active: false });
  });
});

describe('hosted: no resource unless the operator names some', () => {
  const { register, signIn } = harness('hosted');
  it('any resource is invalid_target, saying RESOURCE_INDICATORS allows none', async () => {
    const config = await register();
    await expect(signIn(config, { resource: MCP })).rejects.toThrow(
      /issues tokens for no resource \(RESOURCE_INDICATORS\)[\s\S]*invalid_target/,
    );
  });
});

describe('the subject in a JWT access token is the one the client is given', () => {
  const { register, signIn } = harness('hosted', { RESOURCE_INDICATORS: '*' });
  it.each([
    ['pairwise', { subject_type: 'pairwise' }],
    ['subject_chain any', { subject_chain: 'any' }],
  ])('%s', async (_name, metadata) => {
    const config = await register(metadata as Partial<oidc.ClientMetadata>);
    const { tokens, user } = await signIn(config, { resource: MCP });
    const sub = tokens.claims()?.sub as string;
    expect(sub).not.toBe(`eip155:1:${user.address}`);
    const claims = decodeJwt(tokens.access_token);
    expect(claims.sub).toBe(sub);
    // No claim carries the address where the ID token carries none (pairwise).
    expect(claims.preferred_username).toBe(tokens.claims()?.preferred_username);
  });
});
