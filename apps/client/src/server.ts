/** `npm run client`: the reference client on PORT (3001). */
import { serve } from '@hono/node-server';
import { runServer } from '@signet/settings';
import { buildClientApp } from './app.ts';
import { type ClientConfig, loadClientConfig } from './config.ts';

export function startClient(config: ClientConfig, options: Parameters<typeof buildClientApp>[1] = {}) {
  const { app } = buildClientApp(config, options);
  return serve({ fetch: app.fetch, port: config.port, hostname: '0.0.0.0' });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runServer('signet client', loadClientConfig, async (config) => {
    // A local http:// provider (development) needs openid-client's insecure-requests switch.
    const { allowInsecureRequests } = await import('openid-client');
    const server = startClient(config, config.issuer.startsWith('http://') ? { execute: [allowInsecureRequests] } : {});
    console.log(`Signet example client on http://localhost:${config.port} (provider ${config.issuer})`);
    return {
      stop: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          // Keep-alive connections would hold close() open: end the idle ones now.
          (server as import('node:http').Server).closeIdleConnections?.();
        }),
    };
  });
}
