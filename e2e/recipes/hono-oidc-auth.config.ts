import { initOidcAuthMiddleware, oidcAuthMiddleware, processOAuthCallback, revokeSession } from '@hono/oidc-auth';
import { Hono } from 'hono';

/**
 * @hono/oidc-auth with Signet. Register a confidential client (client_secret_basic, the
 * library's method) with the redirect URI {APP}/callback. The same values can come from the
 * environment instead (OIDC_ISSUER, OIDC_CLIENT_ID, … through Hono's env()).
 */
export function signetApp(env: {
  SIGNET_ISSUER: string; // exactly the discovery document's "issuer" (hosted: with its trailing slash)
  SIGNET_CLIENT_ID: string;
  SIGNET_CLIENT_SECRET: string;
  REDIRECT_URI: string; // {APP}/callback, as registered
  SESSION_SECRET: string; // 32+ random characters: signs the session cookie
}) {
  const app = new Hono();
  app.use(
    '*',
    initOidcAuthMiddleware({
      OIDC_ISSUER: env.SIGNET_ISSUER,
      OIDC_CLIENT_ID: env.SIGNET_CLIENT_ID,
      OIDC_CLIENT_SECRET: env.SIGNET_CLIENT_SECRET,
      OIDC_REDIRECT_URI: env.REDIRECT_URI,
      OIDC_AUTH_SECRET: env.SESSION_SECRET,
      OIDC_SCOPES: 'openid profile',
    }),
  );
  app.get('/logout', async (c) => {
    await revokeSession(c);
    return c.text('signed out');
  });
  app.get('/callback', (c) => processOAuthCallback(c));
  app.use('*', oidcAuthMiddleware());
  // The session keeps sub (the account) and email; the ID token's other claims are in the callback.
  app.get('/', (c) => c.json({ sub: c.get('oidcAuth')?.sub }));
  return app;
}
