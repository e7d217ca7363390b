/**
 * Access conditions (token-gated clients) on a real local chain: ERC-20, ERC-721, ERC-1155 and
 * native-balance fixtures, Multicall3 at its canonical address, the provider over HTTP.
 */
import { startTestchain, type Testchain, type TestToken } from '@signet/testchain';
import {
  CookieJar,
  getDetails,
  insecure,
  messageFor,
  pkceAuthorization,
  postSignature,
  request,
  startInteraction,
  startTestProvider,
  TEST_REDIRECT_URI,
  type TestProvider,
  walletSignIn,
} from '@signet/testkit';
import * as oidc from 'openid-client';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ACCESS_CONDITIONS } from '../src/onchain/access.ts';

type Conditions = { match: 'all' | 'any'; conditions: Record<string, unknown>[] };

// One provider and its chains, shared by the "access conditions" describes below.
let chain: Testchain;
let ensChain: Testchain;
let provider: TestProvider;
let erc20: TestToken;
let erc721: TestToken;
let erc1155: TestToken;

beforeAll(async () => {
  // ENS on a node of its own, so the chain-1 node's request count shows only what sign-in and
  // access checks ask.
  [chain, ensChain] = await Promise.all([startTestchain({ chainId: 1, ens: false }), startTestchain({ chainId: 1 })]);
  erc20 = await chain.deployToken('erc20');
  erc721 = await chain.deployToken('erc721');
  erc1155 = await chain.deployToken('erc1155');
  provider = await startTestProvider({
    ETH_RPC_URL: chain.url,
    ENS_RPC_URL: ensChain.url,
    ACCESS_CACHE_SECONDS: '0',
    RPC_TIMEOUT_MS: '2000',
  });
});
afterAll(async () => {
  await provider?.stop();
  await chain?.stop();
  await ensChain?.stop();
});

