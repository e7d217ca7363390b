/** What a verified token is, for handlers and for the MCP SDK. */
import type { JWTPayload } from 'jose';

/** The claims of a Signet access token (RFC 9068), and whatever else the issuer put in it. */
export type AccessTokenClaims = JWTPayload & {
  iss: string;
  sub: string;
  aud: string | string[];
  exp: number;
  iat: number;
  jti: string;
  client_id: string;
  scope?: string;
};

/**
 * A verified token. A superset of the MCP SDK's `AuthInfo` (`token`, `clientId`, `scopes`,
 * `expiresAt`, `resource`, `extra`), so an MCP server can hand it to the SDK as it is.
 */
export type AccessToken = {
  /** The token as it was sent. */
  token: string;
  subject: string;
  clientId: string;
  scopes: string[];
  /** `exp`, in seconds since the epoch. */
  expiresAt: number;
  /** This resource (the `aud` the token was checked against). */
  resource: URL;
  claims: Readonly<AccessTokenClaims>;
  /** The same claims, under the name the MCP SDK's AuthInfo gives them. */
  extra: Readonly<AccessTokenClaims>;
};
