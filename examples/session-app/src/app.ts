/**
 * Application A: sign-in with Ethereum into an encrypted cookie session, no OpenID Connect.
 *
 *   GET  /api/nonce    a fresh nonce, kept in the session          → 200 { nonce }
 *   POST /api/verify   { message, signature }                        → 200 { address, chainId }
 *                      or { error: { type, message } }: 401 INVALID_SIGNATURE, 503 RPC_UNAVAILABLE, 400 otherwise
 *   GET  /api/me       → 200 { address, chainId } or 401
 *   POST /api/logout   destroys the session                          → 200 { ok: true }
 *
 * The routes are in routes.ts, the verification's steps in verify.ts.
 */
import { ironSession, rateLimit } from '@signet/hono-kit';
import { createRateLimiter } from '@signet/ratelimit';
import { type ChainRegistry, createChainRegistry } from '@signet/siwe';
import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import type { SessionAppConfig } from './config.ts';
import { type AppDeps, type Env, failure, SESSION_TTL_SECONDS, type SessionData } from './context.ts';
import type { PageAssets } from './page.ts';
import { createMemorySessionRecords, createRedisSessionRecords, type SessionRecords } from './records.ts';
import { pageRoutes, sessionRoutes } from './routes.ts';
import { verifyRoute } from './verify.ts';

export { NONCE_MAX_AGE_MS } from './context.ts';

export type SessionAppOptions = {
  /** "Now", for tests that move time. */
  now?: () => number;
  chains?: ChainRegistry;
  assets?: PageAssets;
  /** Issued nonces and ended sessions (default: memory, or Redis with REDIS_URL). */
  records?: SessionRecords;
};

const SECURITY_HEADERS = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    connectSrc: ["'self'"],
    imgSrc: ["'self'", 'data:'],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
  },
  referrerPolicy: 'no-referrer',
});

export function buildSessionApp(config: SessionAppConfig, options: SessionAppOptions = {}) {
  const now = options.now ?? Date.now;
  const app = new Hono<Env>();
  const deps: AppDeps = {
    app,
    config,
    now,
    chains: options.chains ?? createChainRegistry(config.rpcUrls, { signatureVerifiers: config.signatureVerifiers }),
    records: options.records ?? (config.redisUrl ? createRedisSessionRecords(config.redisUrl) : createMemorySessionRecords(now)),
  };
  app.use(SECURITY_HEADERS);
  app.use(
    '/api/*',
    ironSession<SessionData>({
      password: config.sessionSecret,
      cookieName: 'siwe_session',
      ttl: SESSION_TTL_SECONDS,
      secure: config.production,
    }),
  );
  const limited = (limit: number, windowSeconds: number, name: string) =>
    rateLimit({
      limiter: createRateLimiter({ limit, windowSeconds, now, prefix: `${name}:` }),
      trustProxy: config.trustProxy,
      onLimited: (c, result) => failure(c as never, 'RATE_LIMITED', `too many requests; retry in ${result.retryAfter} s`, 429),
    });
  sessionRoutes(deps, limited(config.rateLimits.nonce, 60, 'nonce'));
  verifyRoute(deps, limited(config.rateLimits.verify, 15 * 60, 'verify'));
  pageRoutes(deps, options.assets);
  app.notFound((c) => c.json({ error: { type: 'NOT_FOUND', message: 'no such route' } }, 404));
  app.onError((error, c) => {
    console.error(error);
    return c.json({ error: { type: 'INTERNAL', message: 'internal error' } }, 500);
  });
  return app;
}
