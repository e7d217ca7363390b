/**
 * Discovery and the key set: the profile's advertised values where the spec's table lists a
 * subset of what works, and cache headers (nothing in either depends on the request: URLs come
 * from ISSUER alone, so shared caches may keep them).
 *
 * The hosted profile's issuer ends in `/`; relying parties that append the well-known path to the
 * issuer as written (django-allauth) ask for `//.well-known/openid-configuration`, which answers
 * the same document (it names the issuer as it is, so their issuer check still holds).
 */
import type { Middleware } from 'koa';
import type { ProfileDefinition } from '../deployment/profiles.ts';
import { routeKey, routeOf } from '../http/route-key.ts';

const DISCOVERY_PATH = '/.well-known/openid-configuration';
const DISCOVERY_ROUTE = routeKey(DISCOVERY_PATH);
const DOUBLE_SLASH_ROUTE = routeKey(`/${DISCOVERY_PATH}`);

export function discoveryValues(profile: ProfileDefinition): Middleware {
  const jwksRoute = routeKey(profile.routes.jwks);
  return (ctx, next) => {
    // Decided before the route runs (no later middleware rewrites these two paths), so every
    // other request passes straight on.
    let route = routeOf(ctx);
    if (route === DOUBLE_SLASH_ROUTE && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      ctx.path = DISCOVERY_PATH;
      route = routeOf(ctx);
    }
    if (route !== DISCOVERY_ROUTE && route !== jwksRoute) return next();
    return next().then(() => {
      if (ctx.status !== 200) return;
      ctx.set('cache-control', `public, max-age=${route === jwksRoute ? 60 : 300}`);
      if (route !== DISCOVERY_ROUTE || typeof ctx.body !== 'object') return;
      const body = ctx.body as Record<string, unknown>;
      if (profile.advertisedScopes) body.scopes_supported = profile.advertisedScopes;
      if (profile.advertisedClaims) body.claims_supported = profile.advertisedClaims;
      if (profile.advertisedClientAuthMethods) body.token_endpoint_auth_methods_supported = profile.advertisedClientAuthMethods;
      if (profile.advertisedSubjectTypes) body.subject_types_supported = profile.advertisedSubjectTypes;
      const hidden = profile.unadvertised;
      if (hidden) {
        body.scopes_supported = (body.scopes_supported as string[]).filter((scope) => !hidden.scopes.includes(scope));
        body.claims_supported = (body.claims_supported as string[]).filter((claim) => !hidden.claims.includes(claim));
      }
    });
  };
}
