/**
 * Application A: sign-in with Ethereum into an encrypted cookie session, no OpenID Connect.
 *
 *   GET  /api/nonce    a fresh nonce, kept in the session          → 200 { nonce }
 *   POST /api/verify   { message, signature }                        → 200 { address, chainId }
 *                      or { error: { type, message } }: 401 INVALID_SIGNATURE, 503 RPC_UNAVAILABLE, 400 otherwise
 *   GET  /api/me       → 200 { address, chainId } or 401
 *   POST /api/logout   destroys the session                          → 200 { ok: true }
 *
 * POST /api/verify checks, in the spec's order: domain (EXPECTED_DOMAIN, else the Host header) and
 * the URI's origin (https on that domain; http too on loopback),
 * nonce (the session's; it is then cleared, so each nonce serves one attempt), the signature by
 * recovery, the message's times, and last EIP-1271/6492 on chain for contract wallets.
 */
import { randomUUID } from 'node:crypto';
import { ironSession, rateLimit } from '@signet/hono-kit';
import { createRateLimiter } from '@signet/ratelimit';
import {
  type ChainRegistry,
  createChainRegistry,
  generateNonce,
  isEoaSignatureOf,
  isSiweError,
  MAX_SIWE_MESSAGE_LENGTH,
  parseSiweMessage,
  siweErrorStatus,
  validateSiweFields,
  validateSiweTimes,
  verifyContractWalletSignature,
} from '@signet/siwe';
import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import type { IronSession } from 'iron-session';
import type { SessionAppConfig } from './config.ts';
import { type PageAssets, pageHtml } from './page.ts';
import { createMemorySessionRecords, createRedisSessionRecords, type SessionRecords } from './records.ts';

type SessionData = { nonce?: string; nonceIssuedAt?: number; address?: string; chainId?: number; sessionId?: string };

/** How long a session lives (the cookie's lifetime, and how long an ended one is remembered). */
const SESSION_TTL_SECONDS = 24 * 3600;

/** A nonce must be used within this time (the spec: expire nonces after a few minutes). */
export const NONCE_MAX_AGE_MS = 10 * 60_000;

export type SessionAppOptions = {
  /** "Now", for tests that move time. */
  now?: () => number;
  chains?: ChainRegistry;
  assets?: PageAssets;
  /** Issued nonces and ended sessions (default: memory, or Redis with REDIS_URL). */
  records?: SessionRecords;
};

type ErrorBody = { error: { type: string; message: string } };