const register = (metadata: Record<string, unknown>) =>
  fetch(`${provider.url}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [TEST_REDIRECT_URI], token_endpoint_auth_method: 'none', ...metadata }),
  });

async function gatedClient(access_conditions: Conditions, metadata: Record<string, unknown> = {}) {
  const response = await register({ access_conditions, ...metadata });
  expect(response.status, await response.clone().text()).toBe(201);
  const body = (await response.json()) as {
    client_id: string;
    access_conditions: unknown;
    registration_access_token: string;
    registration_client_uri: string;
  };
  expect(body.access_conditions).toEqual(access_conditions);
  return { body, config: await oidc.discovery(new URL(provider.url), body.client_id, undefined, oidc.None(), insecure) };
}

/** A gated client for ERC-721 holders, registered for refresh tokens, and a holder of token `id` signed in to it. */
async function holderWithRefreshToken(id: bigint) {
  const { config } = await gatedClient(
    { match: 'all', conditions: [nft()] },
    { grant_types: ['authorization_code', 'refresh_token'] },
  );
  const holder = newHolder();
  await erc721.mint(holder.address, { id });
  const { url, verifier } = await pkceAuthorization(config, { scope: 'openid offline_access', prompt: 'consent' });
  const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer: holder });
  const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier });
  expect(tokens.refresh_token).toBeTruthy();
  return { config, holder, tokens };
}

/** Signs and posts; returns the answer (303 onward, or the refusal). */
async function attempt(config: oidc.Configuration, signer = privateKeyToAccount(generatePrivateKey()), address?: Address) {
  const jar = new CookieJar();
  const { url } = await pkceAuthorization(config);
  const interaction = await startInteraction(jar, url);
  const details = await getDetails(jar, interaction);
  const message = messageFor(details, address ?? signer.address);
  const response = await postSignature(jar, interaction, { message, signature: await signer.signMessage({ message }) });
  return { response, details, jar, interaction, message, signer };
}

const newHolder = () => privateKeyToAccount(generatePrivateKey());

const nft = (tokenId?: string) => ({ type: 'erc721', chainId: 1, contract: erc721.address, ...(tokenId ? { tokenId } : {}) });

describe('access conditions: only holders may sign in', () => {
  it('registration validates access_conditions and names the problem; a valid one is echoed and managed', async () => {
    const base = { type: 'erc20', chainId: 1, contract: `0x${'11'.repeat(20)}`, minimum: '1' };
    const cases: [unknown, RegExp][] = [
      [
        { match: 'all', conditions: [{ ...base, contract: '0x1234' }] },
        /conditions\[0\]\.contract: must be a 0x-prefixed 20-byte hex address/,
      ],
      [{ match: 'all', conditions: [{ ...base, minimum: '1.5' }] }, /conditions\[0\]\.minimum: must be a whole number/],
      [{ match: 'all', conditions: [{ ...base, minimum: 1 }] }, /conditions\[0\]\.minimum/],
      [{ match: 'all', conditions: [{ ...base, type: 'erc4626' }] }, /conditions\[0\]\.type/],
      [{ match: 'all', conditions: [{ ...base, chainId: 137 }] }, /conditions\[0\]\.chainId: chain 137 has no RPC node/],
      [{ match: 'most', conditions: [base] }, /access_conditions\.match/],
      [{ match: 'all', conditions: [] }, /access_conditions\.conditions/],
      [
        { match: 'all', conditions: Array.from({ length: MAX_ACCESS_CONDITIONS + 1 }, () => base) },
        /access_conditions\.conditions/,
      ],
      [
        { match: 'all', conditions: [{ type: 'erc1155', chainId: 1, contract: base.contract, minimum: '1' }] },
        /conditions\[0\]\.tokenId/,
      ],
      [{ match: 'all', conditions: [{ ...base, extra: true }] }, /conditions\[0\]/],
      ['holders only', /access_conditions/],
    ];
    for (const [value, problem] of cases) {
      const response = await register({ access_conditions: value });
      expect(response.status, JSON.stringify(value)).toBe(400);
      const body = (await response.json()) as { error: string; error_description: string };
      expect(body.error).toBe('invalid_client_metadata');
      expect(body.error_description, JSON.stringify(value)).toMatch(problem);
    }

    const { body } = await gatedClient({ match: 'any', conditions: [nft()] });
    const auth = { authorization: `Bearer ${body.registration_access_token}` };
    expect((await (await fetch(body.registration_client_uri, { headers: auth })).json()).access_conditions).toEqual({
      match: 'any',
      conditions: [nft()],
    });
    const current = await (await fetch(body.registration_client_uri, { headers: auth })).json();
    const put = (access_conditions: unknown) =>
      fetch(body.registration_client_uri, {
        method: 'PUT',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          ...current,
          registration_access_token: undefined,
          registration_client_uri: undefined,
          client_id_issued_at: undefined,
          access_conditions,
        }),
      });
    const updated = await put({ match: 'all', conditions: [nft('42')] });
    expect(updated.status, await updated.clone().text()).toBe(200);
    expect((await updated.json()).access_conditions).toEqual({ match: 'all', conditions: [nft('42')] });
    const broken = await put({ match: 'all', conditions: [{ type: 'native', chainId: 1, minimum: '-1' }] });
    expect(broken.status).toBe(400);
  });

  it('the interaction details say in words what the account must hold; an ungated client has no requires', async () => {
    const { config } = await gatedClient({
      match: 'any',
      conditions: [nft('42'), { type: 'native', chainId: 1, minimum: '1500000000000000000' }],
    });
    const { details } = await attempt(config);
    expect(details.requiresMatch).toBe('any');
    expect(details.requires).toEqual([
      `token #42 of the ERC-721 collection ${erc721.address} on chain 1`,
      'at least 1.5 of the native currency (1500000000000000000 wei) on chain 1',
    ]);
    const ungated = await oidc.dynamicClientRegistration(
      new URL(provider.url),
      { redirect_uris: [TEST_REDIRECT_URI], token_endpoint_auth_method: 'none' },
      oidc.None(),
      insecure,
    );
    const plain = await attempt(ungated);
    expect(plain.details.requires).toBeUndefined();
  });
});

