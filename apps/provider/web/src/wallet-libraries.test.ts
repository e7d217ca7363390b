/**
 * The requests the wallet page makes of each wallet it lists, recorded next to the ones the
 * wallets' own libraries make, run here from npm (not the page's idea of them alone):
 *
 * - Xverse: sats-connect 4.2.1's `request()` (WBIP001, `window.XverseProviders.BitcoinProvider`):
 *   `getAddresses` with the payment and ordinals purposes, `signMessage` with the address and
 *   `protocol` BIP322 (ECDSA for P2PKH), as its own enums write them.
 * - Unisat: sats-connect's own Unisat adapter, which turns the same request into Unisat's
 *   `window.unisat.signMessage(text, type)`.
 * - Leather: `@leather.io/rpc` 2.21.16, Leather's own definition of its RPC requests (zod schemas):
 *   the page's `getAddresses` and `signMessage` requests are valid Leather requests.
 * - Phantom (Solana) and every Wallet Standard Solana wallet: `@solana/wallet-standard-util`'s
 *   `createSignInMessageText`, the text a wallet writes from the `solana:signIn` input the page gives.
 *
 * Not run here, said so in docs/wallets.md: Phantom's own library on npm
 * (`@phantom/browser-injected-sdk` 2.0.2) has no Bitcoin part, and its Solana part passes the
 * `signIn` input to the injected provider unchanged (its dependencies, Sui's and Solana kit's SDKs
 * and ethers, are not worth a pass-through; the page reaches Phantom through the Wallet Standard,
 * covered above). Phantom's Bitcoin provider (`window.phantom.bitcoin.signMessage(address, bytes)`)
 * and OKX's (`window.okxwallet.bitcoin.signMessage(text, type)`) have no library on npm: their
 * calls are recorded below as their documentation writes them.
 */
import { getAddresses as leatherGetAddresses, signMessage as leatherSignMessage } from '@leather.io/rpc';
import { type BitcoinNetwork, verifySiwb } from '@signet/siwb';
import { type BitcoinAddressKind, bitcoinKey, solanaKeypair } from '@signet/testkit';
import { createSignInMessageText } from '@solana/wallet-standard-util';
import { AddressPurpose, defaultAdapters, MessageSigningProtocols, request } from 'sats-connect';
import { afterEach, describe, expect, it } from 'vitest';
import { bitcoinExpectationsFor } from '../../src/signin/bitcoin/contract.ts';
import { buildDetails } from '../../src/signin/details.ts';
import { solanaMessageFromDetails, solanaSignInInput } from '../../src/signin/solana/contract.ts';
import { type BitcoinWallet, signWithBitcoin } from './bitcoin.ts';

const started = Date.now();
const details = buildDetails(
  {
    domain: 'id.example.com',
    origin: 'https://id.example.com',
    chainIds: [1],
    solanaNetworks: ['mainnet'],
    bitcoinNetworks: ['mainnet'],
    profile: 'self-hosted',
    emailScope: false,
  },
  {
    uid: 'abcd1234',
    iat: Math.floor(started / 1000),
    exp: Math.floor(started / 1000) + 600,
    params: { client_id: 'c', redirect_uri: 'https://shop.example/callback', scope: 'openid' },
    prompt: { name: 'login' },
  },
  { client_id: 'c', client_name: 'Shop' },
);
const key = bitcoinKey();
type Call = { method: string; params: unknown };

/** A wallet whose requests are recorded: `answer` says what it answers, as the real wallet would. */
function recorder(answer: (method: string, params: unknown) => unknown) {
  const calls: Call[] = [];
  const provider = {
    async request(method: string, params: unknown) {
      calls.push({ method, params });
      return answer(method, params);
    },
  };
  return { calls, provider };
}

