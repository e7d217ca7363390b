import type { Config } from '../config.ts';
import { createMemoryStore } from './memory.ts';
import { createRedisStore } from './redis.ts';
import { createSqliteStore } from './sqlite.ts';
import type { Store } from './store.ts';

export { createOidcAdapter, listModelIds } from './adapter.ts';
export { StorageUnavailableError, type Store } from './store.ts';
export { createMemoryStore, createRedisStore, createSqliteStore };

/** The one factory: STORAGE_URL decides. */
export function createStore(
  config: Pick<Config, 'storage' | 'storagePrefix'>,
  options: { warn?: (message: string) => void } = {},
): Store {
  switch (config.storage.kind) {
    case 'memory':
      return createMemoryStore();
    case 'sqlite':
      return createSqliteStore(config.storage.path, { warn: options.warn });
    case 'redis':
      return createRedisStore(config.storage.url, { prefix: config.storagePrefix });
  }
}
