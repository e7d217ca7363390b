/**
 * The interaction contract, written once (docs/ARCHITECTURE.md, "The interaction contract"):
 * from a set of interaction details, the EIP-4361 message a wallet signs, and the expectations
 * the provider checks that message against. Browser-safe (the wallet page bundles it): it
 * imports only the SIWE library's formatting entry and types.
 */
import { type CreateSiweMessageParameters, createSiweMessage } from '@signet/siwe/message';
import type { InteractionDetails } from './details.ts';

export type MessageOptions = {
  /** The signer's address (a contract wallet's own address for EIP-1271 / EIP-6492). */
  address: `0x${string}`;
  /** Default: the first chain the details allow. */
  chainId?: number;
  /** The current time in the provider's clock (the page corrects for a skewed local clock). */
  now?: number;
};

/**
 * The message parameters for these details. `issuedAt` is never before the sign-in began
 * (a clock slightly behind the provider's would otherwise make MESSAGE_TOO_OLD).
 */
export function messageParameters(details: InteractionDetails, options: MessageOptions): CreateSiweMessageParameters {
  const now = options.now ?? Date.now();
  return {
    domain: details.domain,
    address: options.address,
    ...(details.statement === undefined ? {} : { statement: details.statement }),
    uri: details.uri,
    version: '1',
    chainId: options.chainId ?? (details.chainIds[0] as number),
    nonce: details.nonce,
    issuedAt: new Date(Math.max(now, Date.parse(details.issuedAfter))),
    expirationTime: new Date(details.expiresAt),
    resources: details.resources,
  };
}

/** The EIP-4361 text to sign for these details. */
export const messageFromDetails = (details: InteractionDetails, options: MessageOptions): string =>
  createSiweMessage(messageParameters(details, options));

/** What a signed message must match, for the SIWE library's `verifySiwe({ expect })`. */
export function expectationsFor(details: InteractionDetails, options: { now: number; clockSkewMs: number }) {
  return {
    domain: details.domain,
    scheme: new URL(details.uri).protocol.slice(0, -1),
    origin: details.uri,
    nonce: details.nonce,
    chainIds: details.chainIds,
    resource: details.resources[0],
    time: options.now,
    notIssuedBefore: Date.parse(details.issuedAfter),
    clockSkew: options.clockSkewMs,
  };
}
