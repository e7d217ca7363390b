/** The operator's routes: GET /health (storage reachable) and GET /metrics (Prometheus, optionally behind METRICS_TOKEN). */
import { timingSafeEqual } from 'node:crypto';
import type Router from '@koa/router';
import type { Services } from './services.ts';

export function operationsRoutes(router: Router, services: Pick<Services, 'config' | 'logger' | 'metrics' | 'store'>) {
  const { config, logger, metrics, store } = services;
  router.get('/health', async (ctx) => {
    let storage = 'ok';
    try {
      await store.ping();
    } catch (error) {
      // The details (hosts, ports) go to the log, not to whoever asks.
      logger.warn({ reason: (error as Error).message }, 'health check: storage unavailable');
      storage = 'unavailable';
    }
    const healthy = storage === 'ok';
    ctx.status = healthy ? 200 : 503;
    ctx.set('cache-control', 'no-store');
    ctx.body = { status: healthy ? 'ok' : 'unavailable', storage, profile: config.profile };
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
