import { SignInError, type SignInErrorOptions, type SignInField } from '@signet/siwe/caip122';

/**
 * Every way a Sign in with Bitcoin message or signature can fail, as a stable string. Callers
 * switch on `type`, never on message text. Types shared with `@signet/siwe` and
 * `@signet/siws` mean the same thing there. New types may be added; existing ones are never
 * renamed.
 */
export const SIWB_ERROR_TYPES = [
  /** The text is not a SIWB message: a line missing, extra, repeated or out of order, a line break where none may be. */
  'UNABLE_TO_PARSE',
  /** The first line asks for another kind of account ("… with your Ethereum account:"). */
  'WRONG_NAMESPACE',
  /** The domain is not an RFC 3986 authority (a SIWB domain carries no scheme). */
  'INVALID_DOMAIN',
  /** The domain is not the one expected (or not in the allow-list). */
  'DOMAIN_MISMATCH',
  /** The address is not a Bitcoin address (checksum, encoding, prefix), or a bech32 address is not in lower case. */
  'INVALID_ADDRESS',
  /** The address is of a type that cannot sign in: P2WSH, a witness version other than 0 and 1, or a P2SH address that is not P2SH-P2WPKH. */
  'UNSUPPORTED_ADDRESS_TYPE',
  /** The address is not the one required. */
  'ADDRESS_MISMATCH',
  /** The statement is empty, has characters SIWB does not allow, begins like a field line, or is missing when required. */
  'INVALID_STATEMENT',
  /** The URI is not an RFC 3986 URI. */
  'INVALID_URI',
  /** The URI is not the expected one (or not on the expected origin). */
  'URI_MISMATCH',
  /** The version is not 1. */
  'INVALID_MESSAGE_VERSION',
  /** The Chain ID is not the CAIP-2 reference of mainnet, testnet3, testnet4 or signet. */
  'INVALID_CHAIN_ID',
  /** The network is not in the allow-list. */
  'CHAIN_NOT_ALLOWED',
  /** The address belongs to another network than the Chain ID names (a test address with mainnet's Chain ID, or the reverse). */
  'NETWORK_MISMATCH',
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
  /** expirationTime has passed. */
  'EXPIRED_MESSAGE',
  /** notBefore has not been reached. */
  'NOT_YET_VALID_MESSAGE',
  /** issuedAt is later than now (beyond the allowed clock skew). */
  'ISSUED_IN_FUTURE',
  /** issuedAt is older than allowed (max age, or before the sign-in began). */
  'MESSAGE_TOO_OLD',
  /** The signature is well formed but was not made by the address's key for this message. */
  'INVALID_SIGNATURE',
  /** The signature is not padded base64 of one of the accepted forms: too long, trailing bytes, a witness with missing or extra items, a `to_sign` that is not the single-input template. */
  'MALFORMED_SIGNATURE',
  /** An ECDSA signature that is not strict DER (BIP-66) or has a high S (BIP-146): another encoding of a valid signature. */
  'NON_CANONICAL_SIGNATURE',
  /** A signature hash type other than SIGHASH_ALL (or Taproot's default). */
  'UNSUPPORTED_SIGHASH',
  /** The signature is of a kind the address's type does not sign with (a Taproot signature for a `bc1q` address, BIP-137 for a segwit address, a BIP-137 header naming another address type). */
  'SIGNATURE_TYPE_MISMATCH',
] as const;

export type SiwbErrorType = (typeof SIWB_ERROR_TYPES)[number];

/** The message fields an error can point at: those of Sign-In with Ethereum but its scheme (SIWB has none). */
export type SiwbField = Exclude<SignInField, 'scheme'>;

export type SiwbErrorOptions = SignInErrorOptions<SiwbField>;

/** A Sign in with Bitcoin failure: `type`, `field`, `line` (parse errors), `expected`, `received`, `cause`. */
export class SiwbError extends SignInError<SiwbErrorType, SiwbField> {
  override readonly name = 'SiwbError';
}

export function isSiwbError(error: unknown, type?: SiwbErrorType): error is SiwbError {
  return error instanceof SiwbError && (type === undefined || error.type === type);
}

/**
 * The HTTP status a server answers for a SIWB failure: 401 for a signature that was not made
 * by the address's key, 400 for every other problem with the message or the signature's form
 * (verification is offline: there is no 503).
 */
export function siwbErrorStatus(type: SiwbErrorType): 400 | 401 {
  return type === 'INVALID_SIGNATURE' ? 401 : 400;
}
