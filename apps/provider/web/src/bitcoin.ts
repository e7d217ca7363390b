/**
 * Signing in with a Bitcoin wallet, loaded only when the person picks one. The page asks the wallet
 * for its account, builds the Sign in with Bitcoin text from the interaction details
 * (`signin/bitcoin/contract.ts`) for that address and its network, shows it, and asks the wallet to
 * sign it: BIP-322 for segwit and Taproot addresses, the legacy form (BIP-137) for P2PKH. The
 * page posts the message and the signature (base64) with its form; the provider checks it.
 *
 * Each kind of wallet is reached its own way:
 * - `sats`: sats-connect's JSON-RPC `request(method, params)` (WBIP001; Xverse, Leather, Magic
 *   Eden and the other wallets that list themselves in `window.btc_providers`): `getAddresses`
 *   (or the older `getAccounts`), then `signMessage` with `protocol: "BIP322"`. Leather's own
 *   parameters (`paymentType`, `network`) are sent beside sats-connect's.
 * - `unisat` and `okx`: `signMessage(text, "bip322-simple")` on `window.unisat` and
 *   `window.okxwallet.bitcoin` (`"ecdsa"`, their BIP-137 form, for a P2PKH address).
 * - `phantom`: `window.phantom.bitcoin.signMessage(address, bytes)`, a BIP-322 signature as bytes.
 * - `standard`: the Wallet Standard's Bitcoin features, `bitcoin:connect` (or `standard:connect`)
 *   and `bitcoin:signMessage`, as `@exodus/bitcoin-wallet-standard` names them.
 */

import {
  ADDRESS_FAMILY,
  type BitcoinNetwork,
  decodeBitcoinAddress,
  isBitcoinAddress,
  normalizeBitcoinAddress,
} from '@signet/siwb/message';
import type { Wallet, WalletAccount } from '@wallet-standard/base';
import { bitcoinMessageFromDetails } from '../../src/signin/bitcoin/contract.ts';
import type { InteractionDetails } from '../../src/signin/details.ts';

/** A wallet that signed (or says it signed) other bytes than the message this sign-in gave it (the page words it). */
export class ChangedMessageError extends Error {
  override readonly name = 'ChangedMessageError';
}

type Purposes = { purposes: ('payment' | 'ordinals')[] };
type Account = { address: string; purpose?: string };
/** The address chosen (in its one spelling: bech32 in lower case) and the wallet's own account object. */
type Chosen = { address: string; source: Account };
type RpcAnswer = { result?: unknown; error?: { code?: number; message?: string } };

/** sats-connect's provider (WBIP001): every method is `request(method, params)`. */
type SatsProvider = { request(method: string, params?: unknown): Promise<RpcAnswer> };
/** Unisat's `window.unisat` and OKX's `window.okxwallet.bitcoin`: a text signed in a named form, base64 back. */
type TextSigner = {
  requestAccounts?(): Promise<string[]>;
  connect?(): Promise<{ address: string }>;
  getChain?(): Promise<{ enum?: string }>;
  signMessage(text: string, type: 'ecdsa' | 'bip322-simple'): Promise<string>;
};
/** Phantom's `window.phantom.bitcoin`. */
type PhantomProvider = {
  requestAccounts(): Promise<Account[]>;
  signMessage(address: string, message: Uint8Array): Promise<{ signature: Uint8Array }>;
};
/** The Wallet Standard's Bitcoin features (`@exodus/bitcoin-wallet-standard`'s names and shapes). */
type StandardFeatures = {
  'bitcoin:connect'?: { connect(input: Purposes): Promise<{ accounts: readonly WalletAccount[] }> };
  'standard:connect'?: { connect(): Promise<{ accounts: readonly WalletAccount[] }> };
  'bitcoin:signMessage'?: {
    signMessage(
      ...inputs: { account: WalletAccount; message: Uint8Array }[]
    ): Promise<readonly { signedMessage?: Uint8Array; signature: Uint8Array }[]>;
  };
};

/** A Bitcoin wallet as the page found it: how it is reached. */
export type BitcoinWallet =
  | { via: 'standard'; wallet: Wallet }
  | { via: 'sats' | 'unisat' | 'okx' | 'phantom'; provider: unknown };

export type BitcoinSignature = { message: string; signature: string };

const PURPOSES: Purposes = { purposes: ['payment', 'ordinals'] };
/** Unisat's chain names, for a test address (the three test networks share addresses). */
const UNISAT_CHAINS: Record<string, BitcoinNetwork> = {
  BITCOIN_MAINNET: 'mainnet',
  BITCOIN_TESTNET: 'testnet',
  BITCOIN_TESTNET4: 'testnet4',
  BITCOIN_SIGNET: 'signet',
};

const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i]);

/** A JSON-RPC answer's result, or its error thrown (a declined request as EIP-1193's 4001, which the page words). */
async function rpc(provider: SatsProvider, method: string, params?: unknown): Promise<unknown> {
  let answer: RpcAnswer;
  try {
    answer = await provider.request(method, params);
  } catch (error) {
    answer = (error as RpcAnswer)?.error ? (error as RpcAnswer) : { error: error as RpcAnswer['error'] };
  }
  if (answer?.error) {
    const { code, message } = answer.error;
    // -32000 is sats-connect's USER_REJECTION; 4001 the EIP-1193 code several wallets reuse.
    throw Object.assign(new Error(message ?? 'the wallet refused'), { code: code === -32000 ? 4001 : code });
  }
  return answer?.result;
}

