/**
 * Every way a request or a configuration can fail, as a stable `code` (callers switch on it,
 * never on message text), with the HTTP status and the RFC 6750 error an answer carries. New
 * codes may be added; existing ones are never renamed.
 */
export const RESOURCE_SERVER_ERRORS = {
  /** createResourceServer was given an option it cannot use (thrown at creation, never per request). */
  INVALID_OPTIONS: { status: 500, error: undefined },
  /** No Authorization header: the answer is the bare challenge (RFC 6750 §3.1 sends no error code). */
  MISSING_TOKEN: { status: 401, error: undefined },
  /** An Authorization header with another scheme than Bearer (Basic, DPoP, …). */
  UNSUPPORTED_SCHEME: { status: 401, error: undefined },
  /** More than one Authorization header, a malformed one, or a token in the URL. */
  INVALID_REQUEST: { status: 400, error: 'invalid_request' },
  /** Not a compact JWS with a JSON claims set, or too long to be one. */
  MALFORMED_TOKEN: { status: 401, error: 'invalid_token' },
  /** Signed with an algorithm outside the allow-list (`none`, HMAC with the public key as secret, …). */
  ALGORITHM_NOT_ALLOWED: { status: 401, error: 'invalid_token' },
  /** The header's `typ` is not `at+jwt` (RFC 9068): an ID token or another JWT, not an access token. */
  WRONG_TOKEN_TYPE: { status: 401, error: 'invalid_token' },
  /** No key of the issuer's key set matches the token's `kid`, even after fetching the set again. */
  UNKNOWN_KEY: { status: 401, error: 'invalid_token' },
  /** The signature was not made by the key it names. */
  INVALID_SIGNATURE: { status: 401, error: 'invalid_token' },
  /** `iss` is not the issuer this resource trusts. */
  WRONG_ISSUER: { status: 401, error: 'invalid_token' },
  /** `aud` does not name this resource: a token for another resource (audience confusion). */
  WRONG_AUDIENCE: { status: 401, error: 'invalid_token' },
  /** `exp` has passed (beyond the clock tolerance). */
  TOKEN_EXPIRED: { status: 401, error: 'invalid_token' },
  /** `nbf` is still ahead (beyond the clock tolerance). */
  TOKEN_NOT_YET_VALID: { status: 401, error: 'invalid_token' },
  /** A claim RFC 9068 requires (`exp`, `iat`, `sub`, `client_id`, `jti`) is missing or of the wrong type. */
  MISSING_CLAIM: { status: 401, error: 'invalid_token' },
  /** The token is bound to a key (`cnf`: DPoP or mTLS) and was presented as a plain bearer token. */
  SENDER_CONSTRAINED_TOKEN: { status: 401, error: 'invalid_token' },
  /** A valid token without a scope this request needs. */
  INSUFFICIENT_SCOPE: { status: 403, error: 'insufficient_scope' },
  /** The issuer's discovery document or key set could not be fetched (network, timeout, status, size). */
  ISSUER_UNAVAILABLE: { status: 503, error: 'temporarily_unavailable' },
  /** The issuer's discovery document or key set is not what it must be (another `issuer`, no `jwks_uri`, not a key set). */
  INVALID_ISSUER_METADATA: { status: 503, error: 'temporarily_unavailable' },
} as const satisfies Record<string, { status: number; error: string | undefined }>;

export type ResourceServerErrorCode = keyof typeof RESOURCE_SERVER_ERRORS;

export const RESOURCE_SERVER_ERROR_CODES = Object.keys(RESOURCE_SERVER_ERRORS) as ResourceServerErrorCode[];

export type ResourceServerErrorOptions = {
  /** For INSUFFICIENT_SCOPE: every scope the request needs (sent in the challenge's `scope`). */
  scopes?: readonly string[];
  cause?: unknown;
};

/** The one error this package throws; `message` is fit for `error_description` (no token content in it). */
export class ResourceServerError extends Error {
  override readonly name = 'ResourceServerError';
  readonly code: ResourceServerErrorCode;
  /** The HTTP status an answer to this failure carries. */
  readonly status: number;
  /** The RFC 6750 `error` code, when the answer carries one. */
  readonly error: string | undefined;
  readonly scopes: readonly string[] | undefined;

  constructor(code: ResourceServerErrorCode, message: string, options: ResourceServerErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = RESOURCE_SERVER_ERRORS[code].status;
    this.error = RESOURCE_SERVER_ERRORS[code].error;
    this.scopes = options.scopes;
  }
}

export function isResourceServerError(error: unknown, code?: ResourceServerErrorCode): error is ResourceServerError {
  return error instanceof ResourceServerError && (code === undefined || error.code === code);
}
