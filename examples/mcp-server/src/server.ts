/** `npm run example:mcp`: application C on PORT (3004). */
import { serve } from '@hono/node-server';
import { runServer } from '@signet/settings';
import { buildMcpServer } from './app.ts';
import { loadMcpServerConfig } from './config.ts';

if (import.meta.url === `file://${process.argv[1]}`) {
  await runServer('mcp-server', loadMcpServerConfig, (config) => {
    const { app, resourceServer } = buildMcpServer(config);
    // Fetch Signet's keys now: a wrong ISSUER shows at start, not at the first request.
    resourceServer.ready().then(
      () => console.log(`application C: Signet's keys fetched from ${config.issuer}`),
      (error) =>
        console.error(
          `application C: Signet at ${config.issuer} could not be reached yet (${error.code}: ${error.message}); retrying on requests`,
        ),
    );
    const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host });
    console.log(
      `application C (MCP server) on ${config.publicUrl} (listening on ${config.host}:${config.port}), signing in through ${config.issuer}`,
    );
    return { stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  });
}
