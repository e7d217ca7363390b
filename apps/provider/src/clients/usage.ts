/**
 * Which stored clients have been used: a client counts as used once one sign-in to it has
 * completed (a verified signature), or when the operator added it (CLI), or when it was stored
 * before this record existed. The record is one key per client, written once (SET NX) at the
 * client's first sign-in in each process and then remembered in memory, so later sign-ins cost
 * nothing. Clients from CLIENTS_FILE are the operator's and always count as used.
 *
 * What reads it: the expiry of unused dynamically registered clients (expiry.ts); and error
 * redirects, which follow at once for the operator's clients (redirects/unused-clients.ts).
 */
import type { Store } from '../storage/index.ts';

export type ClientUse = {
  /** When (ms since the epoch). */
  at: number;
  /** A completed sign-in; added by the operator (`signet clients add`); stored before this record existed. */
  by: 'sign-in' | 'operator' | 'before-tracking';
};

export const useKey = (clientId: string) => `client:used:${clientId}`;

/** Set once every client stored before usage was recorded has been marked `before-tracking`. */
export const TRACKING_KEY = 'clients:usage-tracking';

/** How many client ids each process remembers as used (beyond it, a forgotten one costs one read). */
const REMEMBERED = 10_000;

export type ClientUsage = {
  /** Records a completed sign-in to this client: one SET NX the first time in this process, nothing after. */
  recordSignIn(clientId: string): Promise<void>;
  /** True for a client from CLIENTS_FILE, or a stored client marked used. */
  isUsed(clientId: string): Promise<boolean>;
  /** True for a client the operator added: CLIENTS_FILE, or `signet clients add`. */
  isOperatorClient(clientId: string): Promise<boolean>;
};

export function createClientUsage(store: Store, staticClientIds: Iterable<string> = []): ClientUsage {
  const fixed = new Set(staticClientIds);
  const remembered = new Set<string>();
  const remember = (clientId: string) => {
    if (remembered.size >= REMEMBERED) remembered.delete(remembered.values().next().value as string);
    remembered.add(clientId);
  };
  return {
    async recordSignIn(clientId) {
      if (fixed.has(clientId) || remembered.has(clientId)) return;
      await markUsed(store, clientId, 'sign-in');
      remember(clientId);
    },
    async isUsed(clientId) {
      if (fixed.has(clientId) || remembered.has(clientId)) return true;
      const used = (await store.get(useKey(clientId))) !== undefined;
      if (used) remember(clientId);
      return used;
    },
    async isOperatorClient(clientId) {
      if (fixed.has(clientId)) return true;
      return (await readUses(store, [clientId]))[0]?.by === 'operator';
    },
  };
}

/** Marks a client used (kept if it already is). */
export async function markUsed(store: Store, clientId: string, by: ClientUse['by'], at = Date.now()): Promise<void> {
  await store.setIfAbsent(useKey(clientId), JSON.stringify({ at, by } satisfies ClientUse));
}

/** The use record of each client id, in order (undefined: never used). */
export async function readUses(store: Store, clientIds: string[]): Promise<(ClientUse | undefined)[]> {
  const values = await store.getMany(clientIds.map(useKey));
  return values.map((value) => (value === undefined ? undefined : (JSON.parse(value) as ClientUse)));
}

/**
 * Once per storage: every client already stored when usage began to be recorded counts as used
 * (`before-tracking`), so none of them is ever taken for an unused one and expired. Returns the
 * clients it marked. Safe to run from several replicas at once (each mark is SET NX; the
 * tracking key is set last).
 */
export async function startUsageTracking(store: Store, storedClientIds: () => Promise<string[]>): Promise<string[]> {
  if ((await store.get(TRACKING_KEY)) !== undefined) return [];
  const now = Date.now();
  const ids = await storedClientIds();
  for (const id of ids) await markUsed(store, id, 'before-tracking', now);
  await store.set(TRACKING_KEY, JSON.stringify({ since: now }));
  return ids;
}
