/** `npm run example:session`: application A on PORT (3002). */
import { serve } from '@hono/node-server';
import { buildSessionApp } from './app.ts';
import { loadSessionAppConfig, SettingsError } from './config.ts';
import { loadPageAssets } from './page.ts';

if (import.meta.url === `file://${process.argv[1]}`) {
  let config: ReturnType<typeof loadSessionAppConfig>;
  try {
    config = loadSessionAppConfig();
  } catch (error) {
    if (error instanceof SettingsError) {
      console.error(`session-app: invalid setting: ${error.message}`);
      process.exit(78);
    }
    throw error;
  }
  const app = buildSessionApp(config, { assets: loadPageAssets() });
  const server = serve({ fetch: app.fetch, port: config.port });
  console.log(`application A (session app) on http://localhost:${config.port}`);
  const stop = () => server.close(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