describe('access conditions: only holders may sign in (tokens and wallets)', () => {
  it('ERC-721: a holder signs in; a non-holder is refused with 403 ACCESS_CONDITION_NOT_MET, in words, and the same sign-in succeeds once they hold', async () => {
    const { config } = await gatedClient({ match: 'all', conditions: [nft()] });
    const holder = newHolder();
    await erc721.mint(holder.address, { id: 1001n });
    const ok = await attempt(config, holder);
    expect(ok.response.status).toBe(303);

    const outsider = newHolder();
    const refused = await attempt(config, outsider);
    expect(refused.response.status).toBe(403);
    const body = (await refused.response.json()) as { error: string; error_description: string };
    expect(body.error).toBe('ACCESS_CONDITION_NOT_MET');
    expect(body.error_description).toContain(`a token of the ERC-721 collection ${erc721.address} on chain 1`);

    // Nothing was lost: after minting, the same signed message in the same sign-in goes through.
    await erc721.mint(outsider.address, { id: 1002n });
    const again = await postSignature(refused.jar, refused.interaction, {
      message: refused.message,
      signature: await outsider.signMessage({ message: refused.message }),
    });
    expect(again.status).toBe(303);
  });

  it('a specific ERC-721 token, ERC-20 and ERC-1155 minimums, native balance; "any" against "all"', async () => {
    const holder = newHolder();
    await erc721.mint(holder.address, { id: 7n });
    await erc20.mint(holder.address, { amount: 100n });
    await erc1155.mint(holder.address, { id: 5n, amount: 1n });
    await chain.setBalance(holder.address, 10n ** 18n);
    const erc20Min = (minimum: string) => ({ type: 'erc20', chainId: 1, contract: erc20.address, minimum });
    const erc1155Min = (minimum: string) => ({ type: 'erc1155', chainId: 1, contract: erc1155.address, tokenId: '5', minimum });
    const native = (minimum: string) => ({ type: 'native', chainId: 1, minimum });

    const expectations: [Conditions, number, string?][] = [
      [{ match: 'all', conditions: [nft('7'), erc20Min('100'), erc1155Min('1'), native('1000000000000000000')] }, 303],
      [{ match: 'all', conditions: [nft('8')] }, 403, 'token #8 of the ERC-721'],
      [{ match: 'all', conditions: [erc20Min('101')] }, 403, 'at least 101 base units of the ERC-20 token'],
      [{ match: 'all', conditions: [erc20Min('100'), erc1155Min('2')] }, 403, 'at least 2 of token #5 of the ERC-1155'],
      [{ match: 'any', conditions: [erc20Min('100'), erc1155Min('2')] }, 303],
      [{ match: 'any', conditions: [erc20Min('1000'), erc1155Min('2'), native('2000000000000000000')] }, 403, 'one of:'],
      [{ match: 'all', conditions: [native('1000000000000000001')] }, 403, 'wei) on chain 1'],
      // Not a token contract at all: the read fails, which is "not met", never an error.
      [{ match: 'all', conditions: [{ type: 'erc20', chainId: 1, contract: `0x${'22'.repeat(20)}`, minimum: '1' }] }, 403],
    ];
    for (const [conditions, status, words] of expectations) {
      const { config } = await gatedClient(conditions);
      const { response } = await attempt(config, holder);
      expect(response.status, JSON.stringify(conditions)).toBe(status);
      if (words) expect(((await response.json()) as { error_description: string }).error_description).toContain(words);
    }
  });

  it('a contract wallet is checked by its own address, not its owner’s', async () => {
    const { config } = await gatedClient({ match: 'all', conditions: [nft()] });
    const owner = newHolder();
    const wallet = await chain.deployWallet(owner.address, 77n);
    const refused = await attempt(config, owner, wallet);
    expect(refused.response.status).toBe(403);
    await erc721.mint(wallet, { id: 2001n });
    const ok = await attempt(config, owner, wallet);
    expect(ok.response.status).toBe(303);
  });
});

