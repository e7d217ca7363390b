import { SiweError } from './errors.ts';
import { siweTime } from './siweTime.ts';
import type { SiweMessage } from './types.ts';

/** What a verifier expects of a message. Every field is optional; absent means "not checked". */
export type SiweExpectations = {
  /** Exact domain (host[:port], case-insensitive), or an allow-list of them. */
  domain?: string | readonly string[];
  /** Expected scheme before the domain, when the message carries one. */
  scheme?: string;
  /** Exact URI the message must carry. */
  uri?: string;
  /** Origin (`scheme://host[:port]`) the message's URI must have. */
  origin?: string;
  nonce?: string;
  /** Chain ids a message may name. */
  chainIds?: readonly number[];
  /** The one chain id required. */
  chainId?: number;
  /** The address required (case-insensitive). */
  address?: string;
  /** What `resources[0]` must be (Signet binds it to the client's redirect_uri). */
  resource?: string;
  /** A statement must be present and non-empty. */
  requireStatement?: boolean;
  /** "Now" (epoch ms or Date); defaults to the current time. Inject it in tests. */
  time?: number | Date;
  /** issuedAt may be at most this many ms older than `time`. */
  maxAge?: number;
  /** issuedAt must not be before this moment (e.g. when the sign-in started). */
  notIssuedBefore?: number | Date;
  /** Tolerance for clocks that disagree, in ms (default 60 s); applied to issuedAt and notBefore. */
  clockSkew?: number;
};

export const DEFAULT_CLOCK_SKEW_MS = 60_000;

const ms = (value: number | Date) => (value instanceof Date ? value.getTime() : value);

function sameOrigin(uri: string, origin: string): boolean {
  try {
    return new URL(uri).origin === new URL(origin).origin;
  } catch {
    return false;
  }
}

const normalizeDomain = (domain: string) => domain.toLowerCase();

/**
 * Checks a parsed message against what the verifier expects, in the order of Signet's
 * design: domain, scheme, URI, nonce, chain allow-list, time (issued at, age, expiry, not
 * before), statement, address, required chain, resources. Returns the message when all pass; otherwise throws the
 * first failure as a `SiweError`.
 */
export function validateSiweMessage(message: SiweMessage, expect: SiweExpectations = {}): SiweMessage {
  checkBinding(message, expect);
  validateSiweTimes(message, expect);
  checkAccount(message, expect);
  return message;
}

/**
 * Every check of validateSiweMessage except the times: for verifiers that must run the time
 * checks at another point of their order (e.g. after the signature, as the example backends do).
 */
export function validateSiweFields(message: SiweMessage, expect: SiweExpectations = {}): SiweMessage {
  checkBinding(message, expect);
  checkAccount(message, expect);
  return message;
}

/** Only the time checks: issuedAt not ahead (skew) nor too old, expirationTime ahead, notBefore passed. */
export function validateSiweTimes(
  message: SiweMessage,
  expect: Pick<SiweExpectations, 'time' | 'maxAge' | 'notIssuedBefore' | 'clockSkew'> = {},
): SiweMessage {
  const now = ms(expect.time ?? Date.now());
  const skew = expect.clockSkew ?? DEFAULT_CLOCK_SKEW_MS;
  const issuedAt = siweTime(message.issuedAt);
  if (issuedAt > now + skew) {
    throw new SiweError('ISSUED_IN_FUTURE', `issued at ${message.issuedAt}, which is in the future`, {
      field: 'issuedAt',
      received: message.issuedAt,
    });
  }
  if (expect.maxAge !== undefined && issuedAt < now - expect.maxAge) {
    throw new SiweError('MESSAGE_TOO_OLD', `issued at ${message.issuedAt}, more than ${Math.round(expect.maxAge / 1000)} s ago`, {
      field: 'issuedAt',
      received: message.issuedAt,
    });
  }
  if (expect.notIssuedBefore !== undefined && issuedAt < ms(expect.notIssuedBefore) - skew) {
    throw new SiweError('MESSAGE_TOO_OLD', `issued at ${message.issuedAt}, before this sign-in began`, {
      field: 'issuedAt',
      received: message.issuedAt,
    });
  }
  if (message.expirationTime !== undefined && siweTime(message.expirationTime) <= now) {
    throw new SiweError('EXPIRED_MESSAGE', `expired at ${message.expirationTime}`, {
      field: 'expirationTime',
      received: message.expirationTime,
    });
  }
  if (message.notBefore !== undefined && siweTime(message.notBefore) > now + skew) {
    throw new SiweError('NOT_YET_VALID_MESSAGE', `not valid before ${message.notBefore}`, {
      field: 'notBefore',
      received: message.notBefore,
    });
  }

  return message;
}

