import { SignInError, type SignInErrorOptions } from './signInError.ts';

/**
 * Every way a sign-in message can fail, as a stable string. Callers switch on `type`, never
 * on message text. New types may be added; existing ones are never renamed.
 */
export const SIWE_ERROR_TYPES = [
  /** The text is not an EIP-4361 message (missing, extra or out-of-order lines, a malformed scheme). */
  'UNABLE_TO_PARSE',
  /** The chain id is not a positive decimal integer (no leading zeros, at most 2^53 − 1). */
  'INVALID_CHAIN_ID',
  /** The domain line is not an RFC 3986 authority without userinfo (host[:port]). */
  'INVALID_DOMAIN',
  /** The domain is not the one expected (or not in the allow-list). */
  'DOMAIN_MISMATCH',
  /** The optional scheme before the domain is not the expected one. */
  'SCHEME_MISMATCH',
  /** The URI is not an RFC 3986 URI. */
  'INVALID_URI',
  /** The URI is not the expected one (or does not have the expected origin). */
  'URI_MISMATCH',
  /** The nonce is not the expected one. */
  'NONCE_MISMATCH',
  /** The nonce is not 8 or more ASCII letters and digits. */
  'INVALID_NONCE',
  /** The address is not 0x + 40 hex digits with a valid EIP-55 checksum. */
  'INVALID_ADDRESS',
  /** The address is not the one required. */
  'ADDRESS_MISMATCH',
  /** The version is not 1. */
  'INVALID_MESSAGE_VERSION',
  /** The chain id is not in the allow-list, or not the one required. */
  'CHAIN_NOT_ALLOWED',
  /** A timestamp is not an RFC 3339 date-time. */
  'INVALID_TIME_FORMAT',
  /** The statement contains characters EIP-4361 does not allow, or is missing when required. */
  'INVALID_STATEMENT',
  /** The request id is not a sequence of URI path characters. */
  'INVALID_REQUEST_ID',
  /** A resource is not an RFC 3986 URI. */
  'INVALID_RESOURCE',
  /** The first resource is not the one expected (for Signet: the client's redirect_uri). */
  'RESOURCE_MISMATCH',
  /** expirationTime has passed. */
  'EXPIRED_MESSAGE',
  /** notBefore has not been reached. */
  'NOT_YET_VALID_MESSAGE',
  /** issuedAt is later than now (beyond the allowed clock skew). */
  'ISSUED_IN_FUTURE',
  /** issuedAt is older than allowed (max age, or before the sign-in began). */
  'MESSAGE_TOO_OLD',
  /** The signature is malformed or was not made by the message's address. */
  'INVALID_SIGNATURE',
  /** The chain's JSON-RPC node could not be reached, so a contract wallet could not be checked. */
  'RPC_UNAVAILABLE',
] as const;

export type SiweErrorType = (typeof SIWE_ERROR_TYPES)[number];

/** The message fields an error can point at. */
export type SiweField =
  | 'message'
  | 'scheme'
  | 'domain'
  | 'address'
  | 'statement'
  | 'uri'
  | 'version'
  | 'chainId'
  | 'nonce'
  | 'issuedAt'
  | 'expirationTime'
  | 'notBefore'
  | 'requestId'
  | 'resources'
  | 'signature';

export type SiweErrorOptions = SignInErrorOptions<SiweField>;

export class SiweError extends SignInError<SiweErrorType, SiweField> {
  override readonly name = 'SiweError';
}

export function isSiweError(error: unknown, type?: SiweErrorType): error is SiweError {
  return error instanceof SiweError && (type === undefined || error.type === type);
}

/**
 * The HTTP status a server answers for a SIWE failure: 401 for a signature that was not
 * made by the address, 503 when the chain could not be asked (try again later), 400 for
 * every other problem with the message. One map for the provider and the example backends.
 */
export function siweErrorStatus(type: SiweErrorType): 400 | 401 | 503 {
  if (type === 'INVALID_SIGNATURE') return 401;
  if (type === 'RPC_UNAVAILABLE') return 503;
  return 400;
}
