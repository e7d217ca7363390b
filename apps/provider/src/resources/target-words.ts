/**
 * oidc-provider answers a token or refresh request naming another resource than its grant's with
 * `invalid_target` and the words "resource indicator is missing, or unknown"; this says which
 * resource and why. Every other answer passes untouched.
 */
import type { Middleware } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { ProfileDefinition } from '../deployment/profiles.ts';
import { routeKey, routeOf } from '../http/route-key.ts';

const LIBRARY_WORDS = 'resource indicator is missing, or unknown';

export function targetWords(profile: ProfileDefinition): Middleware {
  const token = routeKey(profile.routes.token);
  return (ctx, next) => {
    if (ctx.method !== 'POST' || routeOf(ctx) !== token) return next();
    return next().then(() => {
      const body = ctx.body as { error?: unknown; error_description?: unknown } | undefined;
      if (ctx.status !== 400 || body?.error !== 'invalid_target' || body.error_description !== LIBRARY_WORDS) return;
      const resource = (ctx as unknown as KoaContextWithOIDC).oidc?.params?.resource;
      const named = typeof resource === 'string' ? resource : 'the resource asked for';
      body.error_description = `${named} is not the resource this grant was made for: a token request and a refresh may ask only for a resource the authorization request named`;
    });
  };
}
