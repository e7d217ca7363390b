/**
 *   GET  /api/nonce    a fresh nonce, kept in the session          → 200 { nonce }
 *   GET  /api/me       → 200 { address, chainId } or 401
 *   POST /api/logout   destroys the session                          → 200 { ok: true }
 *   GET  /             the page, and its assets
 */
import { generateNonce } from '@signet/siwe';
import type { MiddlewareHandler } from 'hono';
import { type AppDeps, type Env, failure, NONCE_MAX_AGE_MS, SESSION_TTL_SECONDS } from './context.ts';
import { type PageAssets, pageHtml } from './page.ts';

export function sessionRoutes({ app, now, records }: AppDeps, limit: MiddlewareHandler<Env>): void {
  app.get('/api/nonce', limit, async (c) => {
    const session = c.get('session');
    session.nonce = generateNonce();
    session.nonceIssuedAt = now();
    await records.issueNonce(session.nonce, NONCE_MAX_AGE_MS);
    await session.save();
    c.header('cache-control', 'no-store');
    return c.json({ nonce: session.nonce });
  });

  app.get('/api/me', async (c) => {
    const { address, chainId, sessionId } = c.get('session');
    if (!address || chainId === undefined || !sessionId || (await records.isEnded(sessionId)))
      return failure(c, 'NOT_AUTHENTICATED', 'sign in first', 401);
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
}

export function pageRoutes({ app }: AppDeps, assets: PageAssets | undefined): void {
  app.get('/', (c) => c.html(pageHtml(assets)));
  for (const [path, { type, content }] of Object.entries(assets?.files ?? {})) {
    app.get(path, (c) => {
      c.header('content-type', type);
      c.header('cache-control', 'public, max-age=31536000, immutable');
      return c.body(content);
    });
  }
}
