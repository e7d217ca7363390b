import { aroundEachOperation, type StorageOperation } from './around.ts';
import type { Store } from './store.ts';

/**
 * The store, each operation that reaches it counted (GET /metrics:
 * signet_storage_operations_total): what a sign-in costs the storage, in statements or
 * transactions on SQLite and in commands (a batch: one round trip of them) on Redis. Wraps the
 * store itself, under the unit of work, so a request's held writes count as the one batch that
 * stores them.
 */
export function countedStore(inner: Store, count: (operation: StorageOperation, writes?: number) => void): Store {
  return aroundEachOperation(inner, (operation, { writes }, run) => {
    count(operation, writes?.length);
    return run();
  });
}
