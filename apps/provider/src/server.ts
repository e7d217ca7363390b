/**
 * `npm run provider`: reads the settings, builds the app and listens. SIGTERM / SIGINT turn
 * readiness (/health/ready) to 503 at once and keep serving for SHUTDOWN_DRAIN_MS, so a load
 * balancer stops sending traffic first; then stop accepting connections, let in-flight requests
 * finish (up to SHUTDOWN_TIMEOUT_MS), close storage and exit.
 */
import { createServer, type Server } from 'node:http';
import { SettingsError } from '@signet/settings';
import type { App } from './app.ts';
import { type Config, loadConfig } from './config.ts';
import { createLogger, type Logger } from './observability/logger.ts';
import { boundHeapGrowth, boundYoungGeneration } from './runtime/heap.ts';
import { holdBackRuntimeWarning, nodeSupportNotice } from './runtime/node-support.ts';

export type RunningProvider = { app: App; server: Server; url: string; stop(): Promise<void> };

/**
 * How long a client may take to send a request. A connection whose headers are not complete
 * after `headersMs`, or whose request (body included) is not after `requestMs`, is answered 408
 * and closed: a slow client (slowloris) holds a connection for seconds, not minutes. Node checks
 * these deadlines every `checkIntervalMs` (its default, 30 s, would let a 10 s deadline run to 40 s).
 */
export type ServerTimeouts = { headersMs: number; requestMs: number; checkIntervalMs: number };
export const SERVER_TIMEOUTS: Readonly<ServerTimeouts> = { headersMs: 10_000, requestMs: 30_000, checkIntervalMs: 1_000 };

export async function startProvider(
  config: Config,
  logger: Logger = createLogger(config.logLevel, undefined, config.logFormat),
  timeouts: ServerTimeouts = SERVER_TIMEOUTS,
): Promise<RunningProvider> {
  // Loaded here, not at the top: `signet provider` reads its settings and may start itself again
  // (runtime/heap.ts) before the provider's modules load.
  const { buildApp } = await import('./app.ts');
  const app = await buildApp(config, { logger });
  const server = createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: timeouts.checkIntervalMs,
    },
    (req, res) => {
      // While draining, every answer closes its connection: the client's next request opens a
      // new one, which the load balancer sends to a replica that is staying.
      if (app.services.lifecycle.draining) res.setHeader('connection', 'close');
      app.handler(req, res);
    },
  );
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      app.services.lifecycle.draining = true;
      if (config.shutdownDrainMs > 0) {
        logger.info({ drainMs: config.shutdownDrainMs }, 'draining: /health/ready answers 503, requests are still served');
        await new Promise((resolve) => setTimeout(resolve, config.shutdownDrainMs));
      }
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive connections become idle as their last request finishes: close them then.
      server.closeIdleConnections();
      const sweeper = setInterval(() => server.closeIdleConnections(), 50);
      closed.finally(() => clearInterval(sweeper));
      const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), config.shutdownTimeoutMs).unref());
      if ((await Promise.race([closed, timeout])) === 'timeout') {
        logger.warn({ timeoutMs: config.shutdownTimeoutMs }, 'in-flight requests did not finish in time; closing connections');
        server.closeAllConnections();
        await closed;
      }
      await app.close();
    })();
    return stopping;
  };
  return { app, server, url: config.baseUrl, stop };
}

/** Reads the settings, starts the provider and stops it gracefully on SIGTERM / SIGINT (exit 0). */
export async function runProvider(): Promise<void> {
  holdBackRuntimeWarning();
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof SettingsError) {
      console.error(`signet: invalid setting: ${error.message}`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  // The young generation's size can only be given at start: this may start the command again.
  boundYoungGeneration(config.storage.kind);
  const logger = createLogger(config.logLevel, undefined, config.logFormat);
  boundHeapGrowth(config.storage.kind);
  let running: RunningProvider;
  try {
    running = await startProvider(config, logger);
  } catch (error) {
    if (error instanceof SettingsError) {
      logger.fatal(`invalid setting: ${error.message}`);
      process.exit(78);
    }
    logger.fatal({ err: error }, 'could not start');
    process.exit(1);
  }
  logger.info(
    { issuer: config.issuer, profile: config.profile, storage: config.storage.kind, port: config.port },
    `Signet listening on ${config.host}:${config.port}; discovery at ${config.baseUrl}/.well-known/openid-configuration`,
  );
  const notice = nodeSupportNotice();
  if (notice) logger.warn({ node: process.versions.node }, notice);
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    running.stop().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runProvider();
}
