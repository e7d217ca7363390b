/**
 * A native app or site that signs in through the interaction contract with Reown AppKit's own
 * message code (`@reown/appkit-siwx`'s `InformalMessenger`, through the testkit's `appKitMessage`),
 * over real HTTP: for Ethereum, Solana and Bitcoin, the message built from the details exactly as
 * an app using AppKit would (`Chain ID:` the whole CAIP-2 id, or without its namespace with
 * `clearChainIdNamespace`; no `Expiration Time`, AppKit's `expiration` from now, or the details'
 * own), signed, posted, and on to the client with a code and the subject Signet always gives. What
 * could mean another chain, or outlive the sign-in, is refused with its code.
 */
import { base58 } from '@scure/base';
import { BITCOIN_CHAIN_REFERENCES } from '@signet/siwb';
import { SOLANA_CHAIN_REFERENCES } from '@signet/siws';
import {
  bitcoinKey,
  CookieJar,
  followToClient,
  getDetails,
  type InteractionDetails,
  pkceAuthorization,
  postSignature,
  registerPublicClient,
  solanaKeypair,
  startInteraction,
  startTestProvider,
  type TestProvider,
} from '@signet/testkit';
import { APPKIT_NETWORKS, type AppKitMessageOptions, appKitMessage, useAppKitNetworks } from '@signet/testkit/appkit';
import * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ethereum = privateKeyToAccount(generatePrivateKey());
const solana = solanaKeypair();
const bitcoin = bitcoinKey();
const SOLANA_MAINNET = SOLANA_CHAIN_REFERENCES.mainnet;
const BITCOIN_MAINNET = BITCOIN_CHAIN_REFERENCES.mainnet;

/** Each family: the network AppKit names, the account, how it signs, and the subject Signet gives. */
const FAMILIES = {
  eip155: {
    network: APPKIT_NETWORKS.ethereum,
    address: ethereum.address as string,
    sign: (text: string) => ethereum.signMessage({ message: text }),
    sub: `eip155:1:${ethereum.address}`,
  },
  solana: {
    network: APPKIT_NETWORKS.solana,
    address: solana.address,
    sign: async (text: string) => base58.encode(solana.sign(text)),
    sub: `solana:${SOLANA_MAINNET}:${solana.address}`,
  },
  bip122: {
    network: APPKIT_NETWORKS.bitcoin,
    address: bitcoin.address('p2wpkh'),
    sign: async (text: string) => bitcoin.sign('p2wpkh', text),
    sub: `bip122:${BITCOIN_MAINNET}:${bitcoin.address('p2wpkh')}`,
  },
} as const;

type Expiry = 'none' | 'expiration' | 'details';
const EXPIRIES: Record<Expiry, (details: InteractionDetails) => Pick<AppKitMessageOptions, 'expiration' | 'expirationTime'>> = {
  // AppKit's default: no Expiration Time line.
  none: () => ({}),
  // AppKit's `expiration`, 5 minutes from when it writes the message: inside the sign-in's 10.
  expiration: () => ({ expiration: 5 * 60_000 }),
  // The details' own expiry, written as given (getExpirationTime overridden).
  details: (details) => ({ expirationTime: details.expiresAt }),
};

let provider: TestProvider;
let client: oidc.Configuration;

beforeAll(async () => {
  useAppKitNetworks();
  provider = await startTestProvider({ SOLANA_NETWORKS: 'mainnet', BITCOIN_NETWORKS: 'mainnet' });
  client = await registerPublicClient(provider.url, { client_name: 'AppKit App' });
});
afterAll(() => provider?.stop());

async function open() {
  const { url, verifier } = await pkceAuthorization(client, { state: 'st' });
  const jar = new CookieJar();
  const interactionUrl = await startInteraction(jar, url);
  return { jar, interactionUrl, verifier, details: await getDetails(jar, interactionUrl) };
}

/** The AppKit message for these details, as an app on this family's network writes it. */
const messageFrom = (details: InteractionDetails, family: keyof typeof FAMILIES, options: Partial<AppKitMessageOptions> = {}) =>
  appKitMessage({
    fields: details,
    chainId: FAMILIES[family].network.caipNetworkId,
    address: FAMILIES[family].address,
    ...options,
  });

async function refusal(message: string, family: keyof typeof FAMILIES, interaction?: Awaited<ReturnType<typeof open>>) {
  const { jar, interactionUrl } = interaction ?? (await open());
  const response = await postSignature(jar, interactionUrl, { message, signature: await FAMILIES[family].sign(message) });
  const body = (await response.json()) as { error: string; error_description: string };
  return { status: response.status, error: body.error, description: body.error_description };
}

