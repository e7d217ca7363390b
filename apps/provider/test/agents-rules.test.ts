/**
 * The JWT bearer grant's identity rules and refusals, over HTTP to one provider on SQLite with a
 * real local chain: every refusal its own `error_description` (invalid_grant, or unauthorized_client
 * for a client without the grant), nothing stored for a refused assertion; `subject_chain`,
 * `account_subject`, `account_namespaces`, CHAIN_IDS and access conditions as for a person's sign-in;
 * the audit events; the sign-in rate limit.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestchain, type Testchain } from '@signet/testchain';
import { pkceAuthorization, startTestProvider, TEST_REDIRECT_URI, type TestProvider, walletSignIn } from '@signet/testkit';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountOfWallet } from '../src/accounts/accounts.ts';
import { endWalletSignIns } from '../src/relying-party/wallet-revocation.ts';
import {
  claimsFor,
  ethereumAgent,
  hmacAssertion,
  JWT_BEARER,
  solanaAgent,
  tokenRequest,
  unsignedAssertion,
} from './agent-assertions.ts';

const dir = mkdtempSync(join(tmpdir(), 'signet-agents-'));
const auditFile = join(dir, 'audit.log');
let chain: Testchain;
let provider: TestProvider;
let tokenEndpoint: string;

beforeAll(async () => {
  chain = await startTestchain({ chainId: 1, ens: false });
  provider = await startTestProvider({
    STORAGE_URL: `sqlite:${join(dir, 'signet.db')}`,
    ETH_RPC_URL: chain.url,
    ACCESS_CACHE_SECONDS: '0',
    SOLANA_NETWORKS: 'mainnet',
    AUDIT_LOG: auditFile,
  });
  tokenEndpoint = `${provider.url}/token`;
});
afterAll(async () => {
  await provider?.stop();
  await chain?.stop();
  rmSync(dir, { recursive: true, force: true });
});

type Client = { client_id: string; client_secret?: string };

async function register(metadata: Record<string, unknown> = {}): Promise<Client> {
  const response = await fetch(`${provider.url}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_types: [JWT_BEARER], response_types: [], token_endpoint_auth_method: 'none', ...metadata }),
  });
  const body = (await response.json()) as Client;
  if (response.status !== 201) throw new Error(`registration refused: ${JSON.stringify(body)}`);
  return body;
}

/** The wallet id an Ethereum key's sign-in links (wallets/ids.ts): `eip155:0:<address>`. */
const walletOf = (address: string) => `eip155:0:${address}`;