/** Domain, scheme, URI, nonce and chain allow-list. */
function checkBinding(message: SiweMessage, expect: SiweExpectations) {
  if (expect.domain !== undefined) {
    const allowed = (typeof expect.domain === 'string' ? [expect.domain] : expect.domain).map(normalizeDomain);
    if (!allowed.includes(normalizeDomain(message.domain))) {
      throw new SiweError(
        'DOMAIN_MISMATCH',
        allowed.length === 1
          ? `domain ${message.domain} does not match ${allowed[0]}`
          : `domain ${message.domain} is not one of the allowed domains`,
        { field: 'domain', expected: expect.domain, received: message.domain },
      );
    }
  }
  if (
    expect.scheme !== undefined &&
    message.scheme !== undefined &&
    message.scheme.toLowerCase() !== expect.scheme.toLowerCase()
  ) {
    throw new SiweError('SCHEME_MISMATCH', `scheme ${message.scheme} does not match ${expect.scheme}`, {
      field: 'scheme',
      expected: expect.scheme,
      received: message.scheme,
    });
  }
  if (expect.uri !== undefined && message.uri !== expect.uri) {
    throw new SiweError('URI_MISMATCH', `URI ${message.uri} does not match ${expect.uri}`, {
      field: 'uri',
      expected: expect.uri,
      received: message.uri,
    });
  }
  if (expect.origin !== undefined && !sameOrigin(message.uri, expect.origin)) {
    throw new SiweError('URI_MISMATCH', `URI ${message.uri} is not on ${expect.origin}`, {
      field: 'uri',
      expected: expect.origin,
      received: message.uri,
    });
  }
  if (expect.nonce !== undefined && message.nonce !== expect.nonce) {
    throw new SiweError('NONCE_MISMATCH', 'nonce does not match the one issued for this sign-in', {
      field: 'nonce',
      received: message.nonce,
    });
  }
  if (expect.chainIds !== undefined && !expect.chainIds.includes(message.chainId)) {
    throw new SiweError('CHAIN_NOT_ALLOWED', `chain ${message.chainId} is not allowed (allowed: ${expect.chainIds.join(', ')})`, {
      field: 'chainId',
      expected: expect.chainIds,
      received: message.chainId,
    });
  }
}

/** Statement, address, required chain and first resource. */
function checkAccount(message: SiweMessage, expect: SiweExpectations) {
  if (expect.requireStatement && !message.statement) {
    throw new SiweError('INVALID_STATEMENT', 'a statement is required', { field: 'statement' });
  }
  if (expect.address !== undefined && message.address.toLowerCase() !== expect.address.toLowerCase()) {
    throw new SiweError('ADDRESS_MISMATCH', `address ${message.address} is not the required ${expect.address}`, {
      field: 'address',
      expected: expect.address,
      received: message.address,
    });
  }
  if (expect.chainId !== undefined && message.chainId !== expect.chainId) {
    throw new SiweError('CHAIN_NOT_ALLOWED', `chain ${message.chainId} is not the required chain ${expect.chainId}`, {
      field: 'chainId',
      expected: expect.chainId,
      received: message.chainId,
    });
  }
  if (expect.resource !== undefined && message.resources?.[0] !== expect.resource) {
    throw new SiweError(
      'RESOURCE_MISMATCH',
      message.resources?.[0] === undefined
        ? `the first resource must be ${expect.resource}, but the message lists none`
        : `the first resource ${message.resources[0]} does not match ${expect.resource}`,
      { field: 'resources', expected: expect.resource, received: message.resources?.[0] },
    );
  }
}
