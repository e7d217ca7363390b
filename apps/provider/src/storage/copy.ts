/**
 * `signet storage copy`: moves a deployment's state from one storage to another (SQLite, Redis,
 * PostgreSQL, any direction), for a move such as SQLite → PostgreSQL when a second replica comes.
 *
 * What moves: the clients (their records, registration access tokens, logos and usage records),
 * the keys (signing keys, cookie keys, the pairwise salt) and, with `sessions`, everything that
 * keeps users signed in: sessions, grants and their index, tokens and codes (with their one-time
 * markers), sign-in records and the chain-independent subject marks. Accounts move with their
 * wallets' links and profiles and their passkeys (`passkey:`; with `sessions`, what each
 * passkey signed in too). Each record keeps the time
 * it had left. Never copied: rate-limit counters and the ENS cache (they rebuild themselves).
 *
 * A re-run copies the same again (idempotent). A target that already holds a different value
 * under a copied key (a provider already started on it made its own keys, say) is refused
 * unless `force`, which overwrites those keys; keys the source lacks are left as they are.
 */
import type { Store, StoredEntry, Write } from './store.ts';

/** The key prefixes of each part (before any deployment prefix; the layout of adapter.ts, keys.ts, clients/, logos.ts, records/, accounts/). */
export const COPY_PARTS = {
  clients: [
    'oidc:Client:',
    'oidc:RegistrationAccessToken:',
    'client:used:',
    'clients:usage-tracking',
    'logo:',
    'logos:total-bytes',
  ],
  keys: ['keys:'],
  // Accounts never expire: copied with clients and keys.
  accounts: ['account:', 'wallet:', 'wallet-profile:', 'passkey:'],
  sessions: [
    'oidc:',
    'signin:',
    'subject:eoa:',
    'interaction:done:',
    'wallet-grants:',
    'passkey-grants:',
    'grant-session:',
    'session-login:',
  ],
} as const;
export type CopyPart = keyof typeof COPY_PARTS;

/**
 * What a person counts in each part, and the key prefix of one such thing's own record: a client
 * is one `oidc:Client:` record among the several under it (its registration access token, logo,
 * usage record), an account one `account:` record beside its wallets' links.
 */
export const COPY_ITEMS: Record<CopyPart, { prefix: string; one: string; many: string }> = {
  clients: { prefix: 'oidc:Client:', one: 'client', many: 'clients' },
  keys: { prefix: 'keys:', one: 'key set', many: 'key sets' },
  accounts: { prefix: 'account:', one: 'account', many: 'accounts' },
  sessions: { prefix: 'oidc:Session:', one: 'session', many: 'sessions' },
};

/**
 * Per part: `items`, the things copied as a person counts them (clients, accounts, key sets,
 * sessions: see COPY_ITEMS); `records`, every record read for the part (an item's own record and
 * those under it); and of those records, how many were `copied`, found `unchanged` in the target
 * or `overwritten` (with --force).
 */
export type CopySummary = Record<
  CopyPart,
  { items: number; records: number; copied: number; unchanged: number; overwritten: number }
>;

export class CopyConflictError extends Error {
  constructor(readonly keys: string[]) {
    super(
      `the target already holds different values under ${keys.length} of the keys to copy (${keys.slice(0, 5).join(', ')}${
        keys.length > 5 ? ', …' : ''
      }): it is not empty. --force overwrites them`,
    );
  }
}

/** A value's or set's content, for comparing the source's with the target's. */
const contentOf = (entry: StoredEntry | undefined) =>
  entry === undefined ? undefined : entry.members ? `set:${[...entry.members].sort().join('\n')}` : `value:${entry.value}`;

async function entriesOf(store: Store, prefixes: readonly string[]): Promise<Map<string, StoredEntry>> {
  if (!store.entries) throw new Error(`${store.kind} storage cannot be read for a copy`);
  const found = new Map<string, StoredEntry>();
  for (const prefix of prefixes) for (const entry of await store.entries(prefix)) found.set(entry.key, entry);
  return found;
}

export async function copyStorage(
  from: Store,
  to: Store,
  options: { sessions?: boolean; force?: boolean } = {},
): Promise<CopySummary> {
  const parts: CopyPart[] = options.sessions ? ['clients', 'keys', 'accounts', 'sessions'] : ['clients', 'keys', 'accounts'];
  // Each key belongs to the first part whose prefix it has (an oidc:Client: record is a client, not a session).
  const plan = new Map<string, { part: CopyPart; entry: StoredEntry }>();
  for (const part of parts) {
    for (const [key, entry] of await entriesOf(from, COPY_PARTS[part])) if (!plan.has(key)) plan.set(key, { part, entry });
  }
  const existing = await entriesOf(to, [...new Set(parts.flatMap((part) => COPY_PARTS[part]))]);
  const conflicts = [...plan.keys()].filter(
    (key) => existing.has(key) && contentOf(existing.get(key)) !== contentOf(plan.get(key)?.entry),
  );
  if (conflicts.length > 0 && !options.force) throw new CopyConflictError(conflicts.sort());

  const summary = Object.fromEntries(
    parts.map((part) => [part, { items: 0, records: 0, copied: 0, unchanged: 0, overwritten: 0 }]),
  ) as CopySummary;
  let writes: Write[] = [];
  const flush = async () => {
    if (writes.length > 0) await to.batch(writes);
    writes = [];
  };
  for (const [key, { part, entry }] of plan) {
    const tally = summary[part];
    tally.records += 1;
    if (key.startsWith(COPY_ITEMS[part].prefix)) tally.items += 1;
    if (existing.has(key) && contentOf(existing.get(key)) === contentOf(entry)) {
      tally.unchanged += 1;
      continue;
    }
    // What time it had left when read, less nothing more: a record that has expired since is not brought back.
    if (entry.ttlMs !== undefined && entry.ttlMs <= 0) continue;
    const ttlSeconds = entry.ttlMs === undefined ? undefined : entry.ttlMs / 1000;
    if (existing.has(key)) tally.overwritten += 1;
    else tally.copied += 1;
    if (entry.members) {
      writes.push({ op: 'delete', keys: [key] });
      for (const member of entry.members) writes.push({ op: 'addToSet', key, member, ttlSeconds });
    } else {
      writes.push({ op: 'set', key, value: entry.value, ttlSeconds });
    }
    if (writes.length >= 500) await flush();
  }
  await flush();
  return summary;
}