describe('refusals: each in its own words, nothing stored', () => {
  let client: Client;
  beforeAll(async () => {
    client = await register();
  });

  const refusals: [string, () => Promise<string> | string, RegExp][] = [];
  const agent = ethereumAgent();
  const other = ethereumAgent();
  const now = () => Math.floor(Date.now() / 1000);
  const claims = (overrides: Record<string, unknown> = {}) => claimsFor(agent.accountId(), provider.issuer, overrides);
  refusals.push(
    ['expired', () => agent.sign(claims({ iat: now() - 200, exp: now() - 100 })), /^the assertion expired at \d+/],
    ['too long-lived', () => agent.sign(claims({ exp: now() + 301 })), /lives 301 s \(exp − iat\); at most 300 s/],
    ['not yet valid (nbf)', () => agent.sign(claims({ nbf: now() + 120 })), /not valid before \d+/],
    ['wrong aud', () => agent.sign(claims({ aud: 'https://elsewhere.example' })), /`aud` must name this provider/],
    ['signed by another key', () => other.sign(claims()), /not signed by the key of the address `sub` names/],
    [
      'a jwk header of another address',
      () => agent.sign(claims(), { jwk: other.publicJwk() }),
      /the `jwk` header is the key of another address than `sub` names/,
    ],
    ['iss and sub disagree', () => agent.sign(claims({ iss: other.accountId() })), /`iss` and `sub` differ/],
    ['alg none', () => unsignedAssertion(claims()), /alg "none": an unsigned assertion is refused/],
    ['HMAC (HS256)', () => hmacAssertion(claims()), /alg "HS256": an HMAC \(shared-secret\) assertion is refused/],
    ['no jti', () => agent.sign(claims({ jti: undefined })), /needs a `jti`/],
    ['a chain CHAIN_IDS does not list', () => agent.sign(claimsFor(agent.accountId(5), provider.issuer)), /chain 5 is not one/],
    ['not a JWT', () => 'not-a-jwt', /not a signed JWT/],
  );

  it.each(refusals)('%s: invalid_grant', async (_name, make, description) => {
    const answer = await tokenRequest(tokenEndpoint, client, { assertion: await make() });
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body.error).toBe('invalid_grant');
    expect(answer.body.error_description).toMatch(description);
  });

  it('after every refusal the key has no account, and a right assertion still works once', async () => {
    const { store } = provider.app.services;
    expect(await accountOfWallet(store, walletOf(agent.address))).toBeUndefined();
    const assertion = agent.sign(claims());
    const first = await tokenRequest(tokenEndpoint, client, { assertion });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(await accountOfWallet(store, walletOf(agent.address))).toBeDefined();
    // The same assertion again (its jti): refused, even within its lifetime.
    const replayed = await tokenRequest(tokenEndpoint, client, { assertion });
    expect(replayed.body).toMatchObject({ error: 'invalid_grant' });
    expect(replayed.body.error_description).toMatch(/`jti` was already used/);
  });

  it('malformed assertions: 400 with words, never a 500', async () => {
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const valid = agent.sign(claims());
    const [header, payload] = valid.split('.');
    const malformed = [
      `${Buffer.from('{not json').toString('base64url')}.${payload}.AAAA`,
      `${header}.${Buffer.from('[1,2').toString('base64url')}.AAAA`,
      `${header}.${payload}.AAAA`,
      `${header}.${payload}.${'A'.repeat(86)}`,
      agent.sign(claims(), { jwk: { kty: 'EC', crv: 'secp256k1', x: 'zz', y: 5 } }),
      agent.sign(claims(), { jwk: 'a string' }),
      agent.sign(claims(), { crit: ['b64'], b64: false }),
      agent.sign(claims({ aud: 42, exp: 'soon' })),
      agent.sign(claims({ sub: { nested: true } })),
      `${b64({ alg: 'RS256' })}.${payload}.AAAA`,
      `${b64({ alg: 'EdDSA' })}.${payload}.AAAA`,
      'a'.repeat(9000),
    ];
    for (const assertion of malformed) {
      const answer = await tokenRequest(tokenEndpoint, client, { assertion });
      expect(answer.status, `${assertion.slice(0, 60)} → ${JSON.stringify(answer.body)}`).toBe(400);
      expect(answer.body.error).toBe('invalid_grant');
      expect(answer.body.error_description).not.toBe('grant request is invalid');
    }
  });

  it('once the address’s key is known (recovered before), another key’s signature is still refused', async () => {
    const answer = await tokenRequest(tokenEndpoint, client, { assertion: other.sign(claims()) });
    expect(answer.body).toMatchObject({ error: 'invalid_grant' });
    expect(answer.body.error_description).toMatch(/not signed by the key of the address `sub` names/);
    const own = await tokenRequest(tokenEndpoint, client, { assertion: agent.sign(claims()) });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
  });

  it('a jwk header that is the address’s own key is accepted', async () => {
    const answer = await tokenRequest(tokenEndpoint, client, { assertion: agent.sign(claims(), { jwk: agent.publicJwk() }) });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  });

  it('a client without the grant: unauthorized_client', async () => {
    const codeClient = await register({
      grant_types: ['authorization_code'],
      response_types: ['code'],
      redirect_uris: [TEST_REDIRECT_URI],
    });
    const answer = await tokenRequest(tokenEndpoint, codeClient, { assertion: agent.sign(claims()) });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'unauthorized_client' });
    expect(answer.body.error_description).toMatch(/not registered for the JWT bearer grant/);
  });

  it('no assertion: invalid_request', async () => {
    const answer = await tokenRequest(tokenEndpoint, client, {});
    expect(answer.body).toMatchObject({ error: 'invalid_request' });
    expect(answer.body.error_description).toMatch(/assertion/);
  });

  it('a namespace the client does not allow, a Solana cluster the provider does not take', async () => {
    const solanaOnly = await register({ account_namespaces: ['solana'] });
    const answer = await tokenRequest(tokenEndpoint, solanaOnly, { assertion: agent.sign(claims()) });
    expect(answer.body).toMatchObject({ error: 'invalid_grant' });
    expect(answer.body.error_description).toMatch(/^NAMESPACE_NOT_ALLOWED: this site takes Solana accounts only/);
    const devnet = await solanaAgent('EtWTRABZaYq6iMfeYKouRu166VU2xqa1');
    const refused = await tokenRequest(tokenEndpoint, client, {
      assertion: await devnet.sign(claimsFor(devnet.accountId, provider.issuer)),
    });
    expect(refused.body).toMatchObject({ error: 'invalid_grant' });
    expect(refused.body.error_description).toMatch(/Solana devnet is not a cluster this provider signs in on/);
  });
});

