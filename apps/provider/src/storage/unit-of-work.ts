import { AsyncLocalStorage } from 'node:async_hooks';
import { delegateTo, type Reference, type Store, type Write } from './store.ts';

/**
 * One request's storage work. Its writes (set, delete, addToSet) are held and stored together
 * when the request ends, before its answer leaves (Store.batch: one SQLite transaction, one
 * Redis round trip), instead of one commit or one round trip each; what the request reads is
 * read once. What the request wrote, it reads back as written.
 *
 * Operations whose answer depends on what is stored now — setIfAbsent (one-time codes, the
 * interaction's outcome claim), increment (rate limits), members, keys — run on the store
 * directly, so their atomicity is the store's; when the unit holds a write to the same key
 * (for keys: any held write), it is stored first. Writes to other keys may wait: other requests
 * cannot see them before the unit ends either way.
 *
 * A write made outside any request (housekeeping, start-up), or after its request's unit was
 * stored (work a request left running), goes straight to the store, as before.
 */
type Unit = {
  writes: Write[];
  /** What this request has read or written, by key: a value, or undefined for none. */
  seen: Map<string, string | undefined>;
  /** Keys the held writes touch. */
  touched: Set<string>;
  /** Reads started ahead of their need (prefetch), by key, until they are answered. */
  pending: Map<string, Promise<void>>;
  /** False once stored: later writes (work the request left running) go to the store directly. */
  open: boolean;
};

export type UnitOfWorkStore = Store & {
  /** Runs `work` as one unit: its writes are stored together when it settles (or fails). */
  run<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Runs `work` outside the request's unit: every read and write goes to the store at once (records
   * that change under a lock, such as accounts). What the unit read before is forgotten after it,
   * so the request reads again what `work` may have changed.
   */
  immediate<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Starts reading `keys` for the current request, which will read them soon: they leave with
   * whatever else this turn of the event loop sends (one write, one round trip on Redis) instead
   * of after the reads before them are answered. A read of one of them then waits for this one.
   * Outside a request, nothing. A read that fails is forgotten (the request's own read tries again).
   * With `references` (and a store that follows them: getWithReferences), what the first key's
   * value refers to is read in the same round trip and answers the request's later reads too.
   */
  prefetch(keys: string[], references?: readonly Reference[]): void;
  /**
   * getMany, and where the store can (PostgreSQL, Redis on one server: Store.getWithReferences)
   * also the records the first key's value refers to, in the same round trip: the request's later
   * reads of them are then answered from what it read (a token and its grant and session: one
   * round trip, not three). Elsewhere, the keys alone.
   */
  getFollowing(keys: string[], references: readonly Reference[]): Promise<(string | undefined)[]>;
};

/** `keys` as a caller would read them itself: one with get, several with getMany. */
const readKeys = async (store: Pick<Store, 'get' | 'getMany'>, keys: string[]) =>
  keys.length === 1 ? [await store.get(keys[0] as string)] : store.getMany(keys);

