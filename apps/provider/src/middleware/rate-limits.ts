/**
 * Rate limits in front of oidc-provider's registration, token and authorization endpoints,
 * keyed on the route that will serve the request (routeKey), so /REG, /reg/ and /reg share one
 * budget. The interaction POST is limited in its own route.
 */
import type { Middleware } from 'koa';
import { type LimitBucket, type RateLimits, routeKey, routeOf } from '../limits.ts';
import type { ProfileDefinition } from '../profiles.ts';

export function rateLimitedRoutes(profile: ProfileDefinition, limits: RateLimits): Middleware {
  const limited = new Map<string, { methods: string[]; bucket: LimitBucket }>([
    [routeKey(profile.routes.registration), { methods: ['POST'], bucket: 'registration' }],
    [routeKey(profile.routes.token), { methods: ['POST'], bucket: 'token' }],
    // Every authorization request creates an interaction in storage: bounded per address.
    [routeKey(profile.routes.authorization), { methods: ['GET', 'HEAD', 'POST'], bucket: 'authorization' }],
  ]);
  // Not an async function: a request to any other route passes straight on, with no promise of its own.
  return (ctx, next) => {
    const route = limited.get(routeOf(ctx));
    if (!route?.methods.includes(ctx.method)) return next();
    return limits.check(ctx, route.bucket).then(() => next());
  };
}
