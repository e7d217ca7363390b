/**
 * Checks one access token, as RFC 9068 §4 and the MCP authorization chapter ask of a resource:
 * an allowed asymmetric algorithm, the issuer's key, `typ: at+jwt`, `iss` = the issuer, `aud`
 * naming this resource, `exp` / `nbf` within the clock tolerance, the claims RFC 9068 requires, no
 * key binding it cannot check (`cnf`), then the scopes the request needs. Every failure is a
 * ResourceServerError whose message names what failed and never echoes the token.
 *
 * The signature is checked by OpenSSL (compactJws.ts); the claims here, as jose's jwtVerify
 * checks them (the same comparisons and clock tolerance), each read as the token's own member
 * only (never one inherited from Object.prototype).
 */
import type { CryptoKey } from 'jose';
import { type CompactJws, keyFitsAlgorithm, own, readCompactJws, signatureVerifies } from './compactJws.ts';
import { ResourceServerError, type ResourceServerErrorCode } from './errors.ts';
import type { IssuerKeys } from './issuerKeys.ts';
import type { AccessTokenAlgorithm, ResolvedOptions } from './options.ts';
import type { AccessToken, AccessTokenClaims } from './types.ts';
import type { VerifiedTokens } from './verifiedTokens.ts';

export type VerifyContext = { options: ResolvedOptions; keys: IssuerKeys; verified: VerifiedTokens };

const NOT_ALLOWED = 'the token is signed with an algorithm this resource does not accept';

/** jose's failures while finding the key, as this package's codes. */
const KEY_CODES: Record<string, [ResourceServerErrorCode, string]> = {
  ERR_JOSE_NOT_SUPPORTED: ['ALGORITHM_NOT_ALLOWED', NOT_ALLOWED],
  ERR_JWKS_NO_MATCHING_KEY: ['UNKNOWN_KEY', "the token is signed with a key the issuer's key set does not hold"],
  ERR_JWKS_MULTIPLE_MATCHING_KEYS: ['UNKNOWN_KEY', 'the token names no key (kid) and the issuer has several'],
};

const fail = (code: ResourceServerErrorCode, words: string) => new ResourceServerError(code, words);
const missing = (claim: string) => fail('MISSING_CLAIM', `the access token lacks a valid "${claim}" claim (RFC 9068)`);

/** RFC 9068 §2.1: `at+jwt`, with or without `application/`, in any case (as jose compares it). */
function isAccessTokenType(typ: unknown): boolean {
  return typeof typ === 'string' && typ.toLowerCase().replace(/^application\//, '') === 'at+jwt';
}

async function keyFor(jws: CompactJws, { options, keys }: VerifyContext): Promise<[AccessTokenAlgorithm, CryptoKey]> {
  const alg = own(jws.header, 'alg');
  if (typeof alg !== 'string' || !(options.algorithms as readonly string[]).includes(alg)) {
    throw fail('ALGORITHM_NOT_ALLOWED', NOT_ALLOWED);
  }
  try {
    return [alg as AccessTokenAlgorithm, await keys.getKey({ alg, kid: own(jws.header, 'kid') as string | undefined })];
  } catch (error) {
    if (error instanceof ResourceServerError) throw error;
    const [code, words] = KEY_CODES[(error as { code?: string })?.code ?? ''] ?? [
      'UNKNOWN_KEY',
      "the issuer's key for this token could not be used",
    ];
    throw new ResourceServerError(code, words, { cause: error });
  }
}

/** RFC 9068 §2.2 and §4: the time claims are numbers, the issuer and the audience this resource. */
function checkRegisteredClaims(payload: Record<string, unknown>, options: ResolvedOptions, now: number): void {
  const [exp, iat, nbf, iss, aud] = (['exp', 'iat', 'nbf', 'iss', 'aud'] as const).map((name) => own(payload, name));
  const seconds = Math.floor(now / 1000);
  const tolerance = options.clockToleranceSeconds;
  if (typeof exp !== 'number') throw missing('exp');
  if (typeof iat !== 'number') throw missing('iat');
  if (nbf !== undefined && typeof nbf !== 'number') throw missing('nbf');
  if (iss !== options.issuer) {
    throw fail(
      iss === undefined ? 'MISSING_CLAIM' : 'WRONG_ISSUER',
      'the access token was not issued by the issuer this resource trusts',
    );
  }
  if (aud === undefined) throw missing('aud');
  const audience = typeof aud === 'string' ? [aud] : aud;
  if (!Array.isArray(audience) || !audience.includes(options.resource)) {
    throw fail('WRONG_AUDIENCE', 'the access token is for another resource (its aud does not name this one)');
  }
  if (nbf !== undefined && nbf > seconds + tolerance)
    throw fail('TOKEN_NOT_YET_VALID', 'the access token is not valid yet (nbf)');
  if (exp <= seconds - tolerance) throw fail('TOKEN_EXPIRED', 'the access token has expired');
}

function checkClaims(payload: Record<string, unknown>): AccessTokenClaims {
  for (const claim of ['sub', 'client_id', 'jti'] as const) {
    const value = own(payload, claim);
    if (typeof value !== 'string' || value === '') throw missing(claim);
  }
  const scope = own(payload, 'scope');
  if (scope !== undefined && typeof scope !== 'string') {
    throw fail('MISSING_CLAIM', 'the access token\'s "scope" claim is not a string');
  }
  if (own(payload, 'cnf') !== undefined) {
    throw fail(
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

async function verifySignedToken(token: string, context: VerifyContext, now: number): Promise<AccessTokenClaims> {
  const jws = readCompactJws(token);
  const [alg, key] = await keyFor(jws, context);
  if (!keyFitsAlgorithm(alg, key)) {
    throw fail(
      'UNKNOWN_KEY',
      `the issuer's key for this token is not one ${alg} may use (an RSA key under 2048 bits, or another kind)`,
    );
  }
  if (!signatureVerifies(jws, alg, key)) throw fail('INVALID_SIGNATURE', 'the access token signature is invalid');
  if (!isAccessTokenType(own(jws.header, 'typ')))
    throw fail('WRONG_TOKEN_TYPE', 'not an access token: its typ is not at+jwt (RFC 9068)');
  checkRegisteredClaims(jws.payload, context.options, now);
  return Object.freeze(checkClaims(jws.payload));
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
