/**
 * Application B: a stateless JSON API that verifies Sign-In with Ethereum messages, Sign In With
 * Solana ones when SOLANA_NETWORKS names a cluster, and Sign in with Bitcoin ones when
 * BITCOIN_NETWORKS names a network; its README lists its routes, processing order, messages and
 * status codes.
 */
import { clientIp, rateLimit } from '@signet/hono-kit';
import { createRateLimiter } from '@signet/ratelimit';
import { type ChainRegistry, createChainRegistry } from '@signet/siwe';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { secureHeaders } from 'hono/secure-headers';
import type { JsonApiConfig } from './config.ts';
import { HttpError } from './errors.ts';
import { createTokens } from './helpers.ts';
import { MESSAGES } from './messages.ts';
import { createMemoryNonceStore, type NonceStore } from './nonces.ts';
import { readInput, type VerifyDeps, verificationError, verifyAny } from './verify.ts';

export { MESSAGES } from './messages.ts';

/** The 15-minute window of 100 requests per client address. */
export const RATE_LIMIT = { limit: 100, windowSeconds: 15 * 60 };
export const BODY_LIMIT_BYTES = 10 * 1024 * 1024;

export type JsonApiOptions = {
  now?: () => number;
  nonces?: NonceStore;
  chains?: ChainRegistry;
};

type Envelope = { success: false; error: { message: string; details?: unknown; stack?: string } };

export function buildJsonApi(config: JsonApiConfig, options: JsonApiOptions = {}) {
  const now = options.now ?? Date.now;
  const nonces = options.nonces ?? createMemoryNonceStore();
  const chains = options.chains ?? createChainRegistry(config.rpcUrls, { signatureVerifiers: config.signatureVerifiers });
  const development = config.environment === 'development';
  const tokens = createTokens({ secret: config.tokenSecret, now });
  const deps: VerifyDeps = { config, nonces, chains, now };
  const app = new Hono();

  const envelope = (message: string, details?: unknown, stack?: string): Envelope => ({
    success: false,
    error: {
      message,
      ...(details === undefined ? {} : { details }),
      ...(development && stack ? { stack } : {}),
    },
  });

  app.use(secureHeaders());
  app.use(
    cors({
      origin: (origin) => (config.frontendOrigins.includes(origin) ? origin : null),
      credentials: true,
    }),
  );
  app.use(
    rateLimit({
      limiter: createRateLimiter({ ...RATE_LIMIT, now }),
      trustProxy: config.trustProxy,
      onLimited: (c) => c.json(envelope(MESSAGES.rateLimited), 429),
    }),
  );
  app.use(
    bodyLimit({
      maxSize: BODY_LIMIT_BYTES,
      onError: (c) => c.json(envelope(MESSAGES.tooLarge), 413),
    }),
  );

  app.get('/health', (c) => c.json({ status: 'OK', timestamp: new Date(now()).toISOString(), message: MESSAGES.healthy }));

  app.get('/auth/nonce', async (c) => {
    try {
      return c.json({ success: true, nonce: await nonces.create(now()) });
    } catch (error) {
      throw new HttpError(500, MESSAGES.nonceFailed, { cause: error });
    }
  });

  app.post('/auth/verify', async (c) => {
    const { message, signature } = await readInput(c);
    try {
      const { claims, user } = await verifyAny(deps, message, signature);
      return c.json({ success: true, token: await tokens.issue(claims), user, message: MESSAGES.authenticated });
    } catch (error) {
      throw verificationError(error);
    }
  });

  // The signed-in user of a token /auth/verify returned (requireAuth in use).
  app.get('/auth/me', tokens.requireAuth, (c) => c.json({ success: true, user: c.get('auth') }));

  // Stateless: the client forgets its sign-in (and its token, which expires within the hour).
  app.post('/auth/logout', (c) => c.json({ success: true, message: MESSAGES.loggedOut }));

  app.get('/auth/stats', async (c) => {
    if (config.environment === 'production') return c.json(envelope(MESSAGES.routeNotFound), 404);
    return c.json({ success: true, stats: await nonces.stats(now()) });
  });

  app.notFound((c) => c.json(envelope(MESSAGES.routeNotFound), 404));

  app.onError((error, c: Context) => {
    // The spec's global handler: the error's status (else 500) and message (else the generic one).
    const status = error instanceof HttpError ? error.status : 500;
    const message = (error instanceof HttpError && error.message) || MESSAGES.internal;
    if (status >= 500) console.error({ path: c.req.path, ip: clientIp(c, config.trustProxy) }, error);
    return c.json(envelope(message, error instanceof HttpError ? error.details : undefined, error.stack), status as 400);
  });

  let timer: NodeJS.Timeout | undefined;
  return {
    app,
    nonces,
    /** Removes nonces older than 10 minutes every 5 minutes (the spec's cleanup). */
    startCleanup(intervalMs = 5 * 60_000) {
      timer ??= setInterval(() => {
        nonces.cleanup(now()).catch((error) => console.error('nonce cleanup failed', error));
      }, intervalMs);
      timer.unref();
    },
    async close() {
      if (timer) clearInterval(timer);
      await nonces.close();
    },
  };
}
