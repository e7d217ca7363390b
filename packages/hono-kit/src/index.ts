/**
 * Hono middleware shared by the reference client and the example backends.
 */
import { getConnInfo } from '@hono/node-server/conninfo';
import { clientAddress, type RateLimiter, type RateLimitResult, rateLimitKey } from '@signet/ratelimit';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { getIronSession, type IronSession } from 'iron-session';

export type SessionCookieOptions = {
  /** 32+ characters (the apps' settings check it). */
  password: string;
  cookieName: string;
  /** Seconds; also the cookie's Max-Age. */
  ttl: number;
  /** Secure cookies (production, https). */
  secure: boolean;
};

/**
 * An encrypted cookie session (iron-session) on `c.var.session`: httpOnly, SameSite=Lax,
 * Secure when asked, for the whole site.
 */
export function ironSession<T extends object>(
  options: SessionCookieOptions,
): MiddlewareHandler<{ Variables: { session: IronSession<T> } }> {
  if (options.password.length < 32) throw new RangeError('the session password must have at least 32 characters');
  const cookie = { httpOnly: true, sameSite: 'Lax' as const, secure: options.secure, path: '/' };
  return async (c, next) => {
    const store = {
      get: (name: string) => {
        const value = getCookie(c, name);
        return value === undefined ? undefined : { name, value };
      },
      set: (name: string, value: string, opts?: { maxAge?: number }) => {
        setCookie(c, name, value, { ...cookie, ...(opts?.maxAge !== undefined ? { maxAge: opts.maxAge } : {}) });
      },
    };
    const session = await getIronSession<T>(store as never, {
      password: options.password,
      cookieName: options.cookieName,
      ttl: options.ttl,
      cookieOptions: { httpOnly: true, sameSite: 'lax', secure: options.secure, path: '/' },
    });
    c.set('session', session);
    await next();
  };
}

/**
 * The client's address: the socket's, or, only when the proxy is trusted, the last
 * X-Forwarded-For entry (the one that proxy appended; earlier entries are the client's to forge).
 */
export function clientIp(c: Context, trustProxy: boolean): string {
  let socket: string | undefined;
  try {
    socket = getConnInfo(c).remote.address;
  } catch {
    socket = undefined; // not served by @hono/node-server (in-process test requests)
  }
  return clientAddress(socket, c.req.header('x-forwarded-for'), trustProxy);
}

/**
 * Refuses requests over the limiter's budget with `onLimited`'s response (and Retry-After).
 * Budgets are per IPv4 address and per IPv6 /64 (rateLimitKey).
 */
export function rateLimit(options: {
  limiter: RateLimiter;
  trustProxy: boolean;
  onLimited: (c: Context, result: RateLimitResult) => Response | Promise<Response>;
}): MiddlewareHandler {
  return async (c, next) => {
    const result = await options.limiter(rateLimitKey(clientIp(c, options.trustProxy)));
    c.header('RateLimit-Limit', String(result.limit));
    c.header('RateLimit-Remaining', String(result.remaining));
    if (!result.allowed) {
      c.header('Retry-After', String(result.retryAfter));
      return options.onLimited(c, result);
    }
    await next();
  };
}
