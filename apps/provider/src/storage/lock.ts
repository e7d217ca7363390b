/**
 * A short claim on a name, shared by every replica: `withLock` runs `work` while this process
 * holds `lock:<name>`, taken with the store's atomic setIfAbsent and given back when the work
 * ends (with the request's writes, inside a unit of work). A process that dies holding it loses
 * it after `ttlSeconds`. Waiting is bounded: a claim not had within `waitMs` throws LockBusyError
 * (a 503 at the edge), never a silent pass.
 */
import { randomUUID } from 'node:crypto';
import { StorageUnavailableError, type Store } from './store.ts';

export class LockBusyError extends StorageUnavailableError {
  override readonly name = 'LockBusyError';
}

export type LockOptions = { ttlSeconds?: number; waitMs?: number };

export async function withLock<T>(store: Store, name: string, work: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const { ttlSeconds = 20, waitMs = 15_000 } = options;
  const key = `lock:${name}`;
  const deadline = Date.now() + waitMs;
  const token = randomUUID();
  while (!(await store.setIfAbsent(key, token, ttlSeconds))) {
    if (Date.now() > deadline) throw new LockBusyError(`another change of ${name} did not end in time`);
    await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 40));
  }
  try {
    return await work();
  } finally {
    await store.delete(key);
  }
}

/** Runs `work` holding every name (taken in sorted order, so two holders of overlapping sets never wait on each other forever). */
export async function withLocks<T>(store: Store, names: string[], work: () => Promise<T>, options?: LockOptions): Promise<T> {
  const sorted = [...new Set(names)].sort();
  const take = (i: number): Promise<T> =>
    i === sorted.length ? work() : withLock(store, sorted[i] as string, () => take(i + 1), options);
  return take(0);
}
