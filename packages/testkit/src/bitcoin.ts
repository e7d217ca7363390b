/**
 * A Bitcoin wallet for tests: a secp256k1 key with its addresses of each type, signatures made by
 * `@signet/siwb`'s test signer (@scure/btc-signer's own signing and finalizing, checked in that
 * package against bip322-js and bitcoinjs-message; BIP-322 for segwit and Taproot, BIP-137 for
 * P2PKH), and a sign-in through the provider's interaction contract over real HTTP with a Sign in
 * with Bitcoin message built from the details, as the wallet page builds it.
 */
import { type BitcoinMessageOptions, bitcoinMessageFields, type InteractionDetails } from '@signet/provider';
import {
  ADDRESS_FAMILY,
  type BitcoinNetwork,
  type CreateSiwbMessageParameters,
  createSiwbMessage,
  type SignedMessage,
} from '@signet/siwb';
import {
  addressOf,
  type Bip322Options,
  signBip137,
  signBip322,
  type TestAddressType,
  type TestKey,
  testKey,
} from '../../siwb/src/signers.testkit.ts';
import { CookieJar } from './cookies.ts';
import { followToClient, getDetails, postSignature, startInteraction } from './wallet.ts';

export type { TestAddressType as BitcoinAddressKind };

export type BitcoinKey = TestKey & {
  /** The key's address of a type on a network (mainnet, or the test networks' shared encoding). */
  address(type: TestAddressType, network?: BitcoinNetwork): string;
  /**
   * The key's signature (base64) of the text for its address of `type`: BIP-137 for P2PKH,
   * BIP-322 (simple by default, or `form: 'full'`) for the others.
   */
  sign(type: TestAddressType, message: SignedMessage, options?: Bip322Options & { network?: BitcoinNetwork }): string;
};

/** A fresh key, or the one of 32 bytes (the same bytes, the same addresses). */
export function bitcoinKey(privateKey?: Uint8Array): BitcoinKey {
  const key = testKey(privateKey);
  return {
    ...key,
    address: (type, network = 'mainnet') => addressOf(key, type, ADDRESS_FAMILY[network]),
    sign(type, message, options = {}) {
      const { network = 'mainnet', ...rest } = options;
      if (type === 'p2pkh' || type === 'p2pkh-uncompressed') {
        return signBip137(key, message, { compressed: type === 'p2pkh' });
      }
      return signBip322(key, type, message, { ...rest, family: ADDRESS_FAMILY[network] });
    },
  };
}

/** The message the wallet page would have a Bitcoin wallet sign for these details; `overrides` tamper with it. */
export function bitcoinMessageFor(
  details: InteractionDetails,
  address: string,
  overrides: Partial<CreateSiwbMessageParameters> & Partial<BitcoinMessageOptions> = {},
): string {
  const { network = details.bitcoinNetworks?.[0] ?? 'mainnet', now, ...fields } = overrides;
  return createSiwbMessage({ ...bitcoinMessageFields(details, { network, now }), address, ...fields });
}

export type BitcoinSignInOptions = {
  authorizationUrl: URL | string;
  key: BitcoinKey;
  /** The address type to sign in with (default P2WPKH). */
  type?: TestAddressType;
  /** Default: the first of the details' `bitcoinNetworks`. */
  network?: BitcoinNetwork;
  /** BIP-322 simple (default) or full. */
  form?: 'simple' | 'full';
  jar?: CookieJar;
  overrides?: Partial<CreateSiwbMessageParameters>;
};

/** The whole Bitcoin sign-in; returns the URL the provider sent the browser to at the client. */
export async function bitcoinSignIn(options: BitcoinSignInOptions): Promise<{
  callbackUrl: URL;
  details: InteractionDetails;
  jar: CookieJar;
  address: string;
  message: string;
  signature: string;
}> {
  const jar = options.jar ?? new CookieJar();
  const interactionUrl = await startInteraction(jar, options.authorizationUrl);
  const details = await getDetails(jar, interactionUrl);
  const type = options.type ?? 'p2wpkh';
  const network = options.network ?? details.bitcoinNetworks?.[0] ?? 'mainnet';
  const address = options.key.address(type, network);
  const message = bitcoinMessageFor(details, address, { network, ...options.overrides });
  const signature = options.key.sign(type, message, { network, form: options.form });
  const response = await postSignature(jar, interactionUrl, { message, signature });
  if (response.status !== 303) throw new Error(`sign-in refused (${response.status}): ${await response.text()}`);
  const callbackUrl = await followToClient(jar, interactionUrl, response.headers.get('location') as string);
  return { callbackUrl, details, jar, address, message, signature };
}
