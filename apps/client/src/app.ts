/**
 * The reference relying party: a Hono app with the spec's four routes and a small page, each
 * group of routes in its module (routes/): sign-in (login, callback, me), logout, the page.
 *
 * Nothing another site can make a browser do changes the session: a callback changes it only
 * when its `state` is the pending sign-in's, and logout needs this site's own page.
 */
import { ironSession } from '@signet/hono-kit';
import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import type * as oidc from 'openid-client';
import type { ClientConfig } from './config.ts';
import { lazyOidcConfig } from './discovery.ts';
import { createRegistrar, type RegistrationOptions } from './registration.ts';
import type { Env } from './routes/context.ts';
import { logoutRoutes } from './routes/logout.ts';
import { pageRoutes } from './routes/pages.ts';
import { signInRoutes } from './routes/sign-in.ts';
import type { SessionData } from './session.ts';

export type { SessionUser } from './session.ts';

const SESSION_COOKIE = 'signet_rp';

export type ClientAppOptions = RegistrationOptions & {
  /** openid-client options (allowInsecureRequests for a provider on http://localhost). */
  execute?: ((config: oidc.Configuration) => void)[];
};

const SECURITY_HEADERS = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    imgSrc: ["'self'", 'https:', 'data:', 'http://localhost:*', 'http://127.0.0.1:*'],
    styleSrc: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
  },
  referrerPolicy: 'no-referrer',
  crossOriginResourcePolicy: 'same-origin',
});

export function buildClientApp(config: ClientConfig, options: ClientAppOptions = {}) {
  const registrar = createRegistrar(config, options);
  const app = new Hono<Env>();
  app.use(SECURITY_HEADERS);
  app.use(
    ironSession<SessionData>({
      password: config.sessionSecret,
      cookieName: SESSION_COOKIE,
      ttl: 24 * 3600,
      secure: config.production,
    }),
  );
  const deps = { app, config, oidcConfig: lazyOidcConfig(config, registrar, options.execute) };
  signInRoutes(deps);
  logoutRoutes(deps);
  pageRoutes(deps);
  app.notFound((c) => c.json({ error: 'not_found' }, 404));
  app.onError((error, c) => {
    console.error(error);
    return c.json({ error: 'server_error' }, 500);
  });
  return { app, registration: () => registrar.get() };
}
