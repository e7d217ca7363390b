/**
 * OIDC lets clients POST authorization and logout requests (form-encoded). oidc-provider takes
 * POST there only with SameSite=None session cookies; instead, a POST is answered with a 303 to
 * the same request as a GET, a top-level navigation that carries the SameSite=Lax cookies.
 */
import parseBody from 'co-body';
import type { Context, Middleware } from 'koa';
import type { ProfileDefinition } from '../deployment/profiles.ts';
import { routeKey, routeOf } from './route-key.ts';

export function postAsGet(profile: ProfileDefinition): Middleware {
  const routes = new Set([routeKey(profile.routes.authorization), routeKey(profile.routes.end_session)]);
  return (ctx, next) => (ctx.method === 'POST' && routes.has(routeOf(ctx)) ? redirectAsGet(ctx) : next());
}

/** The form-encoded POST, answered with a 303 to the same request as a GET. */
async function redirectAsGet(ctx: Context) {
  if (!ctx.is('application/x-www-form-urlencoded')) {
    ctx.status = 400;
    ctx.body = {
      error: 'invalid_request',
      error_description: `POST ${ctx.path} takes application/x-www-form-urlencoded parameters`,
    };
    return;
  }
  let params: Record<string, unknown>;
  try {
    params = await parseBody.form(ctx, { limit: '64kb' });
  } catch (error) {
    ctx.status = (error as { status?: number }).status === 413 ? 413 : 400;
    ctx.body = {
      error: 'invalid_request',
      error_description: `the request body could not be read (${(error as Error).message})`,
    };
    return;
  }
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (typeof value === 'string') query.append(key, value);
    else if (Array.isArray(value)) for (const item of value) query.append(key, String(item));
  }
  ctx.set('cache-control', 'no-store');
  ctx.status = 303;
  ctx.redirect(`${ctx.path}?${query}`);
}
