/**
 * Agents sign in with their own wallet key in one request (RFC 7523 JWT bearer grant), over real
 * HTTP to a started provider on both profiles: assertions signed outside Signet's code (@noble/curves
 * for ES256K, jose for EdDSA), the tokens an interactive sign-in by the same key would get (`sub`,
 * pairwise on hosted), `amr: ["agent"]`, refresh tokens only with `offline_access`, RFC 8707
 * resources, openid-client's genericGrantRequest as a real client, and the setting that turns it off.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pkceAuthorization, startTestProvider, TEST_REDIRECT_URI, type TestProvider, walletSignIn } from '@signet/testkit';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { hexToBytes, sha256, toBytes } from 'viem';
import { generatePrivateKey, privateKeyToAccount, sign } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimsFor, ethereumAgent, JWT_BEARER, solanaAgent, tokenRequest } from './agent-assertions.ts';

type Profile = 'self-hosted' | 'hosted';
type Client = { client_id: string; client_secret?: string };

function harness(profile: Profile, settings: Record<string, string> = {}) {
  const state: { provider?: TestProvider; discovery?: Record<string, unknown> } = {};
  beforeAll(async () => {
    state.provider = await startTestProvider({ PROFILE: profile, SOLANA_NETWORKS: 'mainnet', ...settings });
    state.discovery = await (await fetch(`${state.provider.url}/.well-known/openid-configuration`)).json();
  });
  afterAll(() => state.provider?.stop());
  const provider = () => state.provider as TestProvider;
  const discovery = () =>
    state.discovery as { token_endpoint: string; registration_endpoint: string; grant_types_supported: string[] };

  async function register(metadata: Record<string, unknown> = {}): Promise<Client & Record<string, unknown>> {
    const response = await fetch(discovery().registration_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_types: [JWT_BEARER, 'refresh_token'],
        response_types: [],
        token_endpoint_auth_method: profile === 'hosted' ? 'client_secret_basic' : 'none',
        ...metadata,
      }),
    });
    const body = (await response.json()) as Client & Record<string, unknown>;
    if (response.status !== 201) throw new Error(`registration refused: ${JSON.stringify(body)}`);
    return body;
  }
  const token = (client: Client, body: Record<string, string>) => tokenRequest(discovery().token_endpoint, client, body);
  return { provider, discovery, register, token };
}

describe.each(['self-hosted', 'hosted'] as const)('the JWT bearer grant on the %s profile', (profile) => {
  const { provider, discovery, register, token } = harness(profile);

  it('is advertised in grant_types_supported', () => {
    expect(discovery().grant_types_supported).toContain(JWT_BEARER);
  });

  it('an Ethereum key (ES256K, @noble/curves) gets tokens in one request: the sub of its sign-in, amr agent, no refresh token without offline_access', async () => {
    const client = await register({
      redirect_uris: [TEST_REDIRECT_URI],
      grant_types: ['authorization_code', JWT_BEARER, 'refresh_token'],
      response_types: ['code'],
      ...(profile === 'hosted' ? { subject_type: 'pairwise' } : {}),
    });
    const agent = ethereumAgent();
    const answer = await token(client, { assertion: agent.sign(claimsFor(agent.accountId(), provider().issuer)) });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toMatchObject({ token_type: 'Bearer', scope: 'openid' });
    expect(answer.body.refresh_token).toBeUndefined();
    const idToken = decodeJwt(answer.body.id_token as string);
    expect(idToken.amr).toEqual(['agent']);
    expect(idToken.aud).toBe(client.client_id);
    if (profile === 'self-hosted') expect(idToken.sub).toBe(agent.accountId());
    else expect(idToken.sub).toMatch(/^[A-Za-z0-9_-]{43}$/); // pairwise

    // A person signing in with the same key, interactively, to the same client: the same sub, no amr.
    const config = await clientConfig(client);
    const { url, verifier } = await pkceAuthorization(config, { scope: 'openid' });
    const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer: privateKeyToAccount(agent.privateKey) });
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier });
    const personal = decodeJwt(tokens.id_token as string);
    expect(personal.sub).toBe(idToken.sub);
    expect(personal.amr).toBeUndefined();

    // The access token reaches userinfo as the same subject.
    const userinfo = await fetch(`${provider().url}${profile === 'hosted' ? '/userinfo' : '/me'}`, {
      headers: { authorization: `Bearer ${answer.body.access_token}` },
    });
    expect(((await userinfo.json()) as { sub: string }).sub).toBe(idToken.sub);
  });

  it('offline_access with the refresh_token grant: a refresh token, and its refresh keeps amr agent', async () => {
    const client = await register();
    const agent = ethereumAgent();
    const answer = await token(client, {
      assertion: agent.sign(claimsFor(agent.accountId(), provider().issuer)),
      scope: 'openid offline_access',
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(typeof answer.body.refresh_token).toBe('string');
    const refreshed = await tokenRequest(discovery().token_endpoint, client, {
      grant_type: 'refresh_token',
      refresh_token: answer.body.refresh_token as string,
    });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(decodeJwt(refreshed.body.id_token as string).amr).toEqual(['agent']);
  });

  it('a client without the refresh_token grant gets no refresh token, even with offline_access', async () => {
    const client = await register({ grant_types: [JWT_BEARER] });
    const agent = ethereumAgent();
    const answer = await token(client, {
      assertion: agent.sign(claimsFor(agent.accountId(), provider().issuer)),
      scope: 'openid offline_access',
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.refresh_token).toBeUndefined();
  });

  it('a Solana key (EdDSA, jose) gets tokens; aud may be the token endpoint', async () => {
    const client = await register();
    const agent = await solanaAgent();
    const answer = await token(client, { assertion: await agent.sign(claimsFor(agent.accountId, discovery().token_endpoint)) });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const idToken = decodeJwt(answer.body.id_token as string);
    expect(idToken.amr).toEqual(['agent']);
    if (profile === 'self-hosted') expect(idToken.sub).toBe(agent.accountId);
  });

  it('openid-client (genericGrantRequest) as the agent’s client', async () => {
    const client = await register();
    const config = await clientConfig(client);
    const agent = ethereumAgent();
    const tokens = await oidc.genericGrantRequest(config, JWT_BEARER, {
      assertion: agent.sign(claimsFor(agent.accountId(), provider().issuer)),
      scope: 'openid',
    });
    expect(tokens.claims()?.amr).toEqual(['agent']);
    expect(tokens.access_token).toBeTruthy();
  });

  it('a DPoP proof binds the agent’s access token to its key (openid-client)', async () => {
    const client = await register();
    const config = await clientConfig(client);
    const agent = ethereumAgent();
    const DPoP = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair());
    const tokens = await oidc.genericGrantRequest(
      config,
      JWT_BEARER,
      { assertion: agent.sign(claimsFor(agent.accountId(), provider().issuer)) },
      { DPoP },
    );
    expect(tokens.token_type.toLowerCase()).toBe('dpop');
    const userinfo = `${provider().url}${profile === 'hosted' ? '/userinfo' : '/me'}`;
    const bearer = await fetch(userinfo, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(bearer.status).toBe(401);
  });

  async function clientConfig(client: Client) {
    const auth = client.client_secret ? oidc.ClientSecretBasic(client.client_secret) : oidc.None();
    return oidc.discovery(new URL(provider().issuer), client.client_id, client.client_secret, auth, {
      execute: [oidc.allowInsecureRequests],
    });
  }
});

describe('the JWT bearer grant and resources (RFC 8707)', () => {
  const { provider, register, token } = harness('self-hosted');

  it('resource: an RFC 9068 JWT access token for that audience, its sub the agent’s', async () => {
    const client = await register();
    const agent = ethereumAgent();
    const resource = 'https://mcp.example.com/mcp';
    const answer = await token(client, { assertion: agent.sign(claimsFor(agent.accountId(), provider().issuer)), resource });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const access = decodeJwt(answer.body.access_token as string);
    expect(access).toMatchObject({ aud: resource, sub: agent.accountId(), client_id: client.client_id });
  });

  it('a resource RESOURCE_INDICATORS does not allow: invalid_target, in words', async () => {
    const client = await register();
    const agent = ethereumAgent();
    const answer = await token(client, {
      assertion: agent.sign(claimsFor(agent.accountId(), provider().issuer)),
      resource: 'ftp://files.example.com/',
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'invalid_target' });
    expect(answer.body.error_description).toMatch(/is not an absolute http\(s\) URL/);
  });
});

describe('JWT_BEARER_GRANT=false', () => {
  const { discovery, provider } = harness('self-hosted', { JWT_BEARER_GRANT: 'false' });

  it('is not advertised, cannot be registered, and the token endpoint does not know it', async () => {
    expect(discovery().grant_types_supported).not.toContain(JWT_BEARER);
    const registered = await fetch(discovery().registration_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_types: [JWT_BEARER], response_types: [], token_endpoint_auth_method: 'none' }),
    });
    expect(registered.status).toBe(400);
    const agent = ethereumAgent();
    const answer = await tokenRequest(
      discovery().token_endpoint,
      { client_id: 'anyone' },
      { assertion: agent.sign(claimsFor(agent.accountId(), provider().issuer)) },
    );
    expect(answer.body.error).toMatch(/unsupported_grant_type|invalid_client/);
  });
});

describe('CLIENTS_FILE, and the assertion as docs/relying-parties.md signs it with viem', () => {
  const dir = mkdtempSync(join(tmpdir(), 'signet-agents-file-'));
  let provider: TestProvider;
  beforeAll(async () => {
    const file = join(dir, 'clients.json');
    writeFileSync(
      file,
      JSON.stringify([
        { client_id: 'file-agent', token_endpoint_auth_method: 'none', grant_types: [JWT_BEARER], response_types: [] },
      ]),
    );
    provider = await startTestProvider({ CLIENTS_FILE: file });
  });
  afterAll(async () => {
    await provider?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a CLIENTS_FILE client with the grant: the docs’ viem snippet gets tokens', async () => {
    const privateKey = generatePrivateKey();
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const { address } = privateKeyToAccount(privateKey);
    const iat = Math.floor(Date.now() / 1000);
    const sub = `eip155:1:${address}`;
    const input = `${b64({ alg: 'ES256K', typ: 'JWT' })}.${b64({ iss: sub, sub, aud: provider.issuer, iat, exp: iat + 60, jti: randomUUID() })}`;
    const signature = hexToBytes(await sign({ hash: sha256(toBytes(input)), privateKey, to: 'hex' })).subarray(0, 64);
    const assertion = `${input}.${Buffer.from(signature).toString('base64url')}`;
    const answer = await tokenRequest(`${provider.url}/token`, { client_id: 'file-agent' }, { assertion, scope: 'openid' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(decodeJwt(answer.body.id_token as string)).toMatchObject({ sub, amr: ['agent'] });
  });
});
