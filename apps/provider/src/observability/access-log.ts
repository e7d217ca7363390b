/**
 * One access-log line per request: request id, method, route, path (never the query string,
 * which carries codes, states and ID token hints), status, latency and client address, and the
 * trace id (`trace_id`) when tracing is on.
 * Health checks and metrics scrapes log at debug, so a load balancer does not flood the log.
 */
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from './logger.ts';

/** A request id from the proxy in front is kept only when TRUST_PROXY says there is one. */
const PROXY_REQUEST_ID = /^[A-Za-z0-9._:@-]{1,128}$/;
const QUIET_ROUTES = new Set(['health', 'metrics']);
const MAX_LOGGED_PATH = 200;

/** A bounded label for a request: oidc-provider's route name, else the first path segment. */
export function routeLabel(ctx: Context): string {
  const route = (ctx as unknown as { oidc?: { route?: string } }).oidc?.route;
  if (route) return route;
  const first = /^\/([a-z-]+)(?:\/|$)/i.exec(ctx.path)?.[1]?.toLowerCase();
  return first && ['interaction', 'logo', 'health', 'legal', 'metrics', 'assets'].includes(first) ? first : 'other';
}

export function accessLog(logger: Logger, options: { trustProxy: boolean }) {
  const logged = async (ctx: Context, next: Next, reqId: string) => {
    const started = process.hrtime.bigint();
    // The path as received, before any middleware rewrites it.
    const path = ctx.path.length > MAX_LOGGED_PATH ? `${ctx.path.slice(0, MAX_LOGGED_PATH)}…` : ctx.path;
    let failed = false;
    try {
      await next();
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      const route = routeLabel(ctx);
      // An error thrown past us becomes Koa's 500 (or its own status) after this line.
      const status = failed ? 500 : ctx.status;
      const ms = Number((process.hrtime.bigint() - started) / 1000n) / 1000;
      const level = QUIET_ROUTES.has(route) && status < 500 ? 'debug' : 'info';
      if (logger.isLevelEnabled(level)) {
        logger[level](
          { reqId, method: ctx.method, route, path, status, ms, ip: ctx.ip, trace_id: ctx.state.traceId },
          `${ctx.method} ${path} ${status} ${ms.toFixed(1)} ms`,
        );
      }
    }
  };
  return (ctx: Context, next: Next) => {
    const given = ctx.get('x-request-id');
    const reqId = options.trustProxy && PROXY_REQUEST_ID.test(given) ? given : randomUUID();
    ctx.state.reqId = reqId;
    ctx.set('X-Request-Id', reqId);
    // No line at this level (LOG_LEVEL above info; debug lines need info too): no timing, no wrapper.
    return logger.isLevelEnabled('info') ? logged(ctx, next, reqId) : next();
  };
}