describe('Reown AppKit’s SIWX messages at the interaction contract (SOLANA_NETWORKS and BITCOIN_NETWORKS on)', () => {
  for (const family of Object.keys(FAMILIES) as (keyof typeof FAMILIES)[]) {
    for (const clearChainIdNamespace of [false, true]) {
      for (const expiry of Object.keys(EXPIRIES) as Expiry[]) {
        it(`${family}, clearChainIdNamespace ${clearChainIdNamespace}, expiration: ${expiry}: 303 on to the client, sub ${family}:…`, async () => {
          const { jar, interactionUrl, verifier, details } = await open();
          const message = await messageFrom(details, family, { clearChainIdNamespace, ...EXPIRIES[expiry](details) });
          const chainLine = message.split('\n').find((line) => line.startsWith('Chain ID: '));
          const caip2 = FAMILIES[family].network.caipNetworkId;
          expect(chainLine).toBe(`Chain ID: ${clearChainIdNamespace ? caip2.split(':')[1] : caip2}`);
          expect(message.includes('\nExpiration Time: ')).toBe(expiry !== 'none');

          const response = await postSignature(jar, interactionUrl, { message, signature: await FAMILIES[family].sign(message) });
          expect(response.status, await response.clone().text()).toBe(303);
          const callback = await followToClient(jar, interactionUrl, response.headers.get('location') as string);
          const tokens = await oidc.authorizationCodeGrant(client, callback, { pkceCodeVerifier: verifier, expectedState: 'st' });
          expect(tokens.claims()?.sub).toBe(FAMILIES[family].sub);
        });
      }
    }
  }
});

describe('what AppKit may write that Signet refuses', () => {
  it('an expiration after the sign-in’s own (AppKit’s `expiration` of an hour) is refused: MESSAGE_MISMATCH, for every family', async () => {
    for (const family of Object.keys(FAMILIES) as (keyof typeof FAMILIES)[]) {
      const interaction = await open();
      const message = await messageFrom(interaction.details, family, { expiration: 60 * 60_000 });
      expect(await refusal(message, family, interaction), family).toMatchObject({ status: 400, error: 'MESSAGE_MISMATCH' });
      // The interaction is still usable: the same app without the hour signs in.
      const again = await messageFrom(interaction.details, family);
      const ok = await postSignature(interaction.jar, interaction.interactionUrl, {
        message: again,
        signature: await FAMILIES[family].sign(again),
      });
      expect(ok.status, family).toBe(303);
    }
  });

  it('a Chain ID that could mean another chain is refused: INVALID_CHAIN_ID', async () => {
    const interaction = await open();
    const { details } = interaction;
    const swap = (message: string, chainId: string) => message.replace(/\nChain ID: [^\n]+/, `\nChain ID: ${chainId}`);
    const cases: [keyof typeof FAMILIES, string][] = [
      ['eip155', `solana:${SOLANA_MAINNET}`],
      ['eip155', 'eip155:01'],
      ['eip155', 'EIP155:1'],
      ['solana', 'eip155:1'],
      ['solana', `bip122:${BITCOIN_MAINNET}`],
      ['solana', `solana:${SOLANA_MAINNET.toLowerCase()}`],
      ['bip122', `solana:${SOLANA_MAINNET}`],
      ['bip122', `bip122:${BITCOIN_MAINNET.toUpperCase()}`],
    ];
    for (const [family, chainId] of cases) {
      const message = swap(await messageFrom(details, family), chainId);
      expect(await refusal(message, family), `${family} ${chainId}`).toMatchObject({ status: 400, error: 'INVALID_CHAIN_ID' });
    }
    // A chain this sign-in does not take, in its CAIP-2 form: refused as the bare form is.
    const polygon = swap(await messageFrom(details, 'eip155'), 'eip155:137');
    expect(await refusal(polygon, 'eip155', interaction)).toMatchObject({ status: 400, error: 'CHAIN_NOT_ALLOWED' });
    const devnet = swap(await messageFrom(details, 'solana'), `solana:${SOLANA_CHAIN_REFERENCES.devnet}`);
    expect(await refusal(devnet, 'solana', interaction)).toMatchObject({ status: 400, error: 'CHAIN_NOT_ALLOWED' });
  });

  it('a first line that names a network rather than the kind of account (AppKit without networks, or a test network) is refused', async () => {
    const { details } = await open();
    // AppKit names the account by the network's name: "Solana Devnet" is not a kind of account.
    const devnet = await messageFrom(details, 'solana', { chainId: APPKIT_NETWORKS.solanaDevnet.caipNetworkId });
    expect(devnet.split('\n')[0]).toMatch(/with your Solana Devnet account:$/);
    expect(await refusal(devnet, 'solana')).toMatchObject({ status: 400, error: 'WRONG_NAMESPACE' });
    // An EVM network AppKit was not given: its namespace's label, "EVM Networks".
    const unknown = await messageFrom(details, 'eip155', { chainId: 'eip155:8453' });
    expect(unknown.split('\n')[0]).toMatch(/with your EVM Networks account:$/);
    expect(await refusal(unknown, 'eip155')).toMatchObject({ status: 400, error: 'WRONG_NAMESPACE' });
  });
});
