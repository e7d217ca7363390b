/**
 * Every error the interaction endpoints answer, with its HTTP status, in one table (so the
 * two never drift apart). SIWE failures keep the library's stable types as their codes.
 */
import { type SiweErrorType, siweErrorStatus } from '@signet/siwe';

export const INTERACTION_ERRORS = {
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
  /** The account does not hold what the client's access conditions require. */
  ACCESS_CONDITION_NOT_MET: 403,
  /** Too many attempts from this client address. */
  RATE_LIMITED: 429,
  /** Storage (SQLite file or Redis) could not be reached. */
  STORAGE_UNAVAILABLE: 503,
} as const;

export type InteractionErrorCode = keyof typeof INTERACTION_ERRORS | SiweErrorType;

export function statusOf(code: InteractionErrorCode): number {
  if (code in INTERACTION_ERRORS) return INTERACTION_ERRORS[code as keyof typeof INTERACTION_ERRORS];
  return siweErrorStatus(code as SiweErrorType);
}

export class InteractionError extends Error {
  override readonly name = 'InteractionError';
  readonly status: number;
  constructor(
    readonly code: InteractionErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.status = statusOf(code);
  }
}
