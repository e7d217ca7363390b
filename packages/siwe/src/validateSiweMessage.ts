import { type BindingExpectations, checkDomain, checkFirstResource, checkNonce, checkUri } from './bindingChecks.ts';
import { checkTimeWindow, type TimeWindowExpectations } from './checkTimeWindow.ts';
import { SiweError } from './errors.ts';
import type { SiweMessage } from './types.ts';

export { DEFAULT_CLOCK_SKEW_MS } from './checkTimeWindow.ts';

/**
 * What a verifier expects of a message. Every field is optional; absent means "not checked".
 * `domain`, `uri`, `origin`, `nonce` and `resource` (`resources[0]`) bind the message to the
 * request; `time`, `maxAge`, `notIssuedBefore` and `clockSkew` bound its times.
 */
export type SiweExpectations = BindingExpectations &
  TimeWindowExpectations & {
    /** Expected scheme before the domain, when the message carries one. */
    scheme?: string;
    /** Chain ids a message may name. */
    chainIds?: readonly number[];
    /** The one chain id required. */
    chainId?: number;
    /** The address required (case-insensitive). */
    address?: string;
    /** A statement must be present and non-empty. */
    requireStatement?: boolean;
  };

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
export function validateSiweTimes(message: SiweMessage, expect: TimeWindowExpectations = {}): SiweMessage {
  return checkTimeWindow(message, expect, SiweError);
}

/** Domain, scheme, URI, nonce and chain allow-list. */
function checkBinding(message: SiweMessage, expect: SiweExpectations) {
  checkDomain(message, expect, SiweError);
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
  checkUri(message, expect, SiweError);
  checkNonce(message, expect, SiweError);
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
  checkFirstResource(message, expect, SiweError);
}
