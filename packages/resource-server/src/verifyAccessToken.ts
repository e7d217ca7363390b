/**
 * Checks one access token, as RFC 9068 §4 and the MCP authorization chapter ask of a resource:
 * an allowed asymmetric algorithm, the issuer's key, `typ: at+jwt`, `iss` = the issuer, `aud`
 * naming this resource, `exp` / `nbf` within the clock tolerance, the claims RFC 9068 requires, no
 * key binding it cannot check (`cnf`), then the scopes the request needs. Every failure is a
 * ResourceServerError whose message names what failed and never echoes the token.
 */
import { type JWTPayload, jwtVerify } from 'jose';
import { ResourceServerError, type ResourceServerErrorCode } from './errors.ts';
import type { IssuerKeys } from './issuerKeys.ts';
import type { ResolvedOptions } from './options.ts';
import type { AccessToken, AccessTokenClaims } from './types.ts';
import type { VerifiedTokens } from './verifiedTokens.ts';

export type VerifyContext = { options: ResolvedOptions; keys: IssuerKeys; verified: VerifiedTokens };

/** RFC 9068 §2.2: what every JWT access token carries (iss and aud are checked by value). */
const REQUIRED_CLAIMS = ['exp', 'iat', 'sub', 'client_id', 'jti'] as const;

const CLAIM_CODES: Record<string, ResourceServerErrorCode> = {
  iss: 'WRONG_ISSUER',
  aud: 'WRONG_AUDIENCE',
  nbf: 'TOKEN_NOT_YET_VALID',
  exp: 'TOKEN_EXPIRED',
  typ: 'WRONG_TOKEN_TYPE',
};

const JOSE_CODES: Record<string, [ResourceServerErrorCode, string]> = {
  ERR_JOSE_ALG_NOT_ALLOWED: ['ALGORITHM_NOT_ALLOWED', 'the token is signed with an algorithm this resource does not accept'],
  ERR_JOSE_NOT_SUPPORTED: ['ALGORITHM_NOT_ALLOWED', 'the token is signed with an algorithm this resource does not accept'],
  ERR_JWS_INVALID: ['MALFORMED_TOKEN', 'the access token is not a signed JWT'],
  ERR_JWT_INVALID: ['MALFORMED_TOKEN', 'the access token is not a signed JWT with a JSON claims set'],
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED: ['INVALID_SIGNATURE', 'the access token signature is invalid'],
  ERR_JWKS_NO_MATCHING_KEY: ['UNKNOWN_KEY', "the token is signed with a key the issuer's key set does not hold"],
  ERR_JWKS_MULTIPLE_MATCHING_KEYS: ['UNKNOWN_KEY', 'the token names no key (kid) and the issuer has several'],
  ERR_JWT_EXPIRED: ['TOKEN_EXPIRED', 'the access token has expired'],
};

const CLAIM_WORDS: Partial<Record<ResourceServerErrorCode, string>> = {
  WRONG_ISSUER: 'the access token was not issued by the issuer this resource trusts',
  WRONG_AUDIENCE: 'the access token is for another resource (its aud does not name this one)',
  TOKEN_NOT_YET_VALID: 'the access token is not valid yet (nbf)',
  TOKEN_EXPIRED: 'the access token has expired',
  WRONG_TOKEN_TYPE: 'not an access token: its typ is not at+jwt (RFC 9068)',
};

/** jose's failure as this package's: a stable code and words; our own errors pass through. */
function translate(error: unknown): ResourceServerError {
  if (error instanceof ResourceServerError) return error;
  const { code, claim, reason } = (error ?? {}) as { code?: string; claim?: string; reason?: string };
  if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED' || code === 'ERR_JWT_EXPIRED') {
    const mapped = claim === undefined ? undefined : CLAIM_CODES[claim];
    if (reason === 'missing' || !mapped) {
      return new ResourceServerError('MISSING_CLAIM', `the access token lacks a valid "${claim}" claim (RFC 9068)`, {
        cause: error,
      });
    }
    return new ResourceServerError(mapped, CLAIM_WORDS[mapped] as string, { cause: error });
  }
  const [mapped, words] = JOSE_CODES[code ?? ''] ?? ['MALFORMED_TOKEN', 'the access token could not be read'];
  return new ResourceServerError(mapped, words, { cause: error });
}

function checkClaims(payload: JWTPayload): AccessTokenClaims {
  for (const claim of ['sub', 'client_id', 'jti'] as const) {
    if (typeof payload[claim] !== 'string' || payload[claim] === '') {
      throw new ResourceServerError('MISSING_CLAIM', `the access token lacks a valid "${claim}" claim (RFC 9068)`);
    }
  }
  if (payload.scope !== undefined && typeof payload.scope !== 'string') {
    throw new ResourceServerError('MISSING_CLAIM', 'the access token\'s "scope" claim is not a string');
  }
  if (payload.cnf !== undefined) {
    throw new ResourceServerError(
      'SENDER_CONSTRAINED_TOKEN',
      'the access token is bound to a key (DPoP or mTLS) and this resource accepts bearer tokens only',
    );
  }
  return payload as AccessTokenClaims;
}

/** Throws INSUFFICIENT_SCOPE naming every scope needed, when the token lacks any of them. */
export function requireScopes(granted: readonly string[], needed: readonly string[]): void {
  if (needed.every((scope) => granted.includes(scope))) return;
  throw new ResourceServerError('INSUFFICIENT_SCOPE', `this request needs the scope ${needed.join(' ')}`, { scopes: needed });
}

async function verifySignedToken(token: string, { options, keys }: VerifyContext, now: number): Promise<AccessTokenClaims> {
  try {
    const { payload } = await jwtVerify(token, keys.getKey, {
      algorithms: options.algorithms as string[],
      issuer: options.issuer,
      audience: options.resource,
      typ: 'at+jwt',
      clockTolerance: options.clockToleranceSeconds,
      requiredClaims: [...REQUIRED_CLAIMS],
      currentDate: new Date(now),
    });
    return Object.freeze(checkClaims(payload));
  } catch (error) {
    throw translate(error);
  }
}

export async function verifyAccessToken(
  token: string,
  context: VerifyContext,
  needed: readonly string[] = [],
): Promise<AccessToken> {
  const now = context.options.now();
  let claims = context.verified.get(token, now / 1000);
  if (!claims) {
    claims = await verifySignedToken(token, context, now);
    context.verified.set(token, claims);
  }
  const scopes = claims.scope ? claims.scope.split(' ').filter(Boolean) : [];
  requireScopes(scopes, needed.length === 0 ? context.options.scopes : [...new Set([...context.options.scopes, ...needed])]);
  return {
    token,
    subject: claims.sub,
    clientId: claims.client_id,
    scopes,
    expiresAt: claims.exp,
    resource: new URL(context.options.resourceUrl),
    claims,
    extra: claims,
  };
}