export function withUnitsOfWork(inner: Store): UnitOfWorkStore {
  const current = new AsyncLocalStorage<Unit>();
  const active = () => {
    const unit = current.getStore();
    return unit?.open ? unit : undefined;
  };
  const flush = async (unit: Unit) => {
    if (unit.writes.length === 0) return;
    const writes = unit.writes;
    unit.writes = [];
    unit.touched.clear();
    await inner.batch(writes);
  };
  /** What a read that followed references found, for the request's later reads: unless it wrote, claimed or is reading a key since. */
  const rememberFound = (unit: Unit, found: Map<string, string | undefined>, except: readonly string[] = []) => {
    for (const [key, value] of found) {
      if (!except.includes(key) && !unit.seen.has(key) && !unit.pending.has(key)) unit.seen.set(key, value);
    }
  };
  const hold = (unit: Unit | undefined, write: Write, direct: () => Promise<void>): Promise<void> => {
    if (!unit) return direct();
    unit.writes.push(write);
    if (write.op === 'delete') {
      for (const key of write.keys) {
        unit.seen.set(key, undefined);
        unit.touched.add(key);
      }
    } else {
      if (write.op === 'set') unit.seen.set(write.key, write.value);
      unit.touched.add(write.key);
    }
    return Promise.resolve();
  };
  /** Runs on the store itself, after storing the held writes if one touches `key` (any, for none). */
  const direct =
    <A extends unknown[], R>(operation: (...args: A) => Promise<R>, keyOf?: (...args: A) => string) =>
    async (...args: A): Promise<R> => {
      const unit = active();
      if (unit) {
        const key = keyOf?.(...args);
        if (key === undefined ? unit.writes.length > 0 : unit.touched.has(key)) await flush(unit);
        // The answer changes what is stored under the key: read it again next time.
        if (key !== undefined) {
          unit.seen.delete(key);
          unit.pending.delete(key);
        }
      }
      return operation(...args);
    };

  const store: UnitOfWorkStore = {
    ...delegateTo(inner),
    async run(work) {
      const unit: Unit = { writes: [], seen: new Map(), touched: new Set(), pending: new Map(), open: true };
      let result: Awaited<ReturnType<typeof work>>;
      try {
        result = await current.run(unit, work);
      } finally {
        unit.open = false;
        // Stored whether the request succeeded or not: what it wrote before an error was
        // written before this unit existed too (a released claim, a recorded failure).
        await flush(unit);
      }
      return result;
    },
    async immediate(work) {
      const unit = active();
      try {
        return await current.exit(work);
      } finally {
        unit?.seen.clear();
        unit?.pending.clear();
      }
    },
    prefetch(keys, references) {
      const unit = active();
      if (!unit) return;
      const missing = keys.filter((key) => !unit.seen.has(key) && !unit.pending.has(key));
      if (missing.length === 0) return;
      const follow = references?.length && missing[0] === keys[0] ? inner.getWithReferences?.bind(inner) : undefined;
      const read: Promise<void> = (
        follow
          ? follow(missing, references ?? []).then((found) => {
              // The keys read ahead themselves are settled below, as any read ahead.
              rememberFound(unit, found, missing);
              return missing.map((key) => found.get(key));
            })
          : readKeys(inner, missing)
      ).then(
        (values) => {
          missing.forEach((key, i) => {
            // Only if nothing since made it stale: a write by this request, a claim on the key, `immediate`.
            if (unit.pending.get(key) !== read) return;
            unit.pending.delete(key);
            if (!unit.seen.has(key)) unit.seen.set(key, values[i]);
          });
        },
        () => {
          for (const key of missing) if (unit.pending.get(key) === read) unit.pending.delete(key);
        },
      );
      for (const key of missing) unit.pending.set(key, read);
    },
    async get(key) {
      const unit = active();
      if (!unit) return inner.get(key);
      if (unit.seen.has(key)) return unit.seen.get(key);
      const ahead = unit.pending.get(key);
      if (ahead !== undefined) {
        await ahead;
        if (unit.seen.has(key)) return unit.seen.get(key);
      }
      const value = await inner.get(key);
      // A write by this request while the read was under way wins.
      if (!unit.seen.has(key)) unit.seen.set(key, value);
      return unit.seen.get(key);
    },
    async getFollowing(keys, references) {
      const unit = active();
      if (!unit || !inner.getWithReferences || references.length === 0) return readKeys(store, keys);
      const ahead = keys.flatMap((key) => unit.pending.get(key) ?? []);
      if (ahead.length > 0) await Promise.all(ahead);
      if (!keys.every((key) => unit.seen.has(key))) rememberFound(unit, await inner.getWithReferences(keys, references));
      return keys.map((key) => unit.seen.get(key));
    },
    async getMany(keys) {
      const unit = active();
      if (!unit) return inner.getMany(keys);
      const ahead = keys.flatMap((key) => unit.pending.get(key) ?? []);
      if (ahead.length > 0) await Promise.all(ahead);
      const missing = keys.filter((key) => !unit.seen.has(key));
      if (missing.length > 0) {
        const values = await inner.getMany(missing);
        missing.forEach((key, i) => {
          if (!unit.seen.has(key)) unit.seen.set(key, values[i]);
        });
      }
      return keys.map((key) => unit.seen.get(key));
    },
    set: (key, value, ttlSeconds) =>
      hold(active(), { op: 'set', key, value, ttlSeconds }, () => inner.set(key, value, ttlSeconds)),
    delete: (...keys) => hold(active(), { op: 'delete', keys }, () => inner.delete(...keys)),
    addToSet: (key, member, ttlSeconds) =>
      hold(active(), { op: 'addToSet', key, member, ttlSeconds }, () => inner.addToSet(key, member, ttlSeconds)),
    async batch(writes) {
      const unit = active();
      if (!unit) return inner.batch(writes);
      for (const write of writes) await hold(unit, write, () => Promise.resolve());
    },
    setIfAbsent: direct(
      (key: string, value: string, ttl?: number) => inner.setIfAbsent(key, value, ttl),
      (key) => key,
    ),
    increment: direct(
      (key: string, ttl: number, by?: number) => inner.increment(key, ttl, by),
      (key) => key,
    ),
    members: direct(
      (key: string) => inner.members(key),
      (key) => key,
    ),
    keys: direct((prefix: string) => inner.keys(prefix)),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
  return store;
}

/** The same interface with no unit: every operation goes straight to the store (memory storage). */
export function withoutUnitsOfWork(inner: Store): UnitOfWorkStore {
  return {
    ...delegateTo(inner),
    run: (work) => work(),
    immediate: (work) => work(),
    prefetch: () => {},
    getFollowing: (keys) => readKeys(inner, keys),
  };
}
