/** `npm run example:api`: application B on PORT (3003). */
import { serve } from '@hono/node-server';
import { buildJsonApi } from './app.ts';
import { loadJsonApiConfig, SettingsError } from './config.ts';
import { createMemoryNonceStore, createRedisNonceStore } from './nonces.ts';

if (import.meta.url === `file://${process.argv[1]}`) {
  let config: ReturnType<typeof loadJsonApiConfig>;
  try {
    config = loadJsonApiConfig();
  } catch (error) {
    if (error instanceof SettingsError) {
      console.error(`json-api: invalid setting: ${error.message}`);
      process.exit(78);
    }
    throw error;
  }
  const nonces = config.redisUrl ? createRedisNonceStore(config.redisUrl) : createMemoryNonceStore();
  const api = buildJsonApi(config, { nonces });
  api.startCleanup();
  const server = serve({ fetch: api.app.fetch, port: config.port });
  console.log(`application B (JSON API) on http://localhost:${config.port}, nonces in ${config.redisUrl ? 'Redis' : 'memory'}`);
  const stop = () => server.close(() => api.close().then(() => process.exit(0)));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
