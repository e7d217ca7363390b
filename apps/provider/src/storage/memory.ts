import { applyInOrder, type Store } from './store.ts';

type Entry = { value: string; expiresAt?: number };
type SetEntry = { members: Set<string>; expiresAt?: number };

/** The entry under `key` unless it has expired (then dropped). */
function liveEntry<T extends { expiresAt?: number }>(map: Map<string, T>, key: string, t: number): T | undefined {
  const entry = map.get(key);
  if (entry && entry.expiresAt !== undefined && entry.expiresAt <= t) {
    map.delete(key);
    return undefined;
  }
  return entry;
}

/** Drops every entry expired at `t`; returns how many. */
function sweepExpired(maps: Map<string, { expiresAt?: number }>[], t: number): number {
  let removed = 0;
  for (const map of maps) {
    for (const [key, entry] of map) {
      if (entry.expiresAt !== undefined && entry.expiresAt <= t) {
        map.delete(key);
        removed += 1;
      }
    }
  }
  return removed;
}

/** Every live value and set under `prefix`, with the time each has left (Store.entries). */
function entriesOf(values: Map<string, Entry>, sets: Map<string, SetEntry>, prefix: string, t: number) {
  const left = (expiresAt?: number) => (expiresAt === undefined ? {} : { ttlMs: expiresAt - t });
  return [
    ...[...values.keys()].flatMap((key) => {
      const entry = key.startsWith(prefix) ? liveEntry(values, key, t) : undefined;
      return entry ? [{ key, value: entry.value, ...left(entry.expiresAt) }] : [];
    }),
    ...[...sets.keys()].flatMap((key) => {
      const entry = key.startsWith(prefix) ? liveEntry(sets, key, t) : undefined;
      return entry ? [{ key, members: [...entry.members], ...left(entry.expiresAt) }] : [];
    }),
  ];
}

/**
 * In-process storage for tests: everything is lost when the process ends. Expired entries are
 * invisible at once and swept every minute (as SQLite's are), so a long-running process does not
 * keep every flow it ever served.
 */
export function createMemoryStore(
  now: () => number = Date.now,
  options: { sweepIntervalMs?: number } = {},
): Store & { sweep(): number } {
  const values = new Map<string, Entry>();
  const sets = new Map<string, SetEntry>();
  const expiry = (ttl?: number) => (ttl === undefined ? undefined : now() + ttl * 1000);
  const live = <T extends { expiresAt?: number }>(map: Map<string, T>, key: string) => liveEntry(map, key, now());
  /** Drops every expired entry; returns how many. */
  const sweep = () => sweepExpired([values, sets], now());
  const timer = setInterval(sweep, options.sweepIntervalMs ?? 60_000);
  timer.unref();
  const store: Store & { sweep(): number } = {
    kind: 'memory',
    sweep,
    async get(key) {
      return live(values, key)?.value;
    },
    async getMany(keys) {
      return keys.map((key) => live(values, key)?.value);
    },
    async set(key, value, ttl) {
      values.set(key, { value, expiresAt: expiry(ttl) });
    },
    async setIfAbsent(key, value, ttl) {
      if (live(values, key)) return false;
      values.set(key, { value, expiresAt: expiry(ttl) });
      return true;
    },
    async delete(...keys) {
      for (const key of keys) {
        values.delete(key);
        sets.delete(key);
      }
    },
    async addToSet(key, member, ttl) {
      const until = expiry(ttl);
      const existing = live(sets, key);
      if (!existing) {
        sets.set(key, { members: new Set([member]), expiresAt: until });
        return;
      }
      existing.members.add(member);
      existing.expiresAt =
        until === undefined || existing.expiresAt === undefined ? undefined : Math.max(existing.expiresAt, until);
    },
    async members(key) {
      return [...(live(sets, key)?.members ?? [])];
    },
    async increment(key, ttl, by = 1) {
      const entry = live(values, key);
      const next = (entry ? Number(entry.value) : 0) + by;
      values.set(key, { value: String(next), expiresAt: entry?.expiresAt ?? expiry(ttl) });
      return next;
    },
    batch: (writes) => applyInOrder(store, writes),
    async keys(prefix) {
      return [...values.keys(), ...sets.keys()].filter((k) => k.startsWith(prefix) && (live(values, k) || live(sets, k)));
    },
    async entries(prefix) {
      return entriesOf(values, sets, prefix, now());
    },
    async ping() {},
    async close() {
      clearInterval(timer);
      values.clear();
      sets.clear();
    },
  };
  return store;
}
