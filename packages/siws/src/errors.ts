import { SignInError, type SignInErrorOptions, type SignInField } from '@signet/siwe/caip122';

/**
 * Every way a Sign In With Solana message can fail, as a stable string. Callers switch on
 * `type`, never on message text. Types shared with `@signet/siwe` mean the same thing there.
 * New types may be added; existing ones are never renamed.
 */
export const SIWS_ERROR_TYPES = [
  /** The text is not a SIWS message: a line missing, extra or out of order, a line break where none may be. */
  'UNABLE_TO_PARSE',
  /** The first line asks for another kind of account ("… with your Ethereum account:"). */
  'WRONG_NAMESPACE',
  /** The domain is not an RFC 3986 authority (SIWS domains carry no scheme). */
  'INVALID_DOMAIN',
  /** The domain is not the one expected (or not in the allow-list). */
  'DOMAIN_MISMATCH',
  /** The address is not base58 or does not decode to exactly 32 bytes. */
  'INVALID_ADDRESS',
  /** The address is not the one required. */
  'ADDRESS_MISMATCH',
  /** The statement is empty, has characters SIWS does not allow, or begins like a field line. */
  'INVALID_STATEMENT',
  /** The URI is not an RFC 3986 URI. */
  'INVALID_URI',
  /** The URI is not the expected one (or not on the expected origin). */
  'URI_MISMATCH',
  /** The version is not 1. */
  'INVALID_MESSAGE_VERSION',
  /** The Chain ID is not one SIWS defines (mainnet, testnet, devnet, localnet, solana:mainnet, solana:testnet, solana:devnet). */
  'INVALID_CHAIN_ID',
  /** The network is not in the allow-list. */
  'CHAIN_NOT_ALLOWED',
  /** The nonce is not 8 or more ASCII letters and digits. */
  'INVALID_NONCE',
  /** The nonce is not the one issued. */
  'NONCE_MISMATCH',
  /** A timestamp is not an RFC 3339 date-time. */
  'INVALID_TIME_FORMAT',
  /** The request id is empty or not made of URI path characters. */
  'INVALID_REQUEST_ID',
  /** A resource is not an RFC 3986 URI. */
  'INVALID_RESOURCE',
  /** The first resource is not the one expected (for Signet: the client's redirect_uri). */
  'RESOURCE_MISMATCH',
  /** A field the expectations check is absent (every SIWS field but domain and address is optional). */
  'MISSING_FIELD',
  /** expirationTime has passed. */
  'EXPIRED_MESSAGE',
  /** notBefore has not been reached. */
  'NOT_YET_VALID_MESSAGE',
  /** issuedAt is later than now (beyond the allowed clock skew). */
  'ISSUED_IN_FUTURE',
  /** issuedAt is older than allowed (max age, or before the sign-in began). */
  'MESSAGE_TOO_OLD',
  /** The signature is not 64 bytes of base58 / base64, or was not made by the address's key. */
  'INVALID_SIGNATURE',
] as const;

export type SiwsErrorType = (typeof SIWS_ERROR_TYPES)[number];

/** The message fields an error can point at: those of Sign-In with Ethereum but its scheme (SIWS has none). */
export type SiwsField = Exclude<SignInField, 'scheme'>;

export type SiwsErrorOptions = SignInErrorOptions<SiwsField>;

/** A Sign In With Solana failure: `type`, `field`, `line` (parse errors), `expected`, `received`, `cause`. */
export class SiwsError extends SignInError<SiwsErrorType, SiwsField> {
  override readonly name = 'SiwsError';
}

export function isSiwsError(error: unknown, type?: SiwsErrorType): error is SiwsError {
  return error instanceof SiwsError && (type === undefined || error.type === type);
}

/**
 * The HTTP status a server answers for a SIWS failure: 401 for a signature that was not made
 * by the address's key, 400 for every other problem with the message (nothing is asked of a
 * network, so there is no 503).
 */
export function siwsErrorStatus(type: SiwsErrorType): 400 | 401 {
  return type === 'INVALID_SIGNATURE' ? 401 : 400;
}
