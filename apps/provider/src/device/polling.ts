/**
 * The device's side of RFC 8628 around oidc-provider's endpoints: the device authorization
 * response names the polling `interval` (§3.2; oidc-provider leaves it out, which means 5 s), and
 * a device that polls the token endpoint sooner than that while the person has not finished is
 * told `slow_down` (§3.5) instead of `authorization_pending`, after which it adds 5 s to its
 * interval. oidc-provider answers `authorization_pending`, `access_denied` and `expired_token`
 * itself; it never paces.
 *
 * The pace is kept per device code in storage (the time of its last pending poll, shared by
 * replicas), written only for a live code still pending: an unknown or finished code stores nothing.
 */
import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import { TTL } from '../deployment/lifetimes.ts';
import type { ProfileDefinition } from '../deployment/profiles.ts';
import { routeKey, routeOf } from '../http/route-key.ts';
import type { Store } from '../storage/index.ts';

/** Seconds a device waits between polls (RFC 8628's default, said out loud). */
export const POLL_INTERVAL_SECONDS = 5;
/** Polls this much sooner than the interval still count as on time (network jitter). */
const TOLERANCE_MS = 500;

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

type OidcView = { oidc?: { params?: { grant_type?: unknown; device_code?: unknown } } };

export function devicePolling(profile: ProfileDefinition, store: Store): Middleware {
  const authorization = routeKey(profile.routes.device_authorization);
  const token = routeKey(profile.routes.token);

  async function withInterval(ctx: Parameters<Middleware>[0], next: () => Promise<unknown>) {
    await next();
    const body = ctx.body as Record<string, unknown> | undefined;
    if (ctx.status === 200 && body && typeof body === 'object' && typeof body.device_code === 'string') {
      body.interval ??= POLL_INTERVAL_SECONDS;
    }
  }

  async function paced(ctx: Parameters<Middleware>[0], next: () => Promise<unknown>) {
    // Polls are timed by their arrival: a device waits its interval after each answer, so two
    // arrivals are at least the interval and the first one's handling apart.
    const now = Date.now();
    await next();
    const body = ctx.body as { error?: unknown } | undefined;
    if (ctx.status !== 400 || body?.error !== 'authorization_pending') return;
    const params = (ctx as unknown as OidcView).oidc?.params;
    if (params?.grant_type !== DEVICE_CODE_GRANT || typeof params.device_code !== 'string') return;
    const key = `device:poll:${createHash('sha256').update(params.device_code).digest('base64url').slice(0, 22)}`;
    const last = Number(await store.get(key));
    await store.set(key, String(now), TTL.DeviceCode + 60);
    if (last > 0 && now - last < POLL_INTERVAL_SECONDS * 1000 - TOLERANCE_MS) {
      ctx.body = {
        error: 'slow_down',
        error_description: `poll at most every ${POLL_INTERVAL_SECONDS} s, and add 5 s to your interval now (RFC 8628 §3.5)`,
      };
    }
  }

  // Not an async function: a request to any other route passes straight on.
  return (ctx, next) => {
    if (ctx.method !== 'POST') return next();
    const route = routeOf(ctx);
    if (route === authorization) return withInterval(ctx, next);
    if (route === token) return paced(ctx, next);
    return next();
  };
}
