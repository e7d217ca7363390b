/**
 * The checks that bind a message to the request it answers, shared by every Sign-In with X
 * profile: domain (allow-list), URI (exact or same origin), nonce, first resource. Each takes
 * the profile's error class; a profile whose fields are optional checks their presence first.
 */
import type { SignInErrorClass } from './signInError.ts';

export type BindingExpectations = {
  /** Exact domain (host[:port], case-insensitive), or an allow-list of them. */
  domain?: string | readonly string[];
  /** Exact URI the message must carry. */
  uri?: string;
  /** Origin (`scheme://host[:port]`) the message's URI must have. */
  origin?: string;
  nonce?: string;
  /** What `resources[0]` must be (Signet binds it to the client's redirect_uri). */
  resource?: string;
};

const normalizeDomain = (domain: string) => domain.toLowerCase();

function sameOrigin(uri: string, origin: string): boolean {
  try {
    return new URL(uri).origin === new URL(origin).origin;
  } catch {
    return false;
  }
}

export function checkDomain(
  message: { domain: string },
  expect: BindingExpectations,
  Failure: SignInErrorClass<'DOMAIN_MISMATCH', 'domain'>,
) {
  if (expect.domain === undefined) return;
  const allowed = (typeof expect.domain === 'string' ? [expect.domain] : expect.domain).map(normalizeDomain);
  if (!allowed.includes(normalizeDomain(message.domain))) {
    throw new Failure(
      'DOMAIN_MISMATCH',
      allowed.length === 1
        ? `domain ${message.domain} does not match ${allowed[0]}`
        : `domain ${message.domain} is not one of the allowed domains`,
      { field: 'domain', expected: expect.domain, received: message.domain },
    );
  }
}

export function checkUri(
  message: { uri: string },
  expect: BindingExpectations,
  Failure: SignInErrorClass<'URI_MISMATCH', 'uri'>,
) {
  if (expect.uri !== undefined && message.uri !== expect.uri) {
    throw new Failure('URI_MISMATCH', `URI ${message.uri} does not match ${expect.uri}`, {
      field: 'uri',
      expected: expect.uri,
      received: message.uri,
    });
  }
  if (expect.origin !== undefined && !sameOrigin(message.uri, expect.origin)) {
    throw new Failure('URI_MISMATCH', `URI ${message.uri} is not on ${expect.origin}`, {
      field: 'uri',
      expected: expect.origin,
      received: message.uri,
    });
  }
}

export function checkNonce(
  message: { nonce: string },
  expect: BindingExpectations,
  Failure: SignInErrorClass<'NONCE_MISMATCH', 'nonce'>,
) {
  if (expect.nonce !== undefined && message.nonce !== expect.nonce) {
    throw new Failure('NONCE_MISMATCH', 'nonce does not match the one issued for this sign-in', {
      field: 'nonce',
      received: message.nonce,
    });
  }
}

export function checkFirstResource(
  message: { resources?: readonly string[] },
  expect: BindingExpectations,
  Failure: SignInErrorClass<'RESOURCE_MISMATCH', 'resources'>,
) {
  const first = message.resources?.[0];
  if (expect.resource !== undefined && first !== expect.resource) {
    throw new Failure(
      'RESOURCE_MISMATCH',
      first === undefined
        ? `the first resource must be ${expect.resource}, but the message lists none`
        : `the first resource ${first} does not match ${expect.resource}`,
      { field: 'resources', expected: expect.resource, received: first },
    );
  }
}
