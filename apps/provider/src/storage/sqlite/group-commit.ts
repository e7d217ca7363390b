import type { Database } from 'better-sqlite3';
import { StorageUnavailableError } from '../store.ts';

/** SQLite result codes that mean "the storage cannot serve now", not "this request is wrong". */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|READONLY|CANTOPEN|CORRUPT|NOTADB|PROTOCOL|NOMEM)/;

/**
 * SQLite failures a request cannot fix (the database locked by another process beyond the busy
 * timeout, a full disk, an I/O error, a read-only file) become StorageUnavailableError, which
 * the provider answers with 503, as it does for an unreachable Redis.
 */
export function unavailable(error: unknown): StorageUnavailableError | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && UNAVAILABLE.test(code)
    ? new StorageUnavailableError(`SQLite: ${code} (${(error as Error).message})`, { cause: error })
    : undefined;
}

type Job = {
  run: () => unknown;
  /** After its commit: what the write changes in the recent values. */
  stored?: (result: unknown) => void;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
};

/**
 * Group commit. Every write (a request's batch, a one-time claim, a counter) waits for the end
 * of the event-loop turn it was asked in; then all the writes of that turn run, in the order
 * they were asked, in one IMMEDIATE transaction: one commit, one WAL append and one set of
 * locks for the several requests a busy provider finishes at once, instead of one each. A
 * write's promise settles after that commit, so what a caller awaited is stored. Each write
 * still sees those before it (a claim made in the same turn as another gets false), and reads
 * see only what is committed. If the shared transaction fails because of one write, it is
 * rolled back and each write runs again in a transaction of its own, so the failure stays that
 * write's; if the database itself cannot serve (locked beyond the busy timeout, full), every
 * write of the turn gets the 503 it would have got alone.
 */
export class GroupCommit {
  #queued: Job[] = [];
  readonly #runAll: ReturnType<Database['transaction']>;

  constructor(private readonly db: Database) {
    this.#runAll = db.transaction((jobs: readonly Job[]) => jobs.map((job) => job.run()));
  }

  /** Runs `run` in this turn's transaction; `stored` sees its result after the commit. */
  commit<T>(run: () => T, stored?: (result: T) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (!this.db.open) return reject(new StorageUnavailableError('SQLite: the database is closed'));
      if (this.#queued.length === 0) setImmediate(() => this.flush());
      this.#queued.push({ run, stored: stored as Job['stored'], resolve: resolve as (value: unknown) => void, reject });
    });
  }

  /** Commits what is queued now (each turn's end, and at close so nothing asked is dropped). */
  flush(): void {
    const jobs = this.#queued;
    this.#queued = [];
    if (jobs.length === 0 || !this.db.open) return;
    let results: unknown[];
    try {
      results = this.#runAll.immediate(jobs) as unknown[];
    } catch (error) {
      this.#runAlone(jobs, unavailable(error));
      return;
    }
    jobs.forEach((job, i) => {
      job.stored?.(results[i]);
      job.resolve(results[i]);
    });
  }

  /** After a failed shared transaction: every job alone, or all refused when the database cannot serve. */
  #runAlone(jobs: readonly Job[], cause: StorageUnavailableError | undefined): void {
    for (const job of jobs) {
      if (cause) {
        job.reject(cause);
        continue;
      }
      try {
        const result = this.db.transaction(job.run).immediate();
        job.stored?.(result);
        job.resolve(result);
      } catch (alone) {
        job.reject(unavailable(alone) ?? alone);
      }
    }
  }
}