describe('access conditions: only holders may sign in (RPC, refresh and sessions)', () => {
  it('one batched RPC request for a gated sign-in; none at all for an ungated EOA sign-in', async () => {
    const holder = newHolder();
    await erc20.mint(holder.address, { amount: 5n });
    await erc1155.mint(holder.address, { id: 9n, amount: 1n });
    await erc721.mint(holder.address, { id: 3001n });
    const { config } = await gatedClient({
      match: 'all',
      conditions: [
        nft(),
        { type: 'erc20', chainId: 1, contract: erc20.address, minimum: '5' },
        { type: 'erc1155', chainId: 1, contract: erc1155.address, tokenId: '9', minimum: '1' },
      ],
    });
    const before = chain.node.requestCount;
    expect((await attempt(config, holder)).response.status).toBe(303);
    expect(chain.node.requestCount - before).toBe(1);

    const ungated = await oidc.dynamicClientRegistration(
      new URL(provider.url),
      { redirect_uris: [TEST_REDIRECT_URI], token_endpoint_auth_method: 'none' },
      oidc.None(),
      insecure,
    );
    const quiet = chain.node.requestCount;
    expect((await attempt(ungated, holder)).response.status).toBe(303);
    expect(chain.node.requestCount).toBe(quiet);
  });

  it('refresh: checked again; after the holder moves the token away the refresh is refused and the grant revoked', async () => {
    const { config, holder, tokens } = await holderWithRefreshToken(4001n);
    const first = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
    expect(first.access_token).toBeTruthy();

    await erc721.move(holder.address, newHolder().address, { id: 4001n });
    const refused = await oidc.refreshTokenGrant(config, first.refresh_token as string).then(
      () => undefined,
      (error: { error?: string; error_description?: string }) => error,
    );
    expect(refused?.error).toBe('invalid_grant');
    expect(refused?.error_description).toMatch(/^ACCESS_CONDITION_NOT_MET: .*ERC-721 collection/);
    // The grant is gone with its tokens: the access token no longer works, nor the refresh token.
    const sub = `eip155:1:${holder.address}`;
    await expect(oidc.fetchUserInfo(config, first.access_token, sub)).rejects.toMatchObject({ status: 401 });
    await expect(oidc.refreshTokenGrant(config, first.refresh_token as string)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('a live session gets no silent code once the account stops qualifying: prompt=none → login_required, else a fresh signature', async () => {
    const { config } = await gatedClient({ match: 'all', conditions: [nft()] });
    const holder = newHolder();
    await erc721.mint(holder.address, { id: 6001n });
    const jar = new CookieJar();
    const { url } = await pkceAuthorization(config);
    await walletSignIn({ authorizationUrl: url, signer: holder, jar });

    const silent = async () => {
      const { url: again } = await pkceAuthorization(config, { prompt: 'none', state: 's' });
      const response = await request(jar, again);
      expect(response.status).toBe(303);
      return new URL(response.headers.get('location') as string);
    };
    expect((await silent()).searchParams.get('code')).toBeTruthy();

    await erc721.move(holder.address, newHolder().address, { id: 6001n });
    const refused = await silent();
    expect(refused.searchParams.get('error')).toBe('login_required');
    expect(refused.searchParams.get('code')).toBeNull();
    // Without prompt=none: the wallet page, where the signature is checked again (and refused).
    const { url: interactive } = await pkceAuthorization(config);
    const interaction = await startInteraction(jar, interactive);
    const details = await getDetails(jar, interaction);
    const message = messageFor(details, holder.address);
    const post = await postSignature(jar, interaction, { message, signature: await holder.signMessage({ message }) });
    expect(post.status).toBe(403);
  });
});

describe('access conditions: only holders may sign in (an unreachable node, the wallet page)', () => {
  it('an unreachable RPC node: 503 RPC_UNAVAILABLE at sign-in and at refresh, never a pass; all works again when it is back', async () => {
    const { config, holder, tokens } = await holderWithRefreshToken(5001n);

    await chain.node.pause();
    try {
      const down = await attempt(config, holder);
      expect(down.response.status).toBe(503);
      expect(((await down.response.json()) as { error: string }).error).toBe('RPC_UNAVAILABLE');
      const refresh = await fetch(`${provider.url}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token as string,
          client_id: config.clientMetadata().client_id,
        }),
      });
      expect(refresh.status).toBe(503);
      expect(await refresh.json()).toMatchObject({
        error: 'temporarily_unavailable',
        error_description: expect.stringContaining('RPC_UNAVAILABLE'),
      });
      await chain.node.resume();
      // The refresh token was not spent by the failed attempt, and the interaction is still usable.
      expect((await oidc.refreshTokenGrant(config, tokens.refresh_token as string)).access_token).toBeTruthy();
      const retried = await postSignature(down.jar, down.interaction, {
        message: down.message,
        signature: await holder.signMessage({ message: down.message }),
      });
      expect(retried.status).toBe(303);
    } finally {
      await chain.node.resume();
    }
  });

  it('the wallet page shows the conditions under who asks, and a refusal in words (form post)', async () => {
    const { config } = await gatedClient({ match: 'all', conditions: [nft('9999')] });
    const outsider = newHolder();
    const jar = new CookieJar();
    const { url } = await pkceAuthorization(config);
    const interaction = await startInteraction(jar, url);
    const page = await (await request(jar, interaction)).text();
    expect(page).toContain('Only holders may sign in');
    expect(page).toContain(`token #9999 of the ERC-721 collection ${erc721.address} on chain 1`);
    const details = await getDetails(jar, interaction);
    const message = messageFor(details, outsider.address);
    const refused = await postSignature(
      jar,
      interaction,
      { message, signature: await outsider.signMessage({ message }) },
      'form',
    );
    expect(refused.status).toBe(403);
    const html = await refused.text();
    expect(html).toContain('ACCESS_CONDITION_NOT_MET');
    expect(html).toContain(`this site requires token #9999 of the ERC-721 collection ${erc721.address} on chain 1`);
  });
});
