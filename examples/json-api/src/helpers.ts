/**
 * The spec's helpers. requireAuth guards GET /auth/me here; an application built on this example
 * puts it in front of its protected routes, and validateAddress in front of routes that take an
 * address.
 */

import type { MiddlewareHandler } from 'hono';
import { jwtVerify, SignJWT } from 'jose';
import { HttpError } from './errors.ts';

const ADDRESS = /^0x[a-fA-F0-9]{40}$/;

/**
 * What an access token says: the signed-in address and its chain (an EIP-155 chain id, a Solana
 * message's Chain ID such as `mainnet`, or a Bitcoin message's, its network's CAIP-2 reference),
 * and the kind of account.
 */
export type TokenClaims = { address: string; chainId: number | string; namespace?: 'eip155' | 'solana' | 'bip122' };

/** Access tokens live one hour. */
export const TOKEN_LIFETIME_SECONDS = 3600;
const ISSUER = 'signet-json-api';

/**
 * Short-lived access tokens (JWT, HS256 with TOKEN_SECRET), issued by /auth/verify and checked by
 * requireAuth: a token of the right length that this API did not sign, or one that expired, is
 * refused. The spec's statuses and messages stay: no header → 401 `Authorization header required`,
 * any token that is not valid (including one under 10 characters) → 401 `Invalid authorization token`.
 */
export function createTokens({ secret, now = Date.now }: { secret: string; now?: () => number }) {
  const key = new TextEncoder().encode(secret);
  const issue = ({ address, chainId, namespace = 'eip155' }: TokenClaims) => {
    const iat = Math.floor(now() / 1000);
    return new SignJWT({ chainId, namespace })
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .setIssuer(ISSUER)
      .setAudience(ISSUER)
      .setSubject(address)
      .setIssuedAt(iat)
      .setExpirationTime(iat + TOKEN_LIFETIME_SECONDS)
      .sign(key);
  };
  const requireAuth: MiddlewareHandler<{ Variables: { auth: TokenClaims } }> = async (c, next) => {
    const header = c.req.header('authorization');
    if (!header) throw new HttpError(401, 'Authorization header required');
    const token = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : header;
    if (token.length < 10) throw new HttpError(401, 'Invalid authorization token');
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: ISSUER,
        currentDate: new Date(now()),
      });
      const { sub, chainId, namespace = 'eip155' } = payload as { sub?: unknown; chainId?: unknown; namespace?: unknown };
      if (typeof sub !== 'string' || (typeof chainId !== 'number' && typeof chainId !== 'string')) throw new Error('claims');
      if (namespace !== 'eip155' && namespace !== 'solana' && namespace !== 'bip122') throw new Error('claims');
      c.set('auth', { address: sub, chainId, namespace });
    } catch {
      throw new HttpError(401, 'Invalid authorization token');
    }
    await next();
  };
  return { issue, requireAuth };
}

/** The `field` (from the path parameters, else the JSON body) must be an Ethereum address. */
export function validateAddress(field: string): MiddlewareHandler {
  return async (c, next) => {
    let value: unknown = c.req.param(field);
    if (value === undefined && c.req.header('content-type')?.includes('application/json')) {
      const body = (await c.req.json().catch(() => ({}))) as Record<string, unknown>;
      value = body?.[field];
    }
    if (value === undefined || value === null || value === '') throw new HttpError(400, `${field} is required`);
    if (typeof value !== 'string' || !ADDRESS.test(value)) throw new HttpError(400, 'Invalid Ethereum address format');
    await next();
  };
}