describe('signatures, checked by OpenSSL', () => {
  it('an ES256K signature that is not base64url (padding, white space, spare bits set) is refused, though Node would decode it to the valid one; so is white space in the header or payload', async () => {
    const client = await register();
    const agent = ethereumAgent();
    const valid = agent.sign(claimsFor(agent.accountId(), provider.issuer));
    // The last of the signature's 86 characters carries 4 bits past its 64 bytes: setting one is another string for the same bytes.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const spareBit = `${valid.slice(0, -1)}${alphabet[alphabet.indexOf(valid.slice(-1)) ^ 1]}`;
    expect(Buffer.from(spareBit.split('.')[2] as string, 'base64url')).toEqual(
      Buffer.from(valid.split('.')[2] as string, 'base64url'),
    );
    for (const assertion of [
      `${valid}=`,
      `${valid.slice(0, -1)} ${valid.slice(-1)}`,
      `${valid.slice(0, -1)}\n${valid.slice(-1)}`,
      spareBit,
    ]) {
      const answer = await tokenRequest(tokenEndpoint, client, { assertion });
      expect(answer.body).toMatchObject({ error: 'invalid_grant' });
      expect(answer.body.error_description).toMatch(/signature is not base64url/);
    }
    // White space in the header or payload, which a lenient base64 decoder would read past.
    const [header, payload, signature] = valid.split('.');
    for (const assertion of [`${header} .${payload}.${signature}`, `${header}.${payload}\n.${signature}`]) {
      const answer = await tokenRequest(tokenEndpoint, client, { assertion });
      expect(answer.body).toMatchObject({ error: 'invalid_grant' });
      expect(answer.body.error_description).toMatch(/header or payload is not base64url/);
    }
    const own = await tokenRequest(tokenEndpoint, client, { assertion: valid });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
  });

  it('EdDSA: another key’s signature, a changed payload, a signature of the wrong length: refused in words', async () => {
    const client = await register();
    const solana = await solanaAgent();
    const impostor = await solanaAgent();
    const claimsOf = () => claimsFor(solana.accountId, provider.issuer);
    const signed = await solana.sign(claimsOf());
    const [header, , signature] = signed.split('.');
    const changedPayload = Buffer.from(JSON.stringify({ ...claimsOf(), scope: 'more' })).toString('base64url');
    const refusals: Array<[string, RegExp]> = [
      [await impostor.sign(claimsOf()), /not signed by the key of the address `sub` names/],
      [`${header}.${changedPayload}.${signature}`, /not signed by the key of the address `sub` names/],
      [`${signed.slice(0, signed.lastIndexOf('.'))}.${(signature as string).slice(0, 84)}`, /EdDSA signature is 64 bytes/],
      // Node's decoder would skip the padding and read the same 64 bytes: refused as jose refuses it.
      [`${signed}==`, /signature is not base64url/],
    ];
    for (const [assertion, words] of refusals) {
      const answer = await tokenRequest(tokenEndpoint, client, { assertion });
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(answer.body).toMatchObject({ error: 'invalid_grant' });
      expect(answer.body.error_description).toMatch(words);
    }
    const own = await tokenRequest(tokenEndpoint, client, { assertion: signed });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
  });
});

describe('the subject rules of a sign-in by the same key', () => {
  async function bothWays(metadata: Record<string, unknown>) {
    const client = await register({
      grant_types: ['authorization_code', JWT_BEARER],
      response_types: ['code'],
      redirect_uris: [TEST_REDIRECT_URI],
      ...metadata,
    });
    const agent = ethereumAgent();
    const answer = await tokenRequest(tokenEndpoint, client, {
      assertion: agent.sign(claimsFor(agent.accountId(), provider.issuer)),
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const config = await oidc.discovery(new URL(provider.issuer), client.client_id, undefined, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
    const { url, verifier } = await pkceAuthorization(config);
    const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer: privateKeyToAccount(agent.privateKey) });
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier });
    return {
      agent: decodeJwt(answer.body.id_token as string).sub,
      person: decodeJwt(tokens.id_token as string).sub,
      address: agent.address,
    };
  }

  it('subject_chain "any": eip155:0:<address>, as the person gets', async () => {
    const { agent, person, address } = await bothWays({ subject_chain: 'any' });
    expect(agent).toBe(`eip155:0:${address}`);
    expect(person).toBe(agent);
  });

  it('account_subject: the Signet account the key’s wallet belongs to, as the person gets', async () => {
    const { agent, person } = await bothWays({ account_subject: true });
    expect(agent).toMatch(/^acct_/);
    expect(person).toBe(agent);
  });
});