const LOOPBACK_HOST = /^(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/i;

export function buildSessionApp(config: SessionAppConfig, options: SessionAppOptions = {}) {
  /**
   * The domain a message must name: EXPECTED_DOMAIN; without it, the Host header only when it is
   * a loopback host (development on any port), else `localhost:<PORT>`. A Host the client sets
   * to anything else never becomes the expected domain (a signature made for evil.example, sent
   * with Host: evil.example, is refused).
   */
  const expectedDomain = (host: string | undefined) =>
    config.expectedDomain ?? (host && LOOPBACK_HOST.test(host) ? host.toLowerCase() : `localhost:${config.port}`);
  /**
   * The origin the message's URI must have: https on the expected domain; on a loopback domain
   * (development) http too. A message whose URI names another site is refused (URI_MISMATCH),
   * even when its domain line is this one's.
   */
  const expectedOrigin = (domain: string, uri: string) =>
    LOOPBACK_HOST.test(domain) && URL.parse(uri)?.protocol === 'http:' ? `http://${domain}` : `https://${domain}`;
  const now = options.now ?? Date.now;
  const chains = options.chains ?? createChainRegistry(config.rpcUrls, { signatureVerifiers: config.signatureVerifiers });
  const records =
    options.records ?? (config.redisUrl ? createRedisSessionRecords(config.redisUrl) : createMemorySessionRecords(now));
  const app = new Hono<{ Variables: { session: IronSession<SessionData> } }>();
  const fail = (type: string, message: string, status: 400 | 401 | 413 | 429 | 503) => ({
    body: { error: { type, message } } satisfies ErrorBody,
    status,
  });

  app.use(
    secureHeaders({
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
    }),
  );
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
      onLimited: (c, result) => c.json(fail('RATE_LIMITED', `too many requests; retry in ${result.retryAfter} s`, 429).body, 429),
    });

  app.get('/api/nonce', limited(config.rateLimits.nonce, 60, 'nonce'), async (c) => {
    const session = c.get('session');
    session.nonce = generateNonce();
    session.nonceIssuedAt = now();
    await records.issueNonce(session.nonce, NONCE_MAX_AGE_MS);
    await session.save();
    c.header('cache-control', 'no-store');
    return c.json({ nonce: session.nonce });
  });

  app.post('/api/verify', limited(config.rateLimits.verify, 15 * 60, 'verify'), async (c) => {
    const session = c.get('session');
    let body: { message?: unknown; signature?: unknown };
    try {
      body = await c.req.json();
    } catch {
      const f = fail('INVALID_REQUEST', 'the body must be JSON: { message, signature }', 400);
      return c.json(f.body, f.status);
    }
    const { message, signature } = body ?? {};
    if (typeof message !== 'string' || typeof signature !== 'string' || !message || !signature) {
      const f = fail('INVALID_REQUEST', '"message" and "signature" are required strings', 400);
      return c.json(f.body, f.status);
    }
    if (message.length > MAX_SIWE_MESSAGE_LENGTH) {
      const f = fail('PAYLOAD_TOO_LARGE', `the message is longer than ${MAX_SIWE_MESSAGE_LENGTH} characters`, 413);
      return c.json(f.body, f.status);
    }
    let nonceUsed = false;
    try {
      const parsed = parseSiweMessage(message);
      // 1. Domain binding (and the chain allow-list), and the URI on this site's origin.
      const domain = expectedDomain(c.req.header('host'));
      validateSiweFields(parsed, { domain, chainIds: config.chainIds, origin: expectedOrigin(domain, parsed.uri) });
      // 2. Nonce: the one this session was given; used once, whatever happens next.
      const expectedNonce = session.nonce;
      if (expectedNonce && now() - (session.nonceIssuedAt ?? 0) > NONCE_MAX_AGE_MS) {
        session.nonce = undefined;
        await session.save();
        const f = fail('NONCE_MISMATCH', 'the nonce expired; GET /api/nonce again', 400);
        return c.json(f.body, f.status);
      }
      if (!expectedNonce) {
        const f = fail('NONCE_MISMATCH', 'no nonce was issued to this session; GET /api/nonce first', 400);
        return c.json(f.body, f.status);
      }
      validateSiweFields(parsed, { nonce: expectedNonce });
      session.nonce = undefined;
      session.nonceIssuedAt = undefined;
      nonceUsed = true;
      // The server's record decides, not the cookie: an old cookie sent again finds the nonce spent.
      if (!(await records.consumeNonce(expectedNonce))) {
        const f = fail('NONCE_MISMATCH', 'this nonce was already used; GET /api/nonce again', 400);
        return c.json(f.body, f.status);
      }
      // 3. Signature by recovery (no network); 4. times; 5. contract wallets on chain, so an
      // expired message never costs an RPC call.
      const isEoa = isEoaSignatureOf(parsed, message, signature);
      validateSiweTimes(parsed, { time: now() });
      if (!isEoa) await verifyContractWalletSignature(parsed, message, signature, chains);

      session.address = parsed.address;
      session.chainId = parsed.chainId;
      session.sessionId = randomUUID();
      await session.save();
      return c.json({ address: parsed.address, chainId: parsed.chainId });
    } catch (error) {
      if (nonceUsed) await session.save(); // the nonce is spent even though this attempt failed
      if (!isSiweError(error)) throw error;
      const status = siweErrorStatus(error.type);
      return c.json(fail(error.type, error.message, status).body, status);
    }
  });

  app.get('/api/me', async (c) => {
    const { address, chainId, sessionId } = c.get('session');
    if (!address || chainId === undefined || !sessionId || (await records.isEnded(sessionId)))
      return c.json(fail('NOT_AUTHENTICATED', 'sign in first', 401).body, 401);
    c.header('cache-control', 'no-store');
    return c.json({ address, chainId });
  });

  app.post('/api/logout', async (c) => {
    const session = c.get('session');
    // Remembered server-side: a copy of the cookie kept from before the logout reads nothing.
    if (session.sessionId) await records.endSession(session.sessionId, SESSION_TTL_SECONDS * 1000);
    session.destroy();
    return c.json({ ok: true });
  });

  app.get('/', (c) => c.html(pageHtml(options.assets)));
  if (options.assets) {
    for (const [path, { type, content }] of Object.entries(options.assets.files)) {
      app.get(path, (c) => {
        c.header('content-type', type);
        c.header('cache-control', 'public, max-age=31536000, immutable');
        return c.body(content);
      });
    }
  }
  app.notFound((c) => c.json({ error: { type: 'NOT_FOUND', message: 'no such route' } }, 404));
  app.onError((error, c) => {
    console.error(error);
    return c.json({ error: { type: 'INTERNAL', message: 'internal error' } }, 500);
  });
  return app;
}
