/**
 * Pushed authorization requests (RFC 9126, `POST /request`) are stored before anything else
 * happens to them, so their size is bounded before oidc-provider reads the body: at most
 * PUSHED_REQUEST_LIMIT bytes (what a `GET /auth` URL can carry under Node's 16 KB header limit),
 * announced by Content-Length (a body without one is refused rather than read). oidc-provider's
 * own body limit (56 KB) stays for every other endpoint.
 */
import type { Middleware } from 'koa';
import type { ProfileDefinition } from '../deployment/profiles.ts';
import { routeKey, routeOf } from './route-key.ts';

export const PUSHED_REQUEST_LIMIT = 16 * 1024;

export function pushedRequestSize(profile: ProfileDefinition): Middleware {
  const route = routeKey(profile.routes.pushed_authorization_request);
  return (ctx, next) => {
    if (ctx.method !== 'POST' || routeOf(ctx) !== route) return next();
    const declared = ctx.get('content-length');
    if (declared === '' || !/^\d+$/.test(declared)) {
      ctx.status = 411;
      ctx.body = { error: 'invalid_request', error_description: 'a pushed authorization request needs a Content-Length' };
      return undefined;
    }
    if (Number(declared) > PUSHED_REQUEST_LIMIT) {
      ctx.status = 413;
      ctx.body = {
        error: 'invalid_request',
        error_description: `a pushed authorization request may have at most ${PUSHED_REQUEST_LIMIT} bytes`,
      };
      return undefined;
    }
    return next();
  };
}
