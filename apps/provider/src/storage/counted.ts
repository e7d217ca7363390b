import type { StorageOperation } from '../metrics.ts';
import type { Store } from './store.ts';

/**
 * The store, each operation that reaches it counted (GET /metrics:
 * signet_storage_operations_total): what a sign-in costs the storage, in statements or
 * transactions on SQLite and in commands (a batch: one round trip of them) on Redis. Wraps the store itself, under
 * the unit of work, so a request's held writes count as the one batch that stores them.
 */
export function countedStore(inner: Store, count: (operation: StorageOperation, writes?: number) => void): Store {
  const counted =
    <A extends unknown[], R>(operation: StorageOperation, run: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      count(operation);
      return run(...args);
    };
  return {
    ...inner,
    kind: inner.kind,
    get: counted('get', (key) => inner.get(key)),
    getMany: counted('getMany', (keys) => inner.getMany(keys)),
    set: counted('set', (key, value, ttl) => inner.set(key, value, ttl)),
    setIfAbsent: counted('setIfAbsent', (key, value, ttl) => inner.setIfAbsent(key, value, ttl)),
    delete: counted('delete', (...keys) => inner.delete(...keys)),
    addToSet: counted('addToSet', (key, member, ttl) => inner.addToSet(key, member, ttl)),
    members: counted('members', (key) => inner.members(key)),
    increment: counted('increment', (key, ttl, by) => inner.increment(key, ttl, by)),
    keys: counted('keys', (prefix) => inner.keys(prefix)),
    batch: (writes) => {
      count('batch', writes.length);
      return inner.batch(writes);
    },
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
}
