/**
 * The interaction contract for a Solana wallet (docs/ARCHITECTURE.md, "The interaction
 * contract"): from a set of interaction details, the Sign In With Solana input a wallet is
 * given (the Wallet Standard's `solana:signIn` input), the text it signs, the expectations the
 * provider checks it against, and the check that the wallet signed what it was given. Written
 * once for both sides, as `signin/contract.ts` is for Ethereum. Browser-safe: the wallet
 * page loads it on demand, with the SIWS library's formatting entry only.
 */
import { createSiwsMessage, type SiwsMessage, type SolanaNetwork, siwsNetwork } from '@signet/siws/message';
import type { InteractionDetails } from '../details.ts';
import { firstNotAsGiven, givenExpectations, givenFields, type NotAsGiven } from '../given-fields.ts';

/** The fields a Solana wallet is given: every field of the message but the address, which the wallet adds. */
export type SolanaSignInInput = {
  domain: string;
  statement?: string;
  uri: string;
  version: '1';
  chainId: SolanaNetwork;
  nonce: string;
  issuedAt: string;
  expirationTime: string;
  resources: string[];
};

export type SolanaMessageOptions = {
  /** The cluster to sign in on; one of the details' `solanaNetworks`. */
  network: SolanaNetwork;
  /** The current time in the provider's clock (the page corrects for a skewed local clock). */
  now?: number;
};

/** The `solana:signIn` input for these details (`given-fields.ts`), the cluster as `chainId`. */
export function solanaSignInInput(details: InteractionDetails, options: SolanaMessageOptions): SolanaSignInInput {
  return { ...givenFields(details, options.now), chainId: options.network };
}

/** The Sign In With Solana text to sign for these details: the input with the signer's base58 address. */
export const solanaMessageFromDetails = (details: InteractionDetails, options: SolanaMessageOptions & { address: string }) =>
  createSiwsMessage({ ...solanaSignInInput(details, options), address: options.address });

/** What a signed Solana message must match, for the SIWS library's `validateSiwsMessage(message, expect)`. */
export const solanaExpectationsFor = (details: InteractionDetails, options: { now: number; clockSkewMs: number }) =>
  givenExpectations(details, details.solanaNetworks, options);

export type { NotAsGiven };

/**
 * The first field of a signed message that is not what these details gave the wallet (a
 * changed statement, URI or expiry, a Request ID or Not Before it added, another resource list),
 * or undefined when the wallet signed exactly what it was given. A wallet chooses only its
 * address, the network (among `solanaNetworks`) and the time it signs at.
 */
export function notAsGiven(details: InteractionDetails, message: SiwsMessage): NotAsGiven | undefined {
  const network = message.chainId === undefined ? undefined : siwsNetwork(message.chainId);
  return firstNotAsGiven(solanaSignInInput(details, { network: (network ?? 'mainnet') as SolanaNetwork }), message);
}
