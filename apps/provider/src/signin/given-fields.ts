/**
 * What the Sign In With Solana and Sign in with Bitcoin contracts share (CAIP-122's fields, as
 * `solana/contract.ts` and `bitcoin/contract.ts` build them from one set of interaction details):
 * the fields the details give, the expectations a signed message is checked against, and the
 * check that a message carries every given field unchanged. Browser-safe, as those are.
 */
import type { InteractionDetails } from './details.ts';

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

/** The first given field `message` does not carry as `given` has it, or undefined. */
export function firstNotAsGiven(
  given: Partial<Record<GivenField, unknown>>,
  message: Partial<Record<GivenField, unknown>>,
): NotAsGiven | undefined {
  for (const field of GIVEN_FIELDS) {
    const expected = given[field];
    const received = message[field];
    if (JSON.stringify(expected) !== JSON.stringify(received)) return { field, expected, received };
  }
  return undefined;
}
