/** A real provider for tests: in this process, on a free loopback port, with its own storage. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type App, buildApp, type Config, type Logger, loadConfig, type Store } from '@signet/provider';

export type TestProvider = { url: string; issuer: string; app: App; config: Config; server: Server; stop(): Promise<void> };

export async function startTestProvider(
  env: Record<string, string | undefined> = {},
  options: { logger?: Logger; store?: Store } = {},
): Promise<TestProvider> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(Number(env.PORT ?? 0), '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const config = loadConfig({
    ISSUER: `http://localhost:${port}`,
    STORAGE_URL: 'memory:',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_AUTHORIZATION: '0',
    RATE_LIMIT_INTERACTION: '0',
    RATE_LIMIT_REGISTRATION: '0',
    RATE_LIMIT_TOKEN: '0',
    RATE_LIMIT_DEVICE: '0',
    ...env,
    PORT: String(port),
  });
  const app = await buildApp(config, { keyRefreshMs: 0, logger: options.logger, store: options.store });
  server.on('request', app.handler);
  return {
    url: config.baseUrl,
    issuer: config.issuer,
    app,
    config,
    server,
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await app.close();
    },
  };
}