describe('a wallet removed from its account ends what its agent signed in to', () => {
  it('endWalletSignIns (what removing the wallet on /account runs) revokes the agent’s grant and tokens', async () => {
    const client = await register({ grant_types: [JWT_BEARER, 'refresh_token'] });
    const agent = ethereumAgent();
    const answer = await tokenRequest(tokenEndpoint, client, {
      assertion: agent.sign(claimsFor(agent.accountId(), provider.issuer)),
      scope: 'openid offline_access',
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const me = () => fetch(`${provider.url}/me`, { headers: { authorization: `Bearer ${answer.body.access_token}` } });
    expect((await me()).status).toBe(200);
    const { services } = provider.app;
    const revoked = await endWalletSignIns(
      { provider: services.provider(), store: services.store, logger: services.logger, allowPrivateFetch: false },
      [walletOf(agent.address)],
    );
    expect(revoked.grants).toBe(1);
    expect((await me()).status).toBe(401);
    const refreshed = await tokenRequest(tokenEndpoint, client, {
      grant_type: 'refresh_token',
      refresh_token: answer.body.refresh_token as string,
    });
    expect(refreshed.body.error).toBe('invalid_grant');
  });
});

describe('a gated client gates agents too', () => {
  it('an agent without the holdings is refused ACCESS_CONDITION_NOT_MET; with them it signs in', async () => {
    const gated = await register({
      access_conditions: { match: 'all', conditions: [{ type: 'native', chainId: 1, minimum: '1000000000000000000' }] },
    });
    const agent = ethereumAgent();
    const sign = () => agent.sign(claimsFor(agent.accountId(), provider.issuer));
    const refused = await tokenRequest(tokenEndpoint, gated, { assertion: sign() });
    expect(refused.body).toMatchObject({ error: 'invalid_grant' });
    expect(refused.body.error_description).toMatch(/^ACCESS_CONDITION_NOT_MET: /);
    expect(await accountOfWallet(provider.app.services.store, walletOf(agent.address))).toBeUndefined();
    // A Solana key cannot hold what the conditions ask.
    const solana = await solanaAgent();
    const notEthereum = await tokenRequest(tokenEndpoint, gated, {
      assertion: await solana.sign(claimsFor(solana.accountId, provider.issuer)),
    });
    expect(notEthereum.body.error_description).toMatch(/^ACCESS_CONDITION_NOT_MET: /);
    await chain.setBalance(agent.address, 10n ** 18n);
    const admitted = await tokenRequest(tokenEndpoint, gated, { assertion: sign() });
    expect(admitted.status, JSON.stringify(admitted.body)).toBe(200);
  });
});

describe('audit events', () => {
  it('sign_in.succeeded and sign_in.refused name the grant, the client and the account', async () => {
    const client = await register();
    const agent = ethereumAgent();
    await tokenRequest(tokenEndpoint, client, { assertion: agent.sign(claimsFor(agent.accountId(), provider.issuer)) });
    await tokenRequest(tokenEndpoint, client, {
      assertion: agent.sign(claimsFor(agent.accountId(), 'https://elsewhere.example')),
    });
    const mine = async () => {
      for (let i = 0; i < 50; i++) {
        const lines = readFileSync(auditFile, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .filter((line) => line.client_id === client.client_id && line.grant === 'jwt-bearer');
        if (lines.length >= 2) return lines;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('the audit lines did not arrive');
    };
    const [succeeded, refused] = await mine();
    expect(succeeded).toMatchObject({ event: 'sign_in.succeeded', account: agent.accountId(), method: 'eoa' });
    expect(refused).toMatchObject({
      event: 'sign_in.refused',
      reason: 'WRONG_AUDIENCE',
      account_verified: true,
      account: agent.accountId(),
      status: 400,
    });
    expect(JSON.stringify([succeeded, refused])).not.toMatch(/eyJ/); // no assertion, no token
    const issued = readFileSync(auditFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.event === 'token.issued' && line.client_id === client.client_id);
    expect(issued).toMatchObject({ grant_type: JWT_BEARER, account: agent.accountId(), issued: ['access_token', 'id_token'] });
  });
});

describe('the sign-in rate limit', () => {
  it('RATE_LIMIT_INTERACTION counts agents’ assertions: 429 rate_limited, in words', async () => {
    const limited = await startTestProvider({ RATE_LIMIT_INTERACTION: '2' });
    try {
      const response = await fetch(`${limited.url}/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_types: [JWT_BEARER], response_types: [], token_endpoint_auth_method: 'none' }),
      });
      const client = (await response.json()) as Client;
      const agent = ethereumAgent();
      const statuses: number[] = [];
      let last: Record<string, unknown> = {};
      for (let i = 0; i < 3; i++) {
        const answer = await tokenRequest(`${limited.url}/token`, client, {
          assertion: agent.sign(claimsFor(agent.accountId(), limited.issuer)),
        });
        statuses.push(answer.status);
        last = answer.body;
      }
      expect(statuses).toEqual([200, 200, 429]);
      expect(last).toMatchObject({ error: 'rate_limited' });
      expect(last.error_description).toMatch(/too many requests from this address/);
    } finally {
      await limited.stop();
    }
  });
});
