/**
 * Values a store answers from memory while its server announces every change to them (Redis
 * CLIENT TRACKING, redis/redis-tracking.ts; PostgreSQL LISTEN, postgres/postgres-cache.ts).
 */

/**
 * The values held in memory and their generation: a read remembers its value only if nothing was
 * invalidated since it began (its token is still the generation).
 */
export class HeldValues {
  readonly #entries = new Map<string, { value: string; at: number }>();
  generation = 0;

  constructor(
    private readonly maxAgeMs: number,
    private readonly maxEntries: number,
  ) {}

  get(key: string): string | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (Date.now() - entry.at >= this.maxAgeMs) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  remember(key: string, value: string, token: number) {
    if (token !== this.generation) return;
    if (this.#entries.size >= this.maxEntries) this.#entries.clear();
    this.#entries.set(key, { value, at: Date.now() });
  }

  /** Forgets `keys`, or everything (undefined), and moves the generation on. */
  invalidate(keys?: Iterable<string>) {
    if (keys === undefined) this.#entries.clear();
    else for (const key of keys) this.#entries.delete(String(key));
    this.generation += 1;
  }
}
