/**
 * One use of a DPoP proof (and of a client assertion's `jti`), claimed atomically in storage.
 * oidc-provider's `ReplayDetection.unique` looks the proof up, then saves it: two requests
 * carrying one proof at once, on one process or on two replicas, both find nothing and both
 * pass. Here the claim is the store's `setIfAbsent` (SET NX on Redis, an insert that fails on a
 * live row elsewhere): of any number of concurrent uses exactly one is accepted. The record is
 * the one oidc-provider would have stored, under the same key, until the proof expires.
 */
import { createHash } from 'node:crypto';
import type { Provider } from 'oidc-provider';
import { recordKey } from '../storage/adapter.ts';
import type { Store } from '../storage/index.ts';

type ReplayModel = { unique(iss: string, jti: string, exp: number): Promise<boolean> };

export function atomicReplayDetection(provider: Provider, store: Store): void {
  const model = provider.ReplayDetection as unknown as ReplayModel;
  model.unique = async (iss, jti, exp) => {
    // oidc-provider's id for a (issuer, jti) pair.
    const id = createHash('sha256').update(`${iss}${jti}`).digest('base64url');
    const now = Math.floor(Date.now() / 1000);
    const ttl = Math.max(1, Math.ceil(exp - now));
    return store.setIfAbsent(recordKey('ReplayDetection', id), JSON.stringify({ iss, jti: id, exp }), ttl);
  };
}
