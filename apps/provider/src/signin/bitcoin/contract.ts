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

/**
 * The message fields for these details: the same domain, URI, nonce, statement, resources and
 * times as an Ethereum message, with the network's CAIP-2 reference as `Chain ID`. `issuedAt` is
 * never before the sign-in began (a clock slightly behind the provider's would otherwise make
 * MESSAGE_TOO_OLD); the expiration time is the sign-in's own, as the details write it.
 */
export function bitcoinMessageFields(details: InteractionDetails, options: BitcoinMessageOptions): BitcoinMessageFields {
  const now = options.now ?? Date.now();
  return {
    domain: details.domain,
    ...(details.statement === undefined ? {} : { statement: details.statement }),
    uri: details.uri,
    version: '1',
    chainId: BITCOIN_CHAIN_REFERENCES[options.network],
    nonce: details.nonce,
    issuedAt: new Date(Math.max(now, Date.parse(details.issuedAfter))).toISOString(),
    expirationTime: details.expiresAt,
    resources: [...details.resources],
  };
}

/** The Sign in with Bitcoin text to sign for these details by `address` (bech32 in lower case). */
export const bitcoinMessageFromDetails = (details: InteractionDetails, options: BitcoinMessageOptions & { address: string }) =>
  createSiwbMessage({ ...bitcoinMessageFields(details, options), address: options.address });

/** What a signed Bitcoin message must match, for the SIWB library's `validateSiwbMessage(message, expect)`. */
export function bitcoinExpectationsFor(details: InteractionDetails, options: { now: number; clockSkewMs: number }) {
  return {
    domain: details.domain,
    origin: details.uri,
    nonce: details.nonce,
    networks: details.bitcoinNetworks ?? [],
    resource: details.resources[0],
    time: options.now,
    notIssuedBefore: Date.parse(details.issuedAfter),
    clockSkew: options.clockSkewMs,
  };
}

/** The fields a message must carry as given, in message order (the address, network and issuedAt are the signer's). */
const GIVEN_FIELDS = [
  'domain',
  'statement',
  'uri',
  'version',
  'nonce',
  'expirationTime',
  'notBefore',
  'requestId',
  'resources',
] as const satisfies readonly (keyof SiwbMessage)[];

export type BitcoinNotAsGiven = { field: (typeof GIVEN_FIELDS)[number]; expected: unknown; received: unknown };

/**
 * The first field of a signed message that is not what these details give (a changed statement,
 * URI or expiry, a Request ID or Not Before added, another resource list), or undefined when the
 * message is exactly the one the page builds. The signer chooses only its address, the network
 * (among `bitcoinNetworks`) and the time it signs at.
 */
export function bitcoinNotAsGiven(details: InteractionDetails, message: SiwbMessage): BitcoinNotAsGiven | undefined {
  const given: Partial<Record<(typeof GIVEN_FIELDS)[number], unknown>> = bitcoinMessageFields(details, {
    network: bitcoinNetworkOf(message.chainId) ?? 'mainnet',
  });
  for (const field of GIVEN_FIELDS) {
    const expected = given[field];
    const received = message[field];
    if (JSON.stringify(expected) !== JSON.stringify(received)) return { field, expected, received };
  }
  return undefined;
}
