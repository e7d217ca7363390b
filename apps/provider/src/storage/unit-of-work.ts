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
/** One request's reads and held writes. */
class Unit {
  writes: Write[] = [];
  /** What this request has read or written, by key: a value, or undefined for none. */
  readonly seen = new Map<string, string | undefined>();
  /** Keys the held writes touch. */
  readonly touched = new Set<string>();
  /** Reads started ahead of their need (prefetch), by key, until they are answered. */
  readonly pending = new Map<string, Promise<void>>();
  /** False once stored: later writes (work the request left running) go to the store directly. */
  open = true;

  /** Holds a write until the request ends; the request reads it back as written. */
  hold(write: Write): void {
    this.writes.push(write);
    if (write.op === 'delete') {
      for (const key of write.keys) {
        this.seen.set(key, undefined);
        this.touched.add(key);
      }
    } else {
      if (write.op === 'set') this.seen.set(write.key, write.value);
      this.touched.add(write.key);
    }
  }

  /** What a read that followed references found, for the request's later reads: unless it wrote, claimed or is reading a key since. */
  remember(found: Map<string, string | undefined>, except: readonly string[] = []): void {
    for (const [key, value] of found) {
      if (!except.includes(key) && !this.seen.has(key) && !this.pending.has(key)) this.seen.set(key, value);
    }
  }

  /** A read ahead answered: kept only if nothing since made it stale (a write by this request, a claim on the key, `immediate`). */
  settle(read: Promise<void>, keys: readonly string[], values: readonly (string | undefined)[] | undefined): void {
    keys.forEach((key, i) => {
      if (this.pending.get(key) !== read) return;
      this.pending.delete(key);
      if (values && !this.seen.has(key)) this.seen.set(key, values[i]);
    });
  }

  /** Waits for the reads ahead of any of `keys`. */
  async awaitAhead(keys: readonly string[]): Promise<void> {
    const ahead = keys.flatMap((key) => this.pending.get(key) ?? []);
    if (ahead.length > 0) await Promise.all(ahead);
  }

  /** Stores the held writes as one batch. */
  async flush(inner: Store): Promise<void> {
    if (this.writes.length === 0) return;
    const writes = this.writes;
    this.writes = [];
    this.touched.clear();
    await inner.batch(writes);
  }
}

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

class UnitsOfWork implements UnitOfWorkStore {
  readonly kind: Store['kind'];
  readonly getWithReferences?: Store['getWithReferences'];
  readonly entries?: Store['entries'];
  readonly maxmemoryPolicies?: Store['maxmemoryPolicies'];
  readonly #current = new AsyncLocalStorage<Unit>();

  constructor(private readonly inner: Store) {
    this.kind = inner.kind;
    // Answered by the store itself, outside any unit (as before a unit existed).
    if (inner.getWithReferences) this.getWithReferences = inner.getWithReferences.bind(inner);
    if (inner.entries) this.entries = inner.entries.bind(inner);
    if (inner.maxmemoryPolicies) this.maxmemoryPolicies = inner.maxmemoryPolicies.bind(inner);
  }