/** A sats-connect wallet (WBIP001): JSON-RPC answers with the account of `type` and its signature of the text asked for. */
const satsWallet = (type: BitcoinAddressKind) =>
  recorder((method, params) => {
    const address = key.address(type);
    if (method === 'getInfo')
      return { jsonrpc: '2.0', id: '1', result: { version: '1', methods: ['getAddresses', 'signMessage'] } };
    if (method === 'getAddresses') return { jsonrpc: '2.0', id: '1', result: { addresses: [{ address, purpose: 'payment' }] } };
    const { message } = params as { message: string };
    return { jsonrpc: '2.0', id: '1', result: { address, signature: key.sign(type, message), messageHash: '' } };
  });

/** The page's Bitcoin sign-in with `wallet`: the text it had signed, and that the provider would take it. */
async function pageSignIn(wallet: BitcoinWallet) {
  const signed = await signWithBitcoin(wallet, details, { now: Date.now(), show: () => {} });
  const verified = verifySiwb({ ...signed, expect: bitcoinExpectationsFor(details, { now: Date.now(), clockSkewMs: 60_000 }) });
  return { signed, verified };
}

const globals = globalThis as unknown as { window?: Record<string, unknown> };
afterEach(() => {
  delete globals.window;
});

const PROTOCOL: Record<string, MessageSigningProtocols> = {
  p2wpkh: MessageSigningProtocols.BIP322,
  p2tr: MessageSigningProtocols.BIP322,
  'p2sh-p2wpkh': MessageSigningProtocols.BIP322,
  p2pkh: MessageSigningProtocols.ECDSA,
};

describe('Xverse: the page’s requests are the ones sats-connect 4.2.1 makes', () => {
  for (const type of Object.keys(PROTOCOL) as BitcoinAddressKind[]) {
    it(`${type}: getAddresses (payment, ordinals) and signMessage (address, text, protocol ${PROTOCOL[type]})`, async () => {
      const page = satsWallet(type);
      const { signed, verified } = await pageSignIn({ via: 'sats', provider: page.provider });
      expect(verified.address).toBe(key.address(type));

      const library = satsWallet(type);
      globals.window = { XverseProviders: { BitcoinProvider: library.provider } };
      await request('getAddresses', { purposes: [AddressPurpose.Payment, AddressPurpose.Ordinals] });
      await request('signMessage', { address: key.address(type), message: signed.message, protocol: PROTOCOL[type] });
      // sats-connect asks getInfo once (the wallet answers it silently; it keeps the answer); then the same two requests.
      const asked = library.calls.filter((call) => call.method !== 'getInfo');
      expect(asked.map((call) => call.method)).toEqual(['getAddresses', 'signMessage']);
      expect(page.calls.map((call) => call.method)).toEqual(['getAddresses', 'signMessage']);
      expect(page.calls[0]?.params).toEqual(asked[0]?.params);
      // The page adds Leather's names for the same request (paymentType, network); every field sats-connect sends is the same.
      expect(page.calls[1]?.params).toMatchObject(asked[1]?.params as object);
    });
  }
});

describe('Unisat: the page calls window.unisat as sats-connect’s own Unisat adapter does', () => {
  /** `window.unisat`, recording `signMessage(text, type)`. */
  const unisat = (type: BitcoinAddressKind) => {
    const calls: [string, string][] = [];
    const address = key.address(type);
    return {
      calls,
      provider: {
        requestAccounts: async () => [address],
        getPublicKey: async () => '02'.padEnd(66, '1'),
        getChain: async () => ({ enum: 'BITCOIN_MAINNET' }),
        signMessage: async (text: string, form: 'ecdsa' | 'bip322-simple') => {
          calls.push([text, form]);
          return key.sign(type, text);
        },
      },
    };
  };
  for (const type of ['p2wpkh', 'p2tr', 'p2pkh'] as BitcoinAddressKind[]) {
    it(`${type}: signMessage(text, "${type === 'p2pkh' ? 'ecdsa' : 'bip322-simple'}")`, async () => {
      const page = unisat(type);
      const { signed } = await pageSignIn({ via: 'unisat', provider: page.provider });
      const library = unisat(type);
      globals.window = { unisat: library.provider };
      const UnisatAdapter = defaultAdapters.unisat as unknown as new () => {
        request(method: string, params: unknown): Promise<unknown>;
      };
      await new UnisatAdapter().request('signMessage', { address: key.address(type), message: signed.message });
      expect(page.calls).toEqual(library.calls);
    });
  }
  it('P2SH-P2WPKH: the page asks bip322-simple where the adapter asks ecdsa, since Signet checks BIP-137 for P2PKH only', async () => {
    const page = unisat('p2sh-p2wpkh');
    const { signed } = await pageSignIn({ via: 'unisat', provider: page.provider });
    const library = unisat('p2sh-p2wpkh');
    globals.window = { unisat: library.provider };
    const UnisatAdapter = defaultAdapters.unisat as unknown as new () => {
      request(method: string, params: unknown): Promise<unknown>;
    };
    await new UnisatAdapter().request('signMessage', { address: key.address('p2sh-p2wpkh'), message: signed.message });
    expect(page.calls).toEqual([[signed.message, 'bip322-simple']]);
    expect(library.calls).toEqual([[signed.message, 'ecdsa']]);
  });
});

