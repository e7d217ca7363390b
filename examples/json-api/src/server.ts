/** `npm run example:api`: application B on PORT (3003). */
import { serve } from '@hono/node-server';
import { runServer } from '@signet/settings';
import { buildJsonApi } from './app.ts';
import { loadJsonApiConfig } from './config.ts';
import { createMemoryNonceStore, createRedisNonceStore } from './nonces.ts';

if (import.meta.url === `file://${process.argv[1]}`) {
  await runServer('json-api', loadJsonApiConfig, (config) => {
    const nonces = config.redisUrl ? createRedisNonceStore(config.redisUrl) : createMemoryNonceStore();
    const api = buildJsonApi(config, { nonces });
    api.startCleanup();
    const server = serve({ fetch: api.app.fetch, port: config.port, hostname: config.host });
    console.log(
      `application B (JSON API) on http://localhost:${config.port} (listening on ${config.host}), nonces in ${config.redisUrl ? 'Redis' : 'memory'}`,
    );
    return { stop: () => new Promise<void>((resolve) => server.close(() => resolve())).then(() => api.close()) };
  });
}
