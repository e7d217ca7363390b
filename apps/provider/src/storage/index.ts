import type { Config } from '../config.ts';
import { createMemoryStore } from './memory.ts';
import type { Store } from './store.ts';

export { type AdapterOptions, createOidcAdapter, grantIndexKey, listModelIds } from './adapter.ts';
export { checkEvictionPolicy } from './redis/eviction.ts';
export { type Reference, StorageUnavailableError, type Store, type StoredEntry, type Write } from './store.ts';
export { createMemoryStore };

/**
 * The one factory: STORAGE_URL decides. The SQLite, Redis and PostgreSQL stores are imported only when
 * picked, so a process does not load (and hold in memory) the client of a storage it does not use.
 */
export async function createStore(
  config: Pick<Config, 'storage' | 'storagePrefix'> & Partial<Pick<Config, 'storagePoolSize' | 'storageStatementTimeoutMs'>>,
  options: {
    warn?: (message: string) => void;
    /**
     * Answer reads of client records from process memory where Redis or PostgreSQL can keep them
     * exact (a long-running provider; not the CLI): told when that starts or stops.
     */
    cacheClients?: (active: boolean, reason?: string) => void;
  } = {},
): Promise<Store> {
  switch (config.storage.kind) {
    case 'memory':
      return createMemoryStore();
    case 'sqlite':
      return (await import('./sqlite/sqlite.ts')).createSqliteStore(config.storage.path, { warn: options.warn });
    case 'redis':
      return (await import('./redis/redis.ts')).createRedisStore(config.storage.redis, {
        prefix: config.storagePrefix,
        ...(options.cacheClients ? { cachedPrefixes: ['oidc:Client:'], onCacheChange: options.cacheClients } : {}),
      });
    case 'postgres':
      // Connects, checks the server takes writes and migrates the schema before it answers.
      return (await import('./postgres/postgres.ts')).createPostgresStore(config.storage.postgres, {
        poolSize: config.storagePoolSize,
        statementTimeoutMs: config.storageStatementTimeoutMs,
        ...(options.warn ? { warn: options.warn } : {}),
        ...(options.cacheClients ? { cacheClients: options.cacheClients } : {}),
      });
  }
}