describe('Leather: the page’s requests are valid by @leather.io/rpc, Leather’s own definition of them', () => {
  for (const [type, network] of [
    ['p2wpkh', 'mainnet'],
    ['p2tr', 'mainnet'],
  ] as [BitcoinAddressKind, BitcoinNetwork][]) {
    it(`${type}: getAddresses and signMessage (message, paymentType ${type}, network ${network})`, async () => {
      const page = satsWallet(type);
      await pageSignIn({ via: 'sats', provider: page.provider });
      const [addresses, sign] = page.calls as [Call, Call];
      const envelope = (call: Call) => ({ jsonrpc: '2.0', id: '1', method: call.method, params: call.params });
      expect(leatherGetAddresses.request.safeParse(envelope(addresses)).success).toBe(true);
      const parsed = leatherSignMessage.request.safeParse(envelope(sign));
      expect(parsed.error).toBeUndefined();
      expect(parsed.data?.params).toMatchObject({ paymentType: type, network });
    });
  }
});

describe('Phantom and OKX (Bitcoin): their documented calls, no library on npm to run', () => {
  it('Phantom: window.phantom.bitcoin.signMessage(address, the text’s UTF-8 bytes); OKX: signMessage(text, "bip322-simple")', async () => {
    const calls: unknown[][] = [];
    const address = key.address('p2wpkh');
    const phantom = {
      requestAccounts: async () => [{ address, purpose: 'payment' }],
      signMessage: async (to: string, bytes: Uint8Array) => {
        calls.push([to, new TextDecoder().decode(bytes)]);
        return { signature: Uint8Array.from(Buffer.from(key.sign('p2wpkh', new TextDecoder().decode(bytes)), 'base64')) };
      },
    };
    const { signed, verified } = await pageSignIn({ via: 'phantom', provider: phantom });
    expect(calls).toEqual([[address, signed.message]]);
    expect(verified.method).toBe('bip322-simple');
    const okxCalls: unknown[][] = [];
    const okx = {
      requestAccounts: async () => [address],
      signMessage: async (text: string, form: string) => {
        okxCalls.push([text, form]);
        return key.sign('p2wpkh', text);
      },
    };
    const viaOkx = await pageSignIn({ via: 'okx', provider: okx });
    expect(okxCalls).toEqual([[viaOkx.signed.message, 'bip322-simple']]);
  });
});

describe('Phantom (Solana) and every Wallet Standard Solana wallet: the text it writes from the page’s solana:signIn input', () => {
  it('createSignInMessageText (@solana/wallet-standard-util) of the input and the account is the text the provider expects', () => {
    const { address } = solanaKeypair();
    const input = solanaSignInInput(details, { network: 'mainnet', now: Date.now() });
    const written = createSignInMessageText({ ...input, address });
    expect(written).toBe(solanaMessageFromDetails(details, { network: 'mainnet', now: Date.parse(input.issuedAt), address }));
    expect(written).toContain('\nChain ID: mainnet\n');
  });
});
