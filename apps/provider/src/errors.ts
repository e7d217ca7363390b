/**
 * Every error the provider's own endpoints answer: one table of codes and statuses, one error
 * class, one conversion from whatever was thrown, and one function that writes the response.
 * SIWE, SIWS and SIWB failures keep their library's stable types as their codes.
 */
import { isSiwbError, SIWB_ERROR_TYPES, type SiwbErrorType, siwbErrorStatus } from '@signet/siwb/message';
import { isSiweError, SIWE_ERROR_TYPES, type SiweErrorType, siweErrorStatus } from '@signet/siwe/offline';
import { isSiwsError, type SiwsErrorType, siwsErrorStatus } from '@signet/siws/message';
import type { Context } from 'koa';
import { StorageUnavailableError } from './storage/store.ts';

export const ERROR_STATUS = {
  /** The body is not JSON / form data, or lacks `message` or `signature`. */
  INVALID_REQUEST: 400,
  /** The body is larger than INTERACTION_BODY_LIMIT, or the message longer than 10,000 characters. */
  PAYLOAD_TOO_LARGE: 413,
  /** The body is neither application/json nor application/x-www-form-urlencoded. */
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** No sign-in with this uid exists. */
  INTERACTION_NOT_FOUND: 404,
  /** The sign-in existed but its 10 minutes are over. */
  INTERACTION_EXPIRED: 410,
  /** The interaction cookie set by the authorization endpoint is missing or belongs to another sign-in. */
  INTERACTION_COOKIE_MISSING: 400,
  /** A signature was already accepted for this sign-in. */
  INTERACTION_COMPLETED: 409,
  /** The provider session this sign-in belongs to ended or changed. */
  SESSION_CHANGED: 400,
  /** The account does not hold what the client's access conditions require (a Solana account never does). */
  ACCESS_CONDITION_NOT_MET: 403,
  /** The message is for a kind of account (Ethereum, Solana) this provider does not offer or this client does not allow. */
  NAMESPACE_NOT_ALLOWED: 400,
  /** A Solana wallet signed another message than the one this sign-in gave it (a field changed, added or left out), a Bitcoin message is not the one the details give, or any message expires after the sign-in does. */
  MESSAGE_MISMATCH: 400,
  // Sign in with Bitcoin's own refusals (the SIWB library's types, listed here so docs/wallets.md lists them too):
  /** The Bitcoin address is of a type that cannot sign in (P2WSH, another witness version, a P2SH that is not P2SH-P2WPKH). */
  UNSUPPORTED_ADDRESS_TYPE: 400,
  /** The Bitcoin address belongs to another network than the message's Chain ID (a test address on mainnet, or the reverse). */
  NETWORK_MISMATCH: 400,
  /** The Bitcoin signature is not an accepted form (not padded base64, over 400 characters, a witness with missing or extra items, a full signature that is not the single-input template). */
  MALFORMED_SIGNATURE: 400,
  /** An ECDSA signature that is not strict DER or has a high S (another encoding of a valid signature). */
  NON_CANONICAL_SIGNATURE: 400,
  /** A Bitcoin signature hash type other than SIGHASH_ALL or Taproot's default. */
  UNSUPPORTED_SIGHASH: 400,
  /** A signature of a kind the Bitcoin address does not sign with (a Taproot signature for a bc1q address, BIP-137 for a segwit one, a lying BIP-137 header). */
  SIGNATURE_TYPE_MISMATCH: 400,
  /** Too many attempts from this client address. */
  RATE_LIMITED: 429,
  /** `/account`: no sign-in in this browser (a provider session, or a signature at /account/reauth). */
  SIGN_IN_REQUIRED: 401,
  /** `/account`: the change needs a signature by a wallet of the account (the primary, for some) made in the last 10 minutes. */
  REAUTHENTICATION_REQUIRED: 401,
  /** `/account`: a change that does not come from the provider's own origin. */
  CROSS_ORIGIN_REQUEST: 403,
  /** `/account/wallets`: the wallet is already linked to this account. */
  WALLET_ALREADY_LINKED: 409,
  /** `/account/wallets`: the account holds the most wallets it may. */
  TOO_MANY_WALLETS: 409,
  /** `/account/wallets`: the wallet belongs to another account that holds other wallets too. */
  WALLET_LINKED_ELSEWHERE: 409,
  /** `/account/wallets/<id>`, `/account/primary`: no such wallet in this account. */
  WALLET_NOT_FOUND: 404,
  /** `/account/wallets/<id>`: the account's only wallet cannot be removed (delete the account). */
  LAST_WALLET: 409,
  /** A client known by its metadata document (an https URL as client_id) whose document can no longer be fetched, or is no longer valid. */
  CLIENT_DOCUMENT_UNAVAILABLE: 502,
  /** Passkeys: off on this provider (ACCOUNT_MAX_PASSKEYS=0, or an issuer whose host is an IP address: WebAuthn needs a domain name). */
  PASSKEYS_UNAVAILABLE: 404,
  /** `/interaction/<uid>/passkey`: this client takes no passkey sign-in (it does not know people by their account, or it is gated or limited to kinds of wallet and did not opt in with `passkey_sign_in`). */
  PASSKEY_NOT_ALLOWED: 403,
  /** `/interaction/<uid>/passkey`: no passkey with this credential id belongs to a Signet account here (the page tells the browser, which may forget it). */
  PASSKEY_NOT_FOUND: 401,
  /** Passkeys: the answer's challenge was not issued for this sign-in (another interaction, another browser or account), has expired, or was already used. */
  PASSKEY_CHALLENGE_MISMATCH: 400,
  /** Passkeys: the authenticator's answer does not verify (signature, origin, relying party id, user presence, format). */
  PASSKEY_VERIFICATION_FAILED: 400,
  /** `/interaction/<uid>/passkey`: the signature counter did not go up since the last use: the passkey may have been copied. Refused; it stays on the account until its owner removes it. */
  PASSKEY_COUNTER_REGRESSED: 401,
  /** `/account/passkeys`: the account holds the most passkeys it may (ACCOUNT_MAX_PASSKEYS). */
  TOO_MANY_PASSKEYS: 409,
  /** `/account/passkeys`: this credential is already registered (to this or another account). */
  PASSKEY_ALREADY_REGISTERED: 409,
  /** `/account/passkeys/<id>`: no such passkey in this account. */
  NO_SUCH_PASSKEY: 404,
  /** Storage (SQLite file or Redis) could not be reached. */
  STORAGE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS | SiweErrorType | SiwsErrorType | SiwbErrorType;

export function statusOf(code: ErrorCode): number {
  if (code in ERROR_STATUS) return ERROR_STATUS[code as keyof typeof ERROR_STATUS];
  if ((SIWE_ERROR_TYPES as readonly string[]).includes(code)) return siweErrorStatus(code as SiweErrorType);
  if ((SIWB_ERROR_TYPES as readonly string[]).includes(code)) return siwbErrorStatus(code as SiwbErrorType);
  return siwsErrorStatus(code as SiwsErrorType);
}

/** For an expired sign-in: where the page sends the person back. */
export type ExpiredSignIn = { client?: { client_id: string; client_name?: string; client_uri?: string }; redirectUri?: string };

export class HttpError extends Error {
  override readonly name: string = 'HttpError';
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    options: { cause?: unknown; retryAfter?: number; expired?: ExpiredSignIn } = {},
  ) {
    super(message, { cause: options.cause });
    this.status = statusOf(code);
    this.retryAfter = options.retryAfter;
    this.expired = options.expired;
  }
  readonly retryAfter: number | undefined;
  readonly expired: ExpiredSignIn | undefined;

  /** The OAuth 2.0 `error` value, where the endpoint is an OAuth one (token, registration, authorization). */
  get oauthError(): string {
    if (this.status === 429) return 'rate_limited';
    if (this.status === 503) return 'temporarily_unavailable';
    if (this.status === 403) return 'access_denied';
    return 'invalid_request';
  }
}

