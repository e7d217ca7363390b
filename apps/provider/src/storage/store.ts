/**
 * The storage every provider state goes through: a small key-value interface with
 * expiry, sets (for the grant index) and two atomic operations. Four implementations:
 * memory (tests), SQLite (the embedded default), Redis and PostgreSQL (shared by replicas).
 * Keys are given without the deployment prefix: Redis adds STORAGE_PREFIX (several deployments
 * may share one Redis); an SQLite file and a memory store belong to one deployment and add none,
 * and so does PostgreSQL, whose deployments are kept apart by their schema (`?schema=`).
 */
export interface Store {
  readonly kind: 'memory' | 'sqlite' | 'redis' | 'postgres';
  get(key: string): Promise<string | undefined>;
  /** Several values in one round trip, in order. */
  getMany(keys: string[]): Promise<(string | undefined)[]>;
  /**
   * PostgreSQL, and Redis on one server or Sentinel: `keys`, and the records the first key's
   * value refers to (References), read in one statement or script instead of one round trip per
   * hop. Answers every key read: `keys`, and each reference the value holds (undefined where
   * nothing is stored under it). Where a reference has a path, the first key's value must be JSON
   * (the adapter's records are): PostgreSQL refuses the read otherwise. SQLite, memory and a Redis
   * Cluster have none; the unit of work then reads `keys` alone (unit-of-work.ts).
   */
  getWithReferences?(keys: string[], references: readonly Reference[]): Promise<Map<string, string | undefined>>;
  /** Sets a value; `ttlSeconds` undefined means no expiry. */
  set(key: string, value: string, ttlSeconds?: number): Promise<void>;
  /** Sets only when absent (or expired); true when this call set it. Atomic: of several
   * concurrent callers exactly one gets true (one-time codes, key creation). */
  setIfAbsent(key: string, value: string, ttlSeconds?: number): Promise<boolean>;
  delete(...keys: string[]): Promise<void>;
  /** Adds to a set; the set lives at least `ttlSeconds` more (never shortened). */
  addToSet(key: string, member: string, ttlSeconds?: number): Promise<void>;
  members(key: string): Promise<string[]>;
  /** Adds `by` to a counter that expires `ttlSeconds` after its first increment. */
  increment(key: string, ttlSeconds: number, by?: number): Promise<number>;
  /**
   * Several writes stored together, in order: one transaction on SQLite (all or none), one round
   * trip on Redis (each write is its own command, sent together). A request's writes go
   * through here at its end (unit-of-work.ts).
   */
  batch(writes: readonly Write[]): Promise<void>;
  /** Keys starting with `prefix` (for listings: clients, keys), without the store prefix. */
  keys(prefix: string): Promise<string[]>;
  /**
   * Every live record whose key starts with `prefix`, with the time it has left: what
   * `signet storage copy` reads (storage/copy.ts). Held in memory: for copies, not for requests.
   */
  entries?(prefix: string): Promise<StoredEntry[]>;
  /** Redis only: each data server's maxmemory-policy; rejects where the server refuses CONFIG GET. */
  maxmemoryPolicies?(): Promise<string[]>;
  /** Resolves when the storage answers; rejects otherwise (health checks). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A key named inside a stored JSON value: `prefix` + the string at `path` (an empty path: the
 * value itself is an id, not JSON). With `via`, the value stored under that key is itself an
 * id, and `via` + that id is read too (a lookup record, such as a session's uid → its id).
 */
export type Reference = { readonly path: readonly string[]; readonly prefix: string; readonly via?: string };

/** A live record as read by Store.entries: a value or a set, and its milliseconds left (absent: no expiry). */
export type StoredEntry = { key: string; ttlMs?: number } & (
  | { value: string; members?: never }
  | { members: string[]; value?: never }
);

/** A write a unit of work holds until its request ends (Store.batch). */
export type Write =
  | { op: 'set'; key: string; value: string; ttlSeconds?: number }
  | { op: 'delete'; keys: string[] }
  | { op: 'addToSet'; key: string; member: string; ttlSeconds?: number };

/** Applies writes one by one through the store's own methods (a store with no cheaper way). */
export async function applyInOrder(store: Pick<Store, 'set' | 'delete' | 'addToSet'>, writes: readonly Write[]): Promise<void> {
  for (const write of writes) {
    if (write.op === 'set') await store.set(write.key, write.value, write.ttlSeconds);
    else if (write.op === 'delete') await store.delete(...write.keys);
    else await store.addToSet(write.key, write.member, write.ttlSeconds);
  }
}

/**
 * A plain object answering every operation of `inner` (the optional ones where it has them),
 * for a wrapper to override some of: a store may be a class, whose methods an object spread
 * (`{ ...inner }`) would not copy.
 */
export function delegateTo(inner: Store): Store {
  return {
    kind: inner.kind,
    get: (key) => inner.get(key),
    getMany: (keys) => inner.getMany(keys),
    ...(inner.getWithReferences ? { getWithReferences: inner.getWithReferences.bind(inner) } : {}),
    set: (key, value, ttl) => inner.set(key, value, ttl),
    setIfAbsent: (key, value, ttl) => inner.setIfAbsent(key, value, ttl),
    delete: (...keys) => inner.delete(...keys),
    addToSet: (key, member, ttl) => inner.addToSet(key, member, ttl),
    members: (key) => inner.members(key),
    increment: (key, ttl, by) => inner.increment(key, ttl, by),
    batch: (writes) => inner.batch(writes),
    keys: (prefix) => inner.keys(prefix),
    ...(inner.entries ? { entries: inner.entries.bind(inner) } : {}),
    ...(inner.maxmemoryPolicies ? { maxmemoryPolicies: inner.maxmemoryPolicies.bind(inner) } : {}),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
}

/** Storage could not be reached or failed: the provider answers 503 for requests that need it. */
export class StorageUnavailableError extends Error {
  override readonly name: string = 'StorageUnavailableError';
}
