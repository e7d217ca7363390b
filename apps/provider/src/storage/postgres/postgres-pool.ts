import type { EventEmitter } from 'node:events';
import pg from 'pg';
import { StorageUnavailableError } from '../store.ts';
import { classify, RECONNECT_CODE } from './postgres-connect.ts';

/**
 * The pooled connections every statement goes through, as a named prepared statement; counts
 * statements (by name) and round trips (each ReadyForQuery ends one exchange with the server:
 * measured, not assumed). A server that says it is read-only or going away makes the pool drop
 * every connection (`recycle`): new ones go where the host name now points (the new primary).
 */
export class StatementPool {
  readonly statements = new Map<string, number>();
  #roundTrips = 0;
  #pool: pg.Pool;
  #closed = false;
  #lastRecycle = 0;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly options: { where: string; poolSize?: number; onStatement?: (name: string) => void },
  ) {
    this.#pool = this.#newPool();
  }

  get closed(): boolean {
    return this.#closed;
  }

  roundTrips(): number {
    return this.#roundTrips;
  }

  #newPool(): pg.Pool {
    const created = new pg.Pool({ ...this.config, max: this.options.poolSize ?? 10, idleTimeoutMillis: 30_000 });
    // An idle connection the server closed (a restart, a failover): the pool drops it; nothing to do here.
    created.on('error', () => {});
    created.on('connect', (client) => {
      (client as unknown as { connection: EventEmitter }).connection.on('readyForQuery', () => {
        this.#roundTrips += 1;
      });
    });
    return created;
  }

  /**
   * Every pooled connection dropped at once: after a server said it is read-only (a demoted
   * primary) or shutting down, the connections still open lead to that server. At most once a second.
   */
  recycle(): void {
    if (this.#closed || Date.now() - this.#lastRecycle < 1000) return;
    this.#lastRecycle = Date.now();
    const old = this.#pool;
    this.#pool = this.#newPool();
    old.end().catch(() => {});
  }

  /** One statement, one round trip; a failure that means the database cannot serve is a 503. */
  async run<R extends pg.QueryResultRow>(name: string, text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    if (this.#closed) throw new StorageUnavailableError(`PostgreSQL (${this.options.where}): the store is closed`);
    this.statements.set(name, (this.statements.get(name) ?? 0) + 1);
    this.options.onStatement?.(name);
    try {
      return await this.#pool.query<R>({ name: `signet_${name}`, text, values });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && RECONNECT_CODE.test(code)) this.recycle();
      throw classify(error, this.options.where);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#pool.end().catch(() => {});
  }
}