/** The addresses a sats-connect wallet shares: `getAddresses` (current), else `getAccounts` (older). */
async function satsAccounts(provider: SatsProvider): Promise<Account[]> {
  let result: unknown;
  try {
    result = await rpc(provider, 'getAddresses', PURPOSES);
  } catch (error) {
    if ((error as { code?: number }).code === 4001) throw error;
    result = await rpc(provider, 'getAccounts', PURPOSES);
  }
  const list = Array.isArray(result) ? result : ((result as { addresses?: unknown[] } | undefined)?.addresses ?? []);
  return list as Account[];
}

async function accountsOf(choice: BitcoinWallet): Promise<Account[]> {
  if (choice.via === 'standard') {
    const features = choice.wallet.features as StandardFeatures;
    const connected = features['bitcoin:connect']
      ? await features['bitcoin:connect'].connect(PURPOSES)
      : await features['standard:connect']?.connect();
    return [...(connected?.accounts ?? choice.wallet.accounts)];
  }
  if (choice.via === 'sats') return satsAccounts(choice.provider as SatsProvider);
  if (choice.via === 'phantom') return (choice.provider as PhantomProvider).requestAccounts();
  const signer = choice.provider as TextSigner;
  if (signer.requestAccounts) return (await signer.requestAccounts()).map((address) => ({ address }));
  const connected = await signer.connect?.();
  return connected ? [connected] : [];
}

/** The network a test address signs in on: the wallet's own when it says (Unisat), else the first test network allowed. */
async function networkFor(choice: BitcoinWallet, account: Chosen, allowed: readonly BitcoinNetwork[]): Promise<BitcoinNetwork> {
  const family = decodeBitcoinAddress(account.address)?.family;
  if (family === 'mainnet') return 'mainnet';
  const said =
    choice.via === 'unisat' ? UNISAT_CHAINS[(await (choice.provider as TextSigner).getChain?.())?.enum ?? ''] : undefined;
  return said && allowed.includes(said)
    ? said
    : (allowed.find((network) => ADDRESS_FAMILY[network] === family) ?? said ?? 'testnet');
}

/**
 * The account to sign in with: the first address the wallet shares (its payment address first,
 * as asked) that can sign in on an allowed network. Throws in words when none can.
 */
function pick(accounts: Account[], allowed: readonly BitcoinNetwork[]): Chosen {
  const usable: Chosen[] = [];
  for (const source of accounts) {
    if (typeof source?.address !== 'string' || !decodeBitcoinAddress(source.address)) continue;
    const address = normalizeBitcoinAddress(source.address);
    if (isBitcoinAddress(address)) usable.push({ address, source });
  }
  const families = new Set(allowed.map((network) => ADDRESS_FAMILY[network]));
  const chosen = usable.find((account) => families.has(decodeBitcoinAddress(account.address)?.family ?? 'mainnet'));
  if (chosen) return chosen;
  if (usable.length === 0) throw new Error('the wallet shared no Bitcoin address that can sign in (bc1q…, bc1p…, 3… or 1…)');
  throw new Error(
    `your wallet's address is on another network than this sign-in takes (${allowed.join(', ')}): switch networks in your wallet`,
  );
}

/** The signature, base64, of `text` by `account`, as this kind of wallet makes it. */
async function sign(choice: BitcoinWallet, account: Chosen, text: string, network: BitcoinNetwork): Promise<string> {
  const type = decodeBitcoinAddress(account.address)?.type;
  const bytes = new TextEncoder().encode(text);
  switch (choice.via) {
    case 'standard': {
      const features = choice.wallet.features as StandardFeatures;
      const signMessage = features['bitcoin:signMessage'];
      if (!signMessage) throw new Error('the wallet cannot sign a message');
      const [output] = await signMessage.signMessage({ account: account.source as WalletAccount, message: bytes });
      if (!output) throw new Error('the wallet returned no signature');
      if (output.signedMessage && !sameBytes(output.signedMessage, bytes)) {
        throw new ChangedMessageError('the wallet signed another message');
      }
      return base64(output.signature);
    }
    case 'sats': {
      const params = {
        address: account.address,
        message: text,
        protocol: type === 'p2pkh' ? 'ECDSA' : 'BIP322',
        // Leather's own names for the same request (it signs with its p2wpkh or p2tr account).
        ...(type === 'p2wpkh' || type === 'p2tr' ? { paymentType: type } : {}),
        network,
      };
      const result = (await rpc(choice.provider as SatsProvider, 'signMessage', params)) as { signature?: unknown } | undefined;
      if (typeof result?.signature !== 'string') throw new Error('the wallet returned no signature');
      return result.signature;
    }
    case 'phantom': {
      const { signature } = await (choice.provider as PhantomProvider).signMessage(account.address, bytes);
      return base64(signature);
    }
    default:
      return (choice.provider as TextSigner).signMessage(text, type === 'p2pkh' ? 'ecdsa' : 'bip322-simple');
  }
}

/**
 * Asks the wallet to sign in for these details. `show` receives the text before it is signed.
 * Throws ChangedMessageError when the wallet says it signed other bytes than the text's.
 */
export async function signWithBitcoin(
  choice: BitcoinWallet,
  details: InteractionDetails,
  options: { now: number; show(text: string): void },
): Promise<BitcoinSignature> {
  const allowed = details.bitcoinNetworks ?? [];
  const account = pick(await accountsOf(choice), allowed);
  const network = await networkFor(choice, account, allowed);
  const text = bitcoinMessageFromDetails(details, { address: account.address, network, now: options.now });
  options.show(text);
  return { message: text, signature: await sign(choice, account, text, network) };
}
