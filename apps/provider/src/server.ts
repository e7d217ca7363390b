/**
 * `npm run provider`: reads the settings, builds the app and listens. SIGTERM / SIGINT turn
 * readiness (/health/ready) to 503 at once and keep serving for SHUTDOWN_DRAIN_MS, so a load
 * balancer stops sending traffic first; then stop accepting connections, let in-flight requests
 * finish (up to SHUTDOWN_TIMEOUT_MS), close storage and exit.
 */
import { createServer, type Server } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { SettingsError } from '@signet/settings';
import { type App, buildApp } from './app.ts';
import { type Config, loadConfig } from './config.ts';
import { createLogger, type Logger } from './logger.ts';

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

/**
 * How far V8 lets the heap grow past what survived the last full collection before it collects
 * again: 50 % (V8 picks up to 4× on its own, which a busy provider whose live heap is ~50 MB turned
 * into 220–240 MB of resident memory under load; with 50 %, 150–170 MB for the same CPU; see
 * bench/history.md). Not a limit: the heap still grows as far as the live data needs. Set for SQLite
 * and Redis storage only (memory storage keeps every record in the heap, which must grow with it),
 * and never over a heap setting of the operator's own (`node --max-old-space-size=…`,
 * `--heap-growing-percent`, in the command line or NODE_OPTIONS). Returns the flag it set.
 */
export const HEAP_GROWING_PERCENT = 50;
export function boundHeapGrowth(
  storage: Config['storage']['kind'],
  given: string[] = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)],
  set: (flag: string) => void = setFlagsFromString,
): string | undefined {
  if (storage === 'memory') return undefined;
  if (given.some((arg) => /^--(max[-_]old[-_]space[-_]size|max[-_]heap[-_]size|heap[-_]growing[-_]percent)\b/.test(arg))) {
    return undefined;
  }
  const flag = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
  set(flag);
  return flag;
}

/** Reads the settings, starts the provider and stops it gracefully on SIGTERM / SIGINT (exit 0). */
export async function runProvider(): Promise<void> {
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
