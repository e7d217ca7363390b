/**
 * Discovery and the key set: the profile's advertised values where the spec's table lists a
 * subset of what works, and cache headers (nothing in either depends on the request: URLs come
 * from ISSUER alone, so shared caches may keep them).
 */
import type { Middleware } from 'koa';
import type { ProfileDefinition } from '../deployment/profiles.ts';
import { routeKey, routeOf } from '../http/route-key.ts';

const DISCOVERY_ROUTE = routeKey('/.well-known/openid-configuration');

export function discoveryValues(profile: ProfileDefinition): Middleware {
  const jwksRoute = routeKey(profile.routes.jwks);
  return (ctx, next) => {
    // Decided before the route runs (no later middleware rewrites these two paths), so every
    // other request passes straight on.
    const route = routeOf(ctx);
    if (route !== DISCOVERY_ROUTE && route !== jwksRoute) return next();
    return next().then(() => {
      if (ctx.status !== 200) return;
      ctx.set('cache-control', `public, max-age=${route === jwksRoute ? 60 : 300}`);
      if (route !== DISCOVERY_ROUTE || typeof ctx.body !== 'object') return;
      const body = ctx.body as Record<string, unknown>;
      if (profile.advertisedScopes) body.scopes_supported = profile.advertisedScopes;
      if (profile.advertisedClaims) body.claims_supported = profile.advertisedClaims;
      if (profile.advertisedClientAuthMethods) body.token_endpoint_auth_methods_supported = profile.advertisedClientAuthMethods;
    });
  };
}
