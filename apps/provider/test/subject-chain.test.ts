/**
 * `subject_chain: "any"` decides per sign-in, never per address. Alice signs in with her key
 * (a plain account) on chain 1; on chain 10 her address is EIP-7702-delegated (a real type-4
 * transaction on a local node) to a wallet whose ERC-1271 check accepts Bob's key. Bob signs a
 * message naming Alice's address with his own key: the signature is Alice's address's code's to
 * judge, on chain 10 only, and Bob must get `eip155:10:<Alice>`, never Alice's chain-independent
 * `eip155:0:<Alice>` — in the ID token, at userinfo, at introspection, after a refresh, and in a
 * pairwise subject. Both profiles.
 */
import { startTestchain, type Testchain } from '@signet/testchain';
import {
  insecure,
  pkceAuthorization,
  startTestProvider,
  TEST_REDIRECT_URI,
  type TestProvider,
  walletSignIn,
} from '@signet/testkit';
import * as oidc from 'openid-client';
import { createWalletClient, encodeFunctionData, http, type PrivateKeyAccount, parseAbi } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const key = () => privateKeyToAccount(generatePrivateKey());

/** Delegates `eoa`'s code to `implementation` on `chain` with a type-4 transaction sent by the chain's deployer. */
async function delegate(chain: Testchain, eoa: PrivateKeyAccount, implementation: `0x${string}`) {
  const nonce = await chain.publicClient.getTransactionCount({ address: eoa.address });
  const authorization = await eoa.signAuthorization({ address: implementation, chainId: chain.chainId, nonce });
  const sender = createWalletClient({ account: chain.accounts[0], chain: chain.chain, transport: http(chain.url) });
  // The transaction calls a view of the wallet (it has no receive function): only its authorization matters.
  const data = encodeFunctionData({ abi: parseAbi(['function owner() view returns (address)']), functionName: 'owner' });
  const hash = await sender.sendTransaction({
    account: chain.accounts[0] as PrivateKeyAccount,
    chain: null,
    to: eoa.address,
    data,
    authorizationList: [authorization],
  });
  await chain.publicClient.waitForTransactionReceipt({ hash });
  expect(await chain.publicClient.getCode({ address: eoa.address })).toBe(`0xef0100${implementation.slice(2).toLowerCase()}`);
}

describe.each(['self-hosted', 'hosted'] as const)('subject_chain "any" is decided per sign-in (%s profile)', (profile) => {
  let one: Testchain;
  let ten: Testchain;
  let provider: TestProvider;
  const alice = key();
  const bob = key();

  beforeAll(async () => {
    [one, ten] = await Promise.all([startTestchain({ chainId: 1, ens: false }), startTestchain({ chainId: 10, ens: false })]);
    provider = await startTestProvider({ PROFILE: profile, ETH_RPC_URL: one.url, RPC_URLS: `10=${ten.url}`, CHAIN_IDS: '1,10' });
    // On chain 10, Alice's address runs a wallet whose ERC-1271 check accepts Bob's signatures.
    await delegate(ten, alice, await ten.deployWallet(bob.address, 7n));
  });
  afterAll(async () => {
    await provider?.stop();
    await Promise.all([one?.stop(), ten?.stop()]);
  });

  const register = (metadata: Partial<oidc.ClientMetadata> = {}) =>
    oidc.dynamicClientRegistration(
      new URL(provider.issuer),
      {
        redirect_uris: [TEST_REDIRECT_URI],
        token_endpoint_auth_method: 'client_secret_basic',
        grant_types: ['authorization_code', 'refresh_token'],
        subject_chain: 'any',
        ...metadata,
      },
      undefined,
      insecure,
    );

  async function signIn(client: oidc.Configuration, signer: PrivateKeyAccount, chainId: number, address = signer.address) {
    const scope = profile === 'hosted' ? 'openid profile' : 'openid profile offline_access';
    const { url, verifier } = await pkceAuthorization(client, { scope, prompt: 'consent' });
    const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer, address, chainId });
    return oidc.authorizationCodeGrant(client, callbackUrl, { pkceCodeVerifier: verifier });
  }

  it('Alice’s key: eip155:0; Bob through Alice’s delegated code on chain 10: eip155:10, everywhere a subject leaves', async () => {
    const client = await register();
    const aliceTokens = await signIn(client, alice, 1);
    expect(aliceTokens.claims()?.sub).toBe(`eip155:0:${alice.address}`);

    const bobTokens = await signIn(client, bob, 10, alice.address);
    const signed = `eip155:10:${alice.address}`;
    expect(bobTokens.claims()?.sub).toBe(signed);
    expect((await oidc.fetchUserInfo(client, bobTokens.access_token, signed)).sub).toBe(signed);
    expect((await oidc.tokenIntrospection(client, bobTokens.access_token)).sub).toBe(signed);
    const refreshed = await oidc.refreshTokenGrant(client, bobTokens.refresh_token as string);
    expect(refreshed.claims()?.sub).toBe(signed);
    expect((await oidc.fetchUserInfo(client, refreshed.access_token, signed)).sub).toBe(signed);

    // Alice's own tokens keep her chain-independent subject (nothing was decided per address).
    expect((await oidc.tokenIntrospection(client, aliceTokens.access_token)).sub).toBe(`eip155:0:${alice.address}`);
    expect((await signIn(client, alice, 10)).claims()?.sub).toBe(`eip155:0:${alice.address}`);
  });

  // Pairwise subjects exist on the hosted profile only.
  if (profile !== 'hosted') return;
  it('pairwise: Bob’s subject through Alice’s delegated code differs from Alice’s', async () => {
    const client = await register({ subject_type: 'pairwise' });
    const aliceSub = (await signIn(client, alice, 1)).claims()?.sub;
    const bobSub = (await signIn(client, bob, 10, alice.address)).claims()?.sub;
    expect(aliceSub).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(bobSub).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(bobSub).not.toBe(aliceSub);
    // Alice on chain 10 with her own key is still Alice.
    expect((await signIn(client, alice, 10)).claims()?.sub).toBe(aliceSub);
  });
});
