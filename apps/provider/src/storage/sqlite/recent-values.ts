/**
 * The values a SQLite store read or stored lately, with their expiry, in process memory: the
 * reads of one sign-in are mostly of records the requests before it stored (the interaction, the
 * grant, the session) or of a record every request reads (the client). Bounded by the total
 * length of the values it holds; the oldest go first. Values larger than a sixteenth of the
 * bound are not kept.
 *
 * It knows nothing of other processes: its owner empties it when the database says another
 * connection has committed (sqlite.ts).
 */
export type RecentValues = {
  /** The value, if held and not expired at `now`; undefined when the store must be asked. */
  get(key: string, now: number): string | undefined;
  remember(key: string, value: string, expiresAt: number | null): void;
  forget(key: string): void;
  clear(): void;
  readonly size: number;
};

export function recentValues(limitChars: number): RecentValues {
  const entries = new Map<string, { value: string; expiresAt: number | null }>();
  let chars = 0;
  const forget = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    chars -= entry.value.length;
  };
  return {
    get(key, now) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt !== null && entry.expiresAt <= now) {
        forget(key);
        return undefined;
      }
      return entry.value;
    },
    remember(key, value, expiresAt) {
      forget(key);
      if (value.length > limitChars / 16) return;
      entries.set(key, { value, expiresAt });
      chars += value.length;
      // Map order is insertion order: the first keys are the oldest.
      for (const oldest of entries.keys()) {
        if (chars <= limitChars) break;
        forget(oldest);
      }
    },
    forget,
    clear() {
      entries.clear();
      chars = 0;
    },
    get size() {
      return entries.size;
    },
  };
}
