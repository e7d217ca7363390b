/**
 * Errors around oidc-provider's own endpoints: an HttpError (a rate limit, an unreachable
 * storage) thrown by Signet's middleware becomes its OAuth-shaped JSON answer; a storage failure
 * inside oidc-provider's routes (which oidc-provider answers 500 server_error and reports through
 * its server_error event) becomes a 503. Never a hang or a bare 500 for an outage.
 */
import type { Context, Middleware } from 'koa';
import type { Provider } from 'oidc-provider';
import { type HttpError, sendError, toHttpError } from '../errors.ts';
import { routeLabel } from '../observability/access-log.ts';
import type { Metrics } from '../observability/metrics.ts';

export function errorBoundary(provider: Provider, metrics: Metrics): Middleware {
  const storageFailed = new WeakMap<object, HttpError>();
  provider.on('server_error', (ctx: Context, error: Error) => {
    const known = toHttpError(error);
    if (known?.code === 'STORAGE_UNAVAILABLE') storageFailed.set(ctx, known);
  });
  return async (ctx, next) => {
    let failure: HttpError | undefined;
    try {
      await next();
      failure = storageFailed.get(ctx);
    } catch (error) {
      failure = toHttpError(error);
      if (!failure) throw error;
    }
    if (!failure) return;
    if (failure.code === 'STORAGE_UNAVAILABLE') metrics.storageError(routeLabel(ctx));
    sendError(ctx, failure, { wire: 'oauth' });
  };
}
