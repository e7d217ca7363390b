/** `npm run example:session`: application A on PORT (3002). */
import { serve } from '@hono/node-server';
import { runServer } from '@signet/settings';
import { buildSessionApp } from './app.ts';
import { loadSessionAppConfig } from './config.ts';
import { loadPageAssets } from './page.ts';

if (import.meta.url === `file://${process.argv[1]}`) {
  await runServer('session-app', loadSessionAppConfig, (config) => {
    const app = buildSessionApp(config, { assets: loadPageAssets() });
    const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host });
    console.log(`application A (session app) on http://localhost:${config.port} (listening on ${config.host})`);
    return { stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  });
}