/** What was thrown, as an HttpError, or undefined for an error that is a bug (left to become a 500). */
export function toHttpError(error: unknown): HttpError | undefined {
  if (error instanceof HttpError) return error;
  if (isSiweError(error) || isSiwsError(error) || isSiwbError(error))
    return new HttpError(error.type, error.message, { cause: error });
  if (
    error instanceof StorageUnavailableError ||
    (error as { cause?: unknown } | undefined)?.cause instanceof StorageUnavailableError
  ) {
    return new HttpError('STORAGE_UNAVAILABLE', 'storage is unavailable; try again shortly', { cause: error, retryAfter: 5 });
  }
  return undefined;
}

/**
 * Writes an error response: `{ error, error_description }` with the Signet code (`wire:
 * 'code'`, the interaction contract) or the OAuth value (`wire: 'oauth'`), or, when `page` is
 * given, the HTML it renders.
 */
export function sendError(ctx: Context, error: HttpError, options: { wire: 'code' | 'oauth'; page?: () => string }) {
  ctx.status = error.status;
  ctx.set('cache-control', 'no-store');
  if (error.retryAfter !== undefined) ctx.set('Retry-After', String(error.retryAfter));
  if (options.page) {
    ctx.type = 'html';
    ctx.body = options.page();
    return;
  }
  ctx.body = { error: options.wire === 'code' ? error.code : error.oauthError, error_description: error.message };
}
