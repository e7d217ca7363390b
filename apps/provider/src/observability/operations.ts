/**
 * The operator's routes: GET /health (storage reachable), the probes GET /health/live (the
 * process answers) and GET /health/ready (storage answers, signing keys loaded, not shutting
 * down), and GET /metrics (Prometheus, optionally behind METRICS_TOKEN).
 */
import { timingSafeEqual } from 'node:crypto';
import type Router from '@koa/router';
import type { Config } from '../config.ts';
import type { Store } from '../storage/index.ts';
import type { Logger } from './logger.ts';
import type { Metrics } from './metrics.ts';

/** What the readiness probe reports: keys loaded, and whether shutdown has begun. */
export type Lifecycle = {
  /** Set when SIGTERM arrives: readiness answers 503 while requests are still served. */
  draining: boolean;
  keysLoaded(): boolean;
};

export function operationsRoutes(
  router: Router,
  services: { config: Config; logger: Logger; metrics: Metrics; store: Store; lifecycle: Lifecycle },
) {
  const { config, logger, metrics, store, lifecycle } = services;
  const storageState = async () => {
    try {
      await store.ping();
      return 'ok';
    } catch (error) {
      // The details (hosts, ports) go to the log, not to whoever asks.
      logger.warn({ reason: (error as Error).message }, 'health check: storage unavailable');
      return 'unavailable';
    }
  };
  router.get('/health', async (ctx) => {
    const storage = await storageState();
    const healthy = storage === 'ok';
    ctx.status = healthy ? 200 : 503;
    ctx.set('cache-control', 'no-store');
    ctx.body = { status: healthy ? 'ok' : 'unavailable', storage, profile: config.profile };
  });
  // Liveness: the process answers; nothing else is asked, so a storage outage never gets a
  // replica restarted (restarting would not bring storage back).
  router.get('/health/live', (ctx) => {
    ctx.set('cache-control', 'no-store');
    ctx.body = { status: 'ok' };
  });
  // Readiness: whether to send this replica traffic. Turns 503 the moment SIGTERM arrives, while
  // requests are still served for SHUTDOWN_DRAIN_MS, so a load balancer stops first.
  router.get('/health/ready', async (ctx) => {
    const draining = lifecycle.draining;
    const storage = draining ? 'not_checked' : await storageState();
    const keys = lifecycle.keysLoaded() ? 'ok' : 'missing';
    const ready = !draining && storage === 'ok' && keys === 'ok';
    ctx.status = ready ? 200 : 503;
    ctx.set('cache-control', 'no-store');
    ctx.body = { status: ready ? 'ready' : draining ? 'draining' : 'unavailable', storage, keys };
  });
  router.get('/metrics', async (ctx) => {
    if (config.metricsToken) {
      const given = Buffer.from(ctx.get('authorization').replace(/^Bearer /, ''));
      const expected = Buffer.from(config.metricsToken);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        ctx.status = 401;
        ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
        ctx.body = { error: 'invalid_token', error_description: 'GET /metrics needs the METRICS_TOKEN as a Bearer token' };
        return;
      }
    }
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  });
}
