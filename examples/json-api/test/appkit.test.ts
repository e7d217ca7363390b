import { base58 } from '@scure/base';
import { BITCOIN_CHAIN_REFERENCES } from '@signet/siwb';
import { SOLANA_CHAIN_REFERENCES } from '@signet/siws';
import { bitcoinKey, solanaKeypair } from '@signet/testkit';
import { APPKIT_NETWORKS, appKitMessage, useAppKitNetworks } from '@signet/testkit/appkit';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '../src/index.ts';
import { type Running, start } from './start.ts';

const ethereum = privateKeyToAccount(generatePrivateKey());
const solana = solanaKeypair();
const bitcoin = bitcoinKey();

/** Each family: the network AppKit names, the account, how it signs, and the `chainId` this API answers with. */
const FAMILIES = {
  eip155: {
    network: APPKIT_NETWORKS.ethereum,
    address: ethereum.address as string,
    sign: (text: string) => ethereum.signMessage({ message: text }),
    chainId: 1 as number | string,
  },
  solana: {
    network: APPKIT_NETWORKS.solana,
    address: solana.address,
    sign: async (text: string) => base58.encode(solana.sign(text)),
    chainId: 'mainnet',
  },
  bip122: {
    network: APPKIT_NETWORKS.bitcoin,
    address: bitcoin.address('p2tr'),
    sign: async (text: string) => bitcoin.sign('p2tr', text),
    chainId: BITCOIN_CHAIN_REFERENCES.mainnet,
  },
} as const;

describe('application B: messages written by Reown AppKit (SOLANA_NETWORKS and BITCOIN_NETWORKS on), real HTTP', () => {
  let b: Running;
  beforeAll(async () => {
    useAppKitNetworks();
    b = await start({ SOLANA_NETWORKS: 'mainnet', BITCOIN_NETWORKS: 'mainnet' });
  });
  afterAll(() => b?.close());

  const nonce = async () => ((await (await fetch(`${b.url}/auth/nonce`)).json()) as { nonce: string }).nonce;
  const verify = (message: string, signature: string) =>
    fetch(`${b.url}/auth/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message, signature }),
    });
  /** The front end's AppKit messenger: its own domain and URI, its statement, this API's nonce. */
  const messageFor = async (
    family: keyof typeof FAMILIES,
    options: { clearChainIdNamespace?: boolean; expiration?: number; chainId?: string } = {},
  ) =>
    appKitMessage({
      fields: {
        domain: `127.0.0.1:${b.port}`,
        uri: `http://127.0.0.1:${b.port}`,
        statement: 'Sign in to the API.',
        nonce: await nonce(),
      },
      chainId: options.chainId ?? FAMILIES[family].network.caipNetworkId,
      address: FAMILIES[family].address,
      clearChainIdNamespace: options.clearChainIdNamespace,
      expiration: options.expiration,
    });

  for (const family of Object.keys(FAMILIES) as (keyof typeof FAMILIES)[]) {
    for (const clearChainIdNamespace of [false, true]) {
      for (const expiration of [undefined, 5 * 60_000]) {
        it(`${family}, clearChainIdNamespace ${clearChainIdNamespace}, ${expiration ? 'expiration in 5 minutes' : 'no expiration'}: 200, the user’s chainId in this API’s form`, async () => {
          const message = await messageFor(family, { clearChainIdNamespace, expiration });
          expect(message.includes('\nExpiration Time: ')).toBe(expiration !== undefined);
          const response = await verify(message, await FAMILIES[family].sign(message));
          const body = (await response.json()) as { success: boolean; user: Record<string, unknown>; message: string };
          expect(response.status, JSON.stringify(body)).toBe(200);
          expect(body).toMatchObject({
            success: true,
            user: {
              namespace: family,
              address: FAMILIES[family].address,
              chainId: FAMILIES[family].chainId,
              expirationTime: expiration ? expect.stringMatching(/Z$/) : null,
            },
            message: MESSAGES.authenticated,
          });
        });
      }
    }
  }

  it('a Chain ID of another namespace is refused as an unparsable message is (500 Verification failed, INVALID_CHAIN_ID)', async () => {
    const cases: [keyof typeof FAMILIES, string][] = [
      ['eip155', `solana:${SOLANA_CHAIN_REFERENCES.mainnet}`],
      ['solana', 'eip155:1'],
      ['bip122', `solana:${SOLANA_CHAIN_REFERENCES.mainnet}`],
    ];
    for (const [family, chainId] of cases) {
      const message = (await messageFor(family)).replace(/\nChain ID: [^\n]+/, `\nChain ID: ${chainId}`);
      const response = await verify(message, await FAMILIES[family].sign(message));
      const body = (await response.json()) as { error: { message: string; details?: { type?: string } } };
      expect({ status: response.status, message: body.error.message, type: body.error.details?.type }, family).toEqual({
        status: 500,
        message: MESSAGES.verificationFailed,
        type: 'INVALID_CHAIN_ID',
      });
    }
    // A chain this API does not take, in its CAIP-2 form, is refused as the bare form is.
    const polygon = (await messageFor('eip155')).replace('\nChain ID: eip155:1\n', '\nChain ID: eip155:137\n');
    const refused = await verify(polygon, await FAMILIES.eip155.sign(polygon));
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(MESSAGES.invalidChain(137));
  });
});
