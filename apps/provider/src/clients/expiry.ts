/**
 * Expiry of dynamically registered clients that were never used: registered more than N days
 * ago and no sign-in completed since (usage.ts). Clients the operator added (CLI,
 * CLIENTS_FILE) and clients stored before usage was recorded are never candidates. The provider
 * sweeps them when CLIENT_UNUSED_EXPIRY_DAYS is set; `signet clients prune` lists and removes
 * them on demand.
 */
import { listModelIds, type Store } from '../storage/index.ts';
import { forgetClient, registrationTokensByClient } from './lifecycle.ts';
import { readUses, startUsageTracking } from './usage.ts';

export type UnusedClient = {
  client_id: string;
  client_name?: string;
  redirect_uris?: string[];
  /** When it was registered (ISO 8601). */
  registered_at: string;
};

const DAY_MS = 24 * 3600 * 1000;

/** Stored clients registered before `now - days` that never completed a sign-in, oldest first. */
export async function findUnusedClients(store: Store, days: number, now = Date.now()): Promise<UnusedClient[]> {
  const cutoff = now - days * DAY_MS;
  // On a storage no provider of this version has opened yet (the CLI first), the clients already
  // there are marked as used before anything is judged: none of them is taken for an unused one.
  await startUsageTracking(store, () => listModelIds(store, 'Client'));
  const ids = await listModelIds(store, 'Client');
  const found: (UnusedClient & { at: number })[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const [records, uses] = await Promise.all([store.getMany(chunk.map((id) => `oidc:Client:${id}`)), readUses(store, chunk)]);
    chunk.forEach((id, j) => {
      const raw = records[j];
      if (raw === undefined || uses[j] !== undefined) return;
      const metadata = JSON.parse(raw) as { client_id_issued_at?: number; client_name?: string; redirect_uris?: string[] };
      // A record without its registration time is not one oidc-provider registered: never a candidate.
      if (typeof metadata.client_id_issued_at !== 'number') return;
      const at = metadata.client_id_issued_at * 1000;
      if (at >= cutoff) return;
      found.push({
        client_id: id,
        client_name: metadata.client_name,
        redirect_uris: metadata.redirect_uris,
        registered_at: new Date(at).toISOString(),
        at,
      });
    });
  }
  return found.sort((a, b) => a.at - b.at).map(({ at: _at, ...client }) => client);
}

/** Removes the clients findUnusedClients finds (unless `dryRun`), with everything kept for them. */
export async function pruneUnusedClients(
  store: Store,
  days: number,
  { now = Date.now(), dryRun = false }: { now?: number; dryRun?: boolean } = {},
): Promise<UnusedClient[]> {
  const unused = await findUnusedClients(store, days, now);
  if (dryRun || unused.length === 0) return unused;
  const tokens = await registrationTokensByClient(store);
  const removed: UnusedClient[] = [];
  for (const client of unused) {
    // Its first sign-in may have completed since the list was made.
    if ((await readUses(store, [client.client_id]))[0] !== undefined) continue;
    await forgetClient(store, client.client_id, { tokens: tokens.get(client.client_id) ?? [] });
    removed.push(client);
  }
  return removed;
}
