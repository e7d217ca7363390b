/**
 * A map that keeps at most `capacity` entries, each until its own expiry: the least recently
 * used entry goes first when a new one would exceed the capacity (a Map keeps insertion order;
 * reading an entry moves it to the end). What a burst of new keys can cost in memory is
 * therefore fixed, whatever the keys.
 */
export class BoundedCache<V> {
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive whole number');
  }

  /** The live value under `key` (an expired one is dropped), marked as just used. */
  get(key: string, now: number): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (entry.expiresAt <= now) return undefined;
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, expiresAt: number): void {
    this.#entries.delete(key);
    if (this.#entries.size >= this.capacity) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(key, { value, expiresAt });
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }
}
