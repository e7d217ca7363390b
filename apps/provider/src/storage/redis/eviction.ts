/**
 * Redis must never evict Signet's keys. Under memory pressure a Redis whose maxmemory-policy
 * evicts would delete clients and signing keys (allkeys-*), or, with the volatile-* policies,
 * any key with an expiry: sessions, grants, interactions, and the one-time markers that make an
 * authorization code or a refresh token single-use (`…:consumed`) and a sign-in end once
 * (`interaction:done:…`). A consumed marker evicted before its code expires lets the code be
 * redeemed again. So only `noeviction` is accepted: Redis then refuses writes when full (the
 * provider answers 503) instead of silently forgetting. STORAGE_ALLOW_EVICTION (a shared cache)
 * lets a volatile-* policy through with a warning, never an allkeys-* one: accounts, clients and
 * signing keys have no expiry, and losing an account loses a person's wallets for good.
 */
import { SettingsError } from '@signet/settings';
import type { Store } from '../store.ts';

export const SAFE_EVICTION_POLICY = 'noeviction';

/**
 * At start: reads maxmemory-policy on every Redis server holding data. An evicting policy stops
 * the start (SettingsError naming STORAGE_URL and maxmemory-policy), or only warns when the
 * operator accepts it (STORAGE_ALLOW_EVICTION, a shared cache). A server that refuses CONFIG GET
 * (managed Redis, an ACL without +config) gets a warning and the start goes on.
 */
export async function checkEvictionPolicy(
  store: Store,
  options: { allowEviction: boolean; warn(fields: Record<string, unknown>, message: string): void },
): Promise<void> {
  if (!store.maxmemoryPolicies) return;
  let policies: string[];
  try {
    policies = await store.maxmemoryPolicies();
  } catch (error) {
    options.warn(
      { reason: (error as Error).message },
      `could not read Redis maxmemory-policy (CONFIG GET refused); make sure it is ${SAFE_EVICTION_POLICY}, or Redis may evict sessions, clients and one-time code markers under memory pressure`,
    );
    return;
  }
  const evicting = [...new Set(policies.filter((policy) => policy !== SAFE_EVICTION_POLICY))];
  if (evicting.length === 0) return;
  const why = `Redis maxmemory-policy is ${evicting.join(', ')}: under memory pressure Redis would delete Signet's keys (${
    evicting.every((policy) => policy.startsWith('volatile-'))
      ? 'sessions, grants and the markers that make each code and refresh token usable once'
      : 'accounts, clients, signing keys, sessions and the markers that make each code and refresh token usable once'
  })`;
  const dropsDurable = evicting.some((policy) => !policy.startsWith('volatile-'));
  if (options.allowEviction && !dropsDurable) {
    options.warn({ maxmemoryPolicy: evicting }, `${why}; starting anyway because STORAGE_ALLOW_EVICTION=true`);
    return;
  }
  if (options.allowEviction) {
    throw new SettingsError(
      `STORAGE_URL: ${why}, and accounts, which never expire. STORAGE_ALLOW_EVICTION=true accepts a volatile-* policy only (it evicts keys with an expiry); set maxmemory-policy ${SAFE_EVICTION_POLICY} (or volatile-lru on a shared cache)`,
    );
  }
  throw new SettingsError(
    `STORAGE_URL: ${why}. Set maxmemory-policy ${SAFE_EVICTION_POLICY} on that Redis, or give Signet a Redis of its own; STORAGE_ALLOW_EVICTION=true starts anyway (a shared cache, at that risk)`,
  );
}
