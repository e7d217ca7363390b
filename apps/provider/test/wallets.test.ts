/**
 * Wallets that sign in, through the provider over HTTP (the interaction contract), on real local
 * chains with real third-party wallet contracts: Safe 1.4.1 (off-chain, nested, on-chain,
 * counterfactual), OpenZeppelin 5.x accounts (ERC-7739, EIP-7702, ERC-8010), a deployed ERC-6492
 * verifier (SIGNATURE_VERIFIERS), hostile contracts under the gas cap, ERC-1271 answers of odd
 * shapes read as Solidity reads them, and a contract wallet's holdings on the chain it signed in with.
 */
import { ETH_CALL_GAS_CAP } from '@signet/siwe';
import {
  ERC1271_ANSWER_SHAPES,
  type RealWallets,
  realWallets,
  startTestchain,
  type Testchain,
  type TestToken,
} from '@signet/testchain';
import {
  CookieJar,
  getDetails,
  messageFor,
  pkceAuthorization,
  postSignature,
  registerPublicClient,
  startInteraction,
  startTestProvider,
  type TestProvider,
} from '@signet/testkit';
import type * as oidc from 'openid-client';
import type { Address, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const key = () => privateKeyToAccount(generatePrivateKey());
const CAP = `0x${ETH_CALL_GAS_CAP.toString(16)}`;

// The chains, wallets and provider, shared by the "wallets that sign in" describes below.
let one: Testchain;
let ten: Testchain;
let ensChain: Testchain;
let wallets: RealWallets;
let walletsTen: RealWallets;
let verifierTen: Address;
let provider: TestProvider;
let client: oidc.Configuration;
let nftTen: TestToken;

const [a, b, c] = [key(), key(), key()];

beforeAll(async () => {
  // ENS on a node of its own, so the other nodes' logs show only what verification and access checks ask.
  [one, ten, ensChain] = await Promise.all([
    startTestchain({ chainId: 1, ens: false }),
    startTestchain({ chainId: 10, ens: false }),
    startTestchain({ chainId: 1 }),
  ]);
  [wallets, walletsTen] = await Promise.all([realWallets(one), realWallets(ten)]);
  verifierTen = await walletsTen.deployVerifier();
  nftTen = await ten.deployToken('erc721');
  provider = await startTestProvider({
    ETH_RPC_URL: one.url,
    ENS_RPC_URL: ensChain.url,
    RPC_URLS: `10=${ten.url}`,
    SIGNATURE_VERIFIERS: `10=${verifierTen}`,
    ACCESS_CACHE_SECONDS: '0',
    RPC_TIMEOUT_MS: '5000',
  });
  client = await registerPublicClient(provider.url);
});
afterAll(async () => {
  await provider?.stop();
  await Promise.all([one?.stop(), ten?.stop(), ensChain?.stop()]);
});

/** Starts a sign-in at `config`, signs the message for `address` on `chainId` with `sign`, posts it. */
async function signIn(address: Address, sign: (message: string) => Promise<Hex>, chainId = 1, config = client) {
  const jar = new CookieJar();
  const { url } = await pkceAuthorization(config);
  const interaction = await startInteraction(jar, url);
  const message = messageFor(await getDetails(jar, interaction), address, { chainId });
  const response = await postSignature(jar, interaction, { message, signature: await sign(message) });
  const body = response.status === 303 ? undefined : ((await response.json()) as { error: string; error_description: string });
  return { status: response.status, body };
}

/** The eth_calls `chain` received while `run` ran. */
async function ethCalls<T>(chain: Testchain, run: () => Promise<T>) {
  const before = chain.node.requestCount;
  const result = await run();
  const calls = chain.node.requestsSince(before).filter((r) => r.method === 'eth_call');
  const params = calls.map((r) => r.params[0] as { to?: string; gas?: string });
  return { result, calls: params.map(({ to, gas }) => ({ to: to?.toLowerCase(), gas })) };
}

describe('wallets that sign in: the provider with real wallet contracts', () => {
  it('Safe 1.4.1, 2-of-3: owners sign off chain (EIP-712 SafeMessage); one EIP-1271 eth_call, capped', async () => {
    const safe = await wallets.safe.deploy([a.address, b.address, c.address], 2, 201n);
    const { result, calls } = await ethCalls(one, () => signIn(safe, (m) => wallets.safe.sign(safe, m, [a, b])));
    expect(result.status).toBe(303);
    expect(calls).toEqual([{ to: safe.toLowerCase(), gas: CAP }]);
    const one_ = await signIn(safe, (m) => wallets.safe.sign(safe, m, [c]));
    expect(one_.status).toBe(401);
    expect(one_.body?.error).toBe('INVALID_SIGNATURE');
  });

  it('a Safe that signed on chain (SignMessageLib): the signature is 0x, and it signs in (item 1)', async () => {
    const safe = await wallets.safe.deploy([a.address, b.address, c.address], 2, 202n);
    const result = await signIn(safe, async (message) => {
      await wallets.safe.signOnChain(safe, message, [b, c]);
      return '0x';
    });
    expect(result.status).toBe(303);
    // A plain account posting 0x: refused in words that say what happened.
    const plain = await signIn(a.address, async () => '0x');
    expect(plain.status).toBe(401);
    expect(plain.body?.error_description).toBe(
      `the signature is empty, which only a contract wallet can accept, and ${a.address} is not one on chain 1 (no ERC-1271 answer)`,
    );
  });

  it('a nested Safe, an OpenZeppelin ERC-7739 account, a counterfactual Safe (EIP-6492), an EIP-7702 account', async () => {
    const inner = await wallets.safe.deploy([a.address], 1, 203n);
    const outer = await wallets.safe.deploy([inner, b.address], 2, 204n);
    expect((await signIn(outer, (m) => wallets.safe.signNested(outer, inner, m, [a], [b]))).status).toBe(303);

    const account = await wallets.openZeppelin.deploy(c.address);
    expect((await signIn(account, (m) => wallets.openZeppelin.sign(account, m, c))).status).toBe(303);

    const cf = await wallets.safe.counterfactual([a.address, b.address, c.address], 2, 205n);
    expect((await signIn(cf.address, async (m) => one.wrap6492(await wallets.safe.sign(cf.address, m, [a, c]), cf))).status).toBe(
      303,
    );
    expect(await one.publicClient.getCode({ address: cf.address })).toBeUndefined();

    const delegated = key();
    await wallets.eip7702.delegate(delegated);
    expect((await signIn(delegated.address, (m) => wallets.eip7702.sign(delegated, m))).status).toBe(303);
  });

  it('ERC-8010: an EOA whose EIP-7702 authorization is not on chain yet signs in (item 2)', async () => {
    const eoa = key();
    const result = await signIn(eoa.address, (m) => wallets.eip7702.signWithAuthorization(eoa, m));
    expect(result.status).toBe(303);
    const stranger = key();
    const borrowed = await signIn(eoa.address, (m) => wallets.eip7702.signWithAuthorization(stranger, m));
    expect(borrowed.status).toBe(401);
    expect(borrowed.body?.error_description).toMatch(/authorization in the signature was signed by/);
  });

  it('SIGNATURE_VERIFIERS: a counterfactual wallet on chain 10 is checked by the deployed verifier, never deployless (item 3)', async () => {
    const owner = key();
    const cf = await ten.counterfactualWallet(owner.address, 9n);
    const { result, calls } = await ethCalls(ten, () =>
      signIn(cf.address, async (m) => ten.wrap6492(await owner.signMessage({ message: m }), cf), 10),
    );
    expect(result.status).toBe(303);
    expect(calls).toEqual([{ to: verifierTen.toLowerCase(), gas: CAP }]);
  });
});

describe('wallets that sign in: gas caps, ERC-1271 answers and holdings', () => {
  it('a wallet that burns all its gas: 401 INVALID_SIGNATURE saying so, one capped call (item 4)', async () => {
    const burner = await wallets.gasBurningWallet();
    const { result, calls } = await ethCalls(one, () => signIn(burner, async () => '0x1234'));
    expect(result.status).toBe(401);
    expect(result.body).toEqual({
      error: 'INVALID_SIGNATURE',
      error_description: `the contract wallet ${burner} ran out of gas (the cap is 2000000 per check) on chain 1: not accepted`,
    });
    expect(calls.map((call) => call.gas)).toEqual([CAP]);
  });

  it('ERC-1271 answers read as Solidity reads them: the magic value with non-zero bytes after it is 401, the right word with more data after it signs in (directly and through ERC-8010)', async () => {
    const { dirtyWord, trailingData } = ERC1271_ANSWER_SHAPES;
    const owner = key();
    const sign = (m: string) => owner.signMessage({ message: m });
    const dirty = await wallets.shapedAnswerWallet(owner.address, dirtyWord);
    const refused = await signIn(dirty, sign);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({
      error: 'INVALID_SIGNATURE',
      error_description: `signature was not made by ${dirty}: its contract wallet on chain 1 answered that it is not valid`,
    });
    const padded = await wallets.shapedAnswerWallet(owner.address, trailingData);
    expect((await signIn(padded, sign)).status).toBe(303);

    const [first, second] = [key(), key()];
    const viaAuthorization = await signIn(first.address, (m) => wallets.signWithShapedAuthorization(first, m, dirtyWord));
    expect(viaAuthorization.status).toBe(401);
    expect(viaAuthorization.body).toEqual({
      error: 'INVALID_SIGNATURE',
      error_description: `signature was not made by ${first.address} (checked with its EIP-7702 authorization on chain 1)`,
    });
    expect((await signIn(second.address, (m) => wallets.signWithShapedAuthorization(second, m, trailingData))).status).toBe(303);
  });

  it('access conditions: the holdings read carries the cap; a gas-burning "token" is not met (403), not an outage', async () => {
    const token = await wallets.gasBurningToken();
    const nft = await one.deployToken('erc721');
    const holder = key();
    await nft.mint(holder.address, { id: 1n });
    const gated = await registerPublicClient(provider.url, {
      access_conditions: {
        match: 'all',
        conditions: [
          { type: 'erc721', chainId: 1, contract: nft.address },
          { type: 'erc20', chainId: 1, contract: token, minimum: '1' },
        ],
      },
    } as never);
    const { result, calls } = await ethCalls(one, () =>
      signIn(holder.address, (m) => holder.signMessage({ message: m }), 1, gated),
    );
    expect(result.status).toBe(403);
    expect(result.body?.error).toBe('ACCESS_CONDITION_NOT_MET');
    expect(result.body?.error_description).toContain(`at least 1 base units of the ERC-20 token ${token} on chain 1`);
    expect(calls.map((call) => call.gas)).toEqual([CAP]);
  });

  it('a contract wallet’s holdings count only on the chain it signed in with; an EOA’s on any chain (item 5)', async () => {
    const gated = await registerPublicClient(provider.url, {
      access_conditions: { match: 'all', conditions: [{ type: 'erc721', chainId: 10, contract: nftTen.address }] },
    } as never);
    // The same contract-wallet address on both chains (same factory, same salt), holding on chain 10 only.
    const owner = key();
    const [wallet, walletTen] = [await one.deployWallet(owner.address, 31n), await ten.deployWallet(owner.address, 31n)];
    expect(wallet).toBe(walletTen);
    await nftTen.mint(wallet, { id: 7n });
    const sign = (m: string) => owner.signMessage({ message: m });

    const before = ten.node.requestCount;
    const onOne = await signIn(wallet, sign, 1, gated);
    expect(onOne.status).toBe(403);
    expect(onOne.body?.error_description).toBe(
      `this site requires a token of the ERC-721 collection ${nftTen.address} on chain 10, which this account does not hold (a contract wallet's holdings count only on the chain it signed in with, chain 1: the same address on another chain may belong to someone else)`,
    );
    expect(ten.node.requestCount).toBe(before); // chain 10 was not even asked
    expect((await signIn(wallet, sign, 10, gated)).status).toBe(303);

    // A plain account is the same key on every chain: its holdings on chain 10 count for a chain-1 sign-in.
    const eoa = key();
    await nftTen.mint(eoa.address, { id: 8n });
    expect((await signIn(eoa.address, (m) => eoa.signMessage({ message: m }), 1, gated)).status).toBe(303);
  });

  it('an EOA sign-in still makes no RPC call at all', async () => {
    const eoa = key();
    const [before1, before10] = [one.node.requestCount, ten.node.requestCount];
    expect((await signIn(eoa.address, (m) => eoa.signMessage({ message: m }))).status).toBe(303);
    expect([one.node.requestCount, ten.node.requestCount]).toEqual([before1, before10]);
  });
});
