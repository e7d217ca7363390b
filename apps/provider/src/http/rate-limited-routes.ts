/**
 * Rate limits in front of oidc-provider's registration, token and authorization endpoints,
 * keyed on the route that will serve the request (routeKey), so /REG, /reg/ and /reg share one
 * budget. Client management (`/reg/<id>`, hosted `/client/<id>`: read, update, delete) shares the
 * registration budget, pushed authorization requests (`/request`) and device authorization
 * requests (`/device/auth`) the authorization one, and
 * userinfo requests carrying a DPoP proof the token one: each stores something. The interaction POST is limited in its own route.
 */
import type { Middleware } from 'koa';
import type { ProfileDefinition } from '../deployment/profiles.ts';
import type { LimitBucket, RateLimits } from './rate-limits.ts';
import { foldPath, routeKey, routeOf } from './route-key.ts';

export function rateLimitedRoutes(profile: ProfileDefinition, limits: RateLimits): Middleware {
  const limited = new Map<string, { methods: string[]; bucket: LimitBucket }>([
    [routeKey(profile.routes.registration), { methods: ['POST'], bucket: 'registration' }],
    [routeKey(profile.routes.token), { methods: ['POST'], bucket: 'token' }],
    // Every authorization request creates an interaction in storage: bounded per address.
    [routeKey(profile.routes.authorization), { methods: ['GET', 'HEAD', 'POST'], bucket: 'authorization' }],
    [routeKey(profile.routes.pushed_authorization_request), { methods: ['POST'], bucket: 'authorization' }],
    // A device authorization request stores a device code (RFC 8628): in the same budget.
    [routeKey(profile.routes.device_authorization), { methods: ['POST'], bucket: 'authorization' }],
  ]);
  // A userinfo request with a DPoP proof stores the proof (one use, until it expires): counted
  // with the token requests, whose proofs are stored alike. Bearer requests store nothing.
  const userinfo = routeKey(profile.routes.userinfo);
  // The profile's public management path (hosted: /client/<id>), before it is mapped onto
  // oidc-provider's; on the hosted profile oidc-provider's own /register/<id> answers 404 unlimited.
  const management = foldPath(`${profile.clientManagementPath}/`);
  // Not an async function: a request to any other route passes straight on, with no promise of its own.
  return (ctx, next) => {
    const key = routeOf(ctx);
    const route = limited.get(key);
    if (route?.methods.includes(ctx.method)) return limits.check(ctx, route.bucket).then(() => next());
    if (key === userinfo && ctx.get('dpop') !== '') return limits.check(ctx, 'token').then(() => next());
    if (key.startsWith(management) && key.length > management.length && ctx.method !== 'OPTIONS') {
      return limits.check(ctx, 'registration').then(() => next());
    }
    return next();
  };
}
