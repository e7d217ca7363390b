import { delegateTo, type Store, type Write } from './store.ts';

/** Every operation a Store answers (ping and close aside), by the name of its method. */
export const STORAGE_OPERATIONS = [
  'get',
  'getMany',
  'getWithReferences',
  'set',
  'setIfAbsent',
  'delete',
  'addToSet',
  'members',
  'increment',
  'keys',
  'batch',
] as const;
export type StorageOperation = (typeof STORAGE_OPERATIONS)[number];

/** What an operation is about: its (first) key, or for a batch its writes. */
export type OperationDetail = { key?: string; writes?: readonly Write[] };

/**
 * The store with `around` called for each operation, given the operation, what it is about and
 * the call itself to run: one place that lists the operations, for every wrapper that observes
 * them (storage/counted.ts, the traced store in observability/tracing.ts).
 */
export function aroundEachOperation(
  inner: Store,
  around: <T>(operation: StorageOperation, detail: OperationDetail, run: () => Promise<T>) => Promise<T>,
): Store {
  const withReferences = inner.getWithReferences?.bind(inner);
  return {
    ...delegateTo(inner),
    get: (key) => around('get', { key }, () => inner.get(key)),
    getMany: (keys) => around('getMany', { key: keys[0] }, () => inner.getMany(keys)),
    ...(withReferences
      ? {
          getWithReferences: (keys, references) =>
            around('getWithReferences', { key: keys[0] }, () => withReferences(keys, references)),
        }
      : {}),
    set: (key, value, ttl) => around('set', { key }, () => inner.set(key, value, ttl)),
    setIfAbsent: (key, value, ttl) => around('setIfAbsent', { key }, () => inner.setIfAbsent(key, value, ttl)),
    delete: (...keys) => around('delete', { key: keys[0] }, () => inner.delete(...keys)),
    addToSet: (key, member, ttl) => around('addToSet', { key }, () => inner.addToSet(key, member, ttl)),
    members: (key) => around('members', { key }, () => inner.members(key)),
    increment: (key, ttl, by) => around('increment', { key }, () => inner.increment(key, ttl, by)),
    keys: (prefix) => around('keys', { key: prefix }, () => inner.keys(prefix)),
    batch: (writes) => around('batch', { writes }, () => inner.batch(writes)),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
}
