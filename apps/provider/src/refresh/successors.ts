/**
 * The answer a rotated refresh token's use received, kept under that token for the grace window:
 * the successor pair (and the rest of the token response), what the request asked for, and when
 * its access token expires. Written by the request that rotated (with its other writes, one unit
 * of work) and indexed under the grant, so whatever revokes the grant (revocation, logout, a
 * wallet's removal, a reuse after the window) deletes it too.
 */
import { grantIndexKey, type Store } from '../storage/index.ts';

export type Successor = {
  /** The token response as it was sent: access_token, refresh_token, id_token, token_type, scope… */
  body: Record<string, unknown>;
  /** When its access token expires (epoch seconds). */
  accessTokenExp: number;
  /** `resource` and `scope` as the rotating request asked them (a replay must ask the same). */
  resource?: string;
  scope?: string;
};

export const successorKey = (jti: string) => `refresh:successor:${jti}`;

export async function saveSuccessor(store: Store, jti: string, grantId: string, successor: Successor, ttlSeconds: number) {
  const key = successorKey(jti);
  await store.set(key, JSON.stringify(successor), ttlSeconds);
  await store.addToSet(grantIndexKey(grantId), key, ttlSeconds);
}

export async function readSuccessor(store: Store, jti: string): Promise<Successor | undefined> {
  const text = await store.get(successorKey(jti));
  return text === undefined ? undefined : (JSON.parse(text) as Successor);
}
