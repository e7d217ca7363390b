/**
 * RFC 9068 access tokens as oidc-provider makes them, with what Signet adds:
 *
 * - `sub` is the subject the client is given in its ID token (relying-party/subject.ts: a
 *   chain-independent or account subject; pairwise clients already get theirs from oidc-provider);
 * - each is stored by its `jti`, as an opaque token is, so introspection, revocation, a grant's
 *   revocation and the refresh grace (refresh/) see it. oidc-provider issues JWT access tokens
 *   without a record;
 * - such a record is found only by presenting the JWT itself, checked against the provider's own
 *   keys (`iss`, `typ: at+jwt`, signature, expiry): never by its `jti`, which every resource server
 *   that received the token has read;
 * - at introspection and revocation, where oidc-provider refuses any JWT, the token arrives marked
 *   (`jwt~<token>`, see `markedToken`) by the request's body rewrite (relying-party/token-requests.ts).
 */
import { createLocalJWKSet, decodeProtectedHeader, type JWK, jwtVerify } from 'jose';
import type { KoaContextWithOIDC, Provider } from 'oidc-provider';

const MARK = 'jwt~';

/** Whether a value has the shape of a JWS (three base64url parts with a JSON header). */
export function isJwt(value: unknown): value is string {
  if (typeof value !== 'string' || value.split('.').length !== 3) return false;
  try {
    return decodeProtectedHeader(value) !== undefined;
  } catch {
    return false;
  }
}

/** A JWT token parameter as oidc-provider's introspection and revocation take it (a JWT they refuse unread). */
export const markedToken = (jwt: string) => `${MARK}${jwt}`;

/** The subject a client is given for an account under a grant. */
export type TokenSubject = (accountId: string, client: object, grantId: string | undefined) => Promise<string>;
/** What the token says of who signed in, for its scopes (relying-party/token-claims.ts). */
export type TokenIdentity = (
  accountId: string,
  client: object,
  grantId: string | undefined,
  scopes: ReadonlySet<string>,
) => Promise<Record<string, string>>;

type Token = {
  format?: string;
  aud?: unknown;
  accountId?: string;
  grantId?: string;
  scope?: string;
  client?: { subjectType?: string };
};
type Structured = { payload: Record<string, unknown> };
type FindOptions = { ignoreExpiration?: boolean } | undefined;
type AccessTokenClass = {
  prototype: { getValueAndPayload(this: Token): Promise<{ value: string; payload?: Record<string, unknown> }> };
  find(value: unknown, options?: FindOptions): Promise<Token | undefined>;
};

/**
 * `formats.customizers.jwt`: the `sub` of a JWT access token is the client's subject; it says who
 * signed in as the client's ID token does, for the token's scopes (`identityOf`).
 */
export function jwtAccessTokenClaims(subjectOf: TokenSubject, identityOf: TokenIdentity) {
  return async (_ctx: KoaContextWithOIDC, token: Token, structured: Structured) => {
    const { accountId, client } = token;
    if (accountId === undefined || !client) return;
    const identity = await identityOf(accountId, client, token.grantId, new Set(token.scope?.split(' ')));
    Object.assign(structured.payload, identity);
    if (client.subjectType !== 'pairwise') structured.payload.sub = await subjectOf(accountId, client, token.grantId);
  };
}

/** Stores JWT access tokens and finds them by their JWT (see above). `jwks`: the provider's signing keys. */
export function storeJwtAccessTokens(provider: Provider, issuer: string, jwks: { keys: Record<string, unknown>[] }): void {
  const AccessToken = provider.AccessToken as unknown as AccessTokenClass;
  const opaque = (provider.BaseToken as unknown as AccessTokenClass).prototype.getValueAndPayload;
  const issue = AccessToken.prototype.getValueAndPayload;
  AccessToken.prototype.getValueAndPayload = async function valueAndRecord(this: Token) {
    const issued = await issue.call(this);
    if (this.format !== 'jwt') return issued;
    // The record an opaque token would have: what introspection and revocation read.
    const { payload } = await opaque.call(this);
    return { value: issued.value, payload };
  };
  const keys = createLocalJWKSet({
    keys: jwks.keys.map(({ kty, n, e, kid, alg, use }) => ({ kty, n, e, kid, alg, use }) as JWK),
  });
  const jtiOf = async (jwt: string, options: FindOptions) => {
    try {
      const { payload } = await jwtVerify(jwt, keys, {
        issuer,
        typ: 'at+jwt',
        algorithms: ['RS256'],
        ...(options?.ignoreExpiration ? { currentDate: new Date(0) } : {}),
      });
      return typeof payload.jti === 'string' ? payload.jti : undefined;
    } catch {
      return undefined;
    }
  };
  const find = AccessToken.find.bind(AccessToken);
  AccessToken.find = async (value, options) => {
    const jwt = typeof value === 'string' && value.startsWith(MARK) ? value.slice(MARK.length) : value;
    if (!isJwt(jwt)) {
      const token = await find(value, options);
      // A resource's token (it has an audience) is a JWT: its jti alone finds nothing.
      return token?.aud === undefined ? token : undefined;
    }
    const jti = await jtiOf(jwt, options);
    return jti === undefined ? undefined : find(jti, options);
  };
}
