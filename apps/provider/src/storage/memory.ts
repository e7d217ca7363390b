import type { Store } from './store.ts';

type Entry = { value: string; expiresAt?: number };
type SetEntry = { members: Set<string>; expiresAt?: number };

/** In-process storage for tests: everything is lost when the process ends. */
export function createMemoryStore(now: () => number = Date.now): Store {
  const values = new Map<string, Entry>();
  const sets = new Map<string, SetEntry>();
  const expiry = (ttl?: number) => (ttl === undefined ? undefined : now() + ttl * 1000);
  const live = <T extends { expiresAt?: number }>(map: Map<string, T>, key: string): T | undefined => {
    const entry = map.get(key);
    if (entry && entry.expiresAt !== undefined && entry.expiresAt <= now()) {
      map.delete(key);
      return undefined;
    }
    return entry;
  };
  return {
    kind: 'memory',
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
    async keys(prefix) {
      return [...values.keys(), ...sets.keys()].filter((k) => k.startsWith(prefix) && (live(values, k) || live(sets, k)));
    },
    async ping() {},
    async close() {
      values.clear();
      sets.clear();
    },
  };
}
