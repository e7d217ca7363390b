/**
 * The interaction contract for a Bitcoin wallet (docs/ARCHITECTURE.md, "The interaction
 * contract"): from a set of interaction details, the Sign in with Bitcoin message (CAIP-122,
 * `bip122`) a wallet signs, the expectations the provider checks it against, and the check that
 * the message holds every field the details gave, unchanged. Written once for both sides, as
 * `signin/contract.ts` is for Ethereum. Browser-safe: the wallet page loads it on demand, with the
 * SIWB library's formatting entry only (no secp256k1, no transactions).
 */
import {
  BITCOIN_CHAIN_REFERENCES,
  type BitcoinNetwork,
  bitcoinNetworkOf,
  type CreateSiwbMessageParameters,
  createSiwbMessage,
  type SiwbMessage,
} from '@signet/siwb/message';
import type { InteractionDetails } from '../details.ts';
import { firstNotAsGiven, givenExpectations, givenFields, type NotAsGiven } from '../given-fields.ts';

export type BitcoinMessageOptions = {
  /** The network to sign in on; one of the details' `bitcoinNetworks`. */
  network: BitcoinNetwork;
  /** The current time in the provider's clock (the page corrects for a skewed local clock). */
  now?: number;
};

/** Every field of the message but the address, which the wallet's account gives. */
export type BitcoinMessageFields = Omit<CreateSiwbMessageParameters, 'address' | 'issuedAt' | 'expirationTime'> & {
  issuedAt: string;
  expirationTime: string;
};

/** The message fields for these details (`given-fields.ts`), with the network's CAIP-2 reference as `Chain ID`. */
export function bitcoinMessageFields(details: InteractionDetails, options: BitcoinMessageOptions): BitcoinMessageFields {
  return { ...givenFields(details, options.now), chainId: BITCOIN_CHAIN_REFERENCES[options.network] };
}

/** The Sign in with Bitcoin text to sign for these details by `address` (bech32 in lower case). */
export const bitcoinMessageFromDetails = (details: InteractionDetails, options: BitcoinMessageOptions & { address: string }) =>
  createSiwbMessage({ ...bitcoinMessageFields(details, options), address: options.address });

/** What a signed Bitcoin message must match, for the SIWB library's `validateSiwbMessage(message, expect)`. */
export const bitcoinExpectationsFor = (details: InteractionDetails, options: { now: number; clockSkewMs: number }) =>
  givenExpectations(details, details.bitcoinNetworks, options);

export type BitcoinNotAsGiven = NotAsGiven;

/**
 * The first field of a signed message that is not what these details give (a changed statement,
 * URI or expiry, a Request ID or Not Before added, another resource list), or undefined when the
 * message is exactly the one the page builds. The signer chooses only its address, the network
 * (among `bitcoinNetworks`) and the time it signs at.
 */
export const bitcoinNotAsGiven = (details: InteractionDetails, message: SiwbMessage): BitcoinNotAsGiven | undefined =>
  firstNotAsGiven(bitcoinMessageFields(details, { network: bitcoinNetworkOf(message.chainId) ?? 'mainnet' }), message);
