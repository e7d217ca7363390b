/**
 * What the Sign In With Solana and Sign in with Bitcoin contracts share (CAIP-122's fields, as
 * `solana/contract.ts` and `bitcoin/contract.ts` build them from one set of interaction details):
 * the fields the details give, the expectations a signed message is checked against, and the
 * check that a message carries every given field unchanged; and, for every kind of message, the
 * forms the provider reads and the bound on its expiration. Browser-safe, as those are.
 */
import { parseDateTime } from '@signet/siwe/caip122';
import type { InteractionDetails } from './details.ts';

/**
 * How the provider parses every signed message: `Chain ID:` in the form each profile writes, and
 * also as the whole CAIP-2 id of an allowed chain (`eip155:1`, `solana:5eykt…` or the bare genesis
 * hash, `bip122:000000000019d6689c085ae165831e93`), as Reown AppKit's SIWX writes them
 * (docs/wallets.md, "Forms a message may take"). What Signet writes stays the canonical form.
 */
export const SIGN_IN_FORMS = { acceptCaip2ChainId: true } as const;

/** The fields the details give, in message order (the address, network and issuedAt are the signer's). */
export const GIVEN_FIELDS = [
  'domain',
  'statement',
  'uri',
  'version',
  'nonce',
  'expirationTime',
  'notBefore',
  'requestId',
  'resources',
] as const;

export type GivenField = (typeof GIVEN_FIELDS)[number];
export type NotAsGiven = { field: GivenField; expected: unknown; received: unknown };

/**
 * Every field of the message but the address and the network: the same domain, URI, nonce,
 * statement, resources and times as an Ethereum message. `issuedAt` is never before the sign-in
 * began (a clock slightly behind the provider's would otherwise make MESSAGE_TOO_OLD); the
 * expiration time is the sign-in's own, as the details write it.
 */
export function givenFields(details: InteractionDetails, now: number = Date.now()) {
  return {
    domain: details.domain,
    ...(details.statement === undefined ? {} : { statement: details.statement }),
    uri: details.uri,
    version: '1' as const,
    nonce: details.nonce,
    issuedAt: new Date(Math.max(now, Date.parse(details.issuedAfter))).toISOString(),
    expirationTime: details.expiresAt,
    resources: [...details.resources],
  };
}

/** What a signed message must match, for the libraries' `validate…Message(message, expect)`. */
export function givenExpectations<N extends string>(
  details: InteractionDetails,
  networks: readonly N[] | undefined,
  options: { now: number; clockSkewMs: number },
) {
  return {
    domain: details.domain,
    origin: details.uri,
    nonce: details.nonce,
    networks: [...(networks ?? [])],
    resource: details.resources[0],
    time: options.now,
    notIssuedBefore: Date.parse(details.issuedAfter),
    clockSkew: options.clockSkewMs,
  };
}

/**
 * Whether a message's `Expiration Time` keeps within the sign-in's own: none (the interaction's
 * lifetime bounds the message anyway, as Reown AppKit writes it by default), or one at or before
 * `expiresAt`.
 */
export function expiresWithin(expiresAt: string, expirationTime: unknown): boolean {
  if (expirationTime === undefined) return true;
  const time = typeof expirationTime === 'string' ? parseDateTime(expirationTime) : undefined;
  return time !== undefined && time <= Date.parse(expiresAt);
}

/**
 * The first given field `message` does not carry as `given` has it, or undefined. The one field
 * a message may say otherwise is its expiration: none, or one no later than the one given.
 */
export function firstNotAsGiven(
  given: Partial<Record<GivenField, unknown>>,
  message: Partial<Record<GivenField, unknown>>,
): NotAsGiven | undefined {
  for (const field of GIVEN_FIELDS) {
    const expected = given[field];
    const received = message[field];
    if (field === 'expirationTime' && typeof expected === 'string' && expiresWithin(expected, received)) continue;
    if (JSON.stringify(expected) !== JSON.stringify(received)) return { field, expected, received };
  }
  return undefined;
}
