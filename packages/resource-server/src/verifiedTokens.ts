/**
 * Tokens already verified, so that a client sending the same token on every request (as MCP
 * clients do) pays for one signature check, not one per request. Keyed by the whole token
 * (signature included); bounded (the oldest entry leaves first); forgotten when the issuer's key
 * set changes (a key withdrawn from the set stops counting at once); an entry is used only until
 * its `exp`, after which the token is checked in full again (and refused as expired).
 */
import type { IssuerKeys } from './issuerKeys.ts';
import type { AccessTokenClaims } from './types.ts';

export type VerifiedTokens = {
  get(token: string, nowSeconds: number): Readonly<AccessTokenClaims> | undefined;
  set(token: string, claims: Readonly<AccessTokenClaims>): void;
};

export function createVerifiedTokens(size: number, keys: IssuerKeys, toleranceSeconds: number): VerifiedTokens {
  const entries = new Map<string, { claims: Readonly<AccessTokenClaims>; generation: number }>();
  return {
    get(token, nowSeconds) {
      const entry = entries.get(token);
      if (!entry) return undefined;
      if (entry.generation !== keys.generation || entry.claims.exp + toleranceSeconds <= nowSeconds) {
        entries.delete(token);
        return undefined;
      }
      return entry.claims;
    },
    set(token, claims) {
      if (size === 0) return;
      if (entries.size >= size) entries.delete(entries.keys().next().value as string);
      entries.set(token, { claims, generation: keys.generation });
    },
  };
}