  #active(): Unit | undefined {
    const unit = this.#current.getStore();
    return unit?.open ? unit : undefined;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    const unit = new Unit();
    try {
      return await this.#current.run(unit, work);
    } finally {
      unit.open = false;
      // Stored whether the request succeeded or not: what it wrote before an error was
      // written before this unit existed too (a released claim, a recorded failure).
      await unit.flush(this.inner);
    }
  }

  async immediate<T>(work: () => Promise<T>): Promise<T> {
    const unit = this.#active();
    try {
      return await this.#current.exit(work);
    } finally {
      unit?.seen.clear();
      unit?.pending.clear();
    }
  }

  prefetch(keys: string[], references?: readonly Reference[]): void {
    const unit = this.#active();
    if (!unit) return;
    const missing = keys.filter((key) => !unit.seen.has(key) && !unit.pending.has(key));
    if (missing.length === 0) return;
    const follow = references?.length && missing[0] === keys[0] ? this.inner.getWithReferences?.bind(this.inner) : undefined;
    const values = follow
      ? follow(missing, references ?? []).then((found) => {
          // The keys read ahead themselves are settled below, as any read ahead.
          unit.remember(found, missing);
          return missing.map((key) => found.get(key));
        })
      : readKeys(this.inner, missing);
    // A read that fails is forgotten: the request's own read tries again.
    const read: Promise<void> = values.then(
      (answered) => unit.settle(read, missing, answered),
      () => unit.settle(read, missing, undefined),
    );
    for (const key of missing) unit.pending.set(key, read);
  }

  async get(key: string): Promise<string | undefined> {
    const unit = this.#active();
    if (!unit) return this.inner.get(key);
    if (unit.seen.has(key)) return unit.seen.get(key);
    const ahead = unit.pending.get(key);
    if (ahead !== undefined) {
      await ahead;
      if (unit.seen.has(key)) return unit.seen.get(key);
    }
    const value = await this.inner.get(key);
    // A write by this request while the read was under way wins.
    if (!unit.seen.has(key)) unit.seen.set(key, value);
    return unit.seen.get(key);
  }

  async getFollowing(keys: string[], references: readonly Reference[]): Promise<(string | undefined)[]> {
    const unit = this.#active();
    if (!unit || !this.inner.getWithReferences || references.length === 0) return readKeys(this, keys);
    await unit.awaitAhead(keys);
    if (!keys.every((key) => unit.seen.has(key))) unit.remember(await this.inner.getWithReferences(keys, references));
    return keys.map((key) => unit.seen.get(key));
  }

  async getMany(keys: string[]): Promise<(string | undefined)[]> {
    const unit = this.#active();
    if (!unit) return this.inner.getMany(keys);
    await unit.awaitAhead(keys);
    const missing = keys.filter((key) => !unit.seen.has(key));
    if (missing.length > 0) {
      const values = await this.inner.getMany(missing);
      missing.forEach((key, i) => {
        if (!unit.seen.has(key)) unit.seen.set(key, values[i]);
      });
    }
    return keys.map((key) => unit.seen.get(key));
  }

  /** A write: held by the request's unit, or (outside one) straight to the store. */
  #write(write: Write, direct: () => Promise<void>): Promise<void> {
    const unit = this.#active();
    if (!unit) return direct();
    unit.hold(write);
    return Promise.resolve();
  }

  set(key: string, value: string, ttlSeconds?: number): Promise<void> {
    return this.#write({ op: 'set', key, value, ttlSeconds }, () => this.inner.set(key, value, ttlSeconds));
  }

  delete(...keys: string[]): Promise<void> {
    return this.#write({ op: 'delete', keys }, () => this.inner.delete(...keys));
  }

  addToSet(key: string, member: string, ttlSeconds?: number): Promise<void> {
    return this.#write({ op: 'addToSet', key, member, ttlSeconds }, () => this.inner.addToSet(key, member, ttlSeconds));
  }

  async batch(writes: readonly Write[]): Promise<void> {
    const unit = this.#active();
    if (!unit) return this.inner.batch(writes);
    for (const write of writes) unit.hold(write);
  }

  /**
   * Before an operation that runs on the store itself: the held writes are stored first if one
   * touches `key` (any, for none), and the answer changes what is stored under the key, so the
   * request reads it again next time. Undefined when nothing needs storing first (the operation
   * then leaves at once, in the same turn: no promise in between).
   */
  #beforeDirect(key?: string): Promise<void> | undefined {
    const unit = this.#active();
    if (!unit) return undefined;
    const forget = () => {
      if (key === undefined) return;
      unit.seen.delete(key);
      unit.pending.delete(key);
    };
    if (key === undefined ? unit.writes.length > 0 : unit.touched.has(key)) return unit.flush(this.inner).then(forget);
    forget();
    return undefined;
  }

  /** Runs `operation` on the store itself, after #beforeDirect. */
  #direct<T>(key: string | undefined, operation: () => Promise<T>): Promise<T> {
    const before = this.#beforeDirect(key);
    return before ? before.then(operation) : operation();
  }

  setIfAbsent(key: string, value: string, ttl?: number): Promise<boolean> {
    return this.#direct(key, () => this.inner.setIfAbsent(key, value, ttl));
  }

  increment(key: string, ttl: number, by?: number): Promise<number> {
    return this.#direct(key, () => this.inner.increment(key, ttl, by));
  }

  members(key: string): Promise<string[]> {
    return this.#direct(key, () => this.inner.members(key));
  }

  keys(prefix: string): Promise<string[]> {
    return this.#direct(undefined, () => this.inner.keys(prefix));
  }

  ping(): Promise<void> {
    return this.inner.ping();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** The store with a unit of work per request (UnitOfWorkStore.run). */
export function withUnitsOfWork(inner: Store): UnitOfWorkStore {
  return new UnitsOfWork(inner);
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
