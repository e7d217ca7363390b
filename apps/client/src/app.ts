/**
 * The reference relying party: a Hono app with the spec's four routes and a small page.
 *
 *   GET /api/auth/login     state + PKCE (S256) verifier + nonce into the session, redirect to the provider
 *   GET /api/auth/callback  check state, exchange the code, validate the ID token, fetch userinfo, sign in
 *   GET /api/auth/me        { sub, preferredUsername, picture } or 401
 *   GET /api/auth/logout    same-origin (the page's own link): as POST; from anywhere else, a page asking to confirm
 *   POST /api/auth/logout   with the session's CSRF token: clear the session, redirect to the provider's end_session_endpoint
 *
 * Nothing another site can make a browser do changes the session: a callback changes it only
 * when its `state` is the pending sign-in's, and logout needs this site's own page.
 */

import { randomBytes, timingSafeEqual } from 'node:crypto';
import { ironSession } from '@signet/hono-kit';
import { type Context, Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import type { IronSession } from 'iron-session';
import * as oidc from 'openid-client';
import type { ClientConfig } from './config.ts';
import { LOGO_SVG, renderHome, renderLogoutConfirmation, STYLES } from './page.ts';
import { createRegistrar, type RegistrationOptions } from './registration.ts';
import type { SessionData, SessionUser } from './session.ts';

export type { SessionUser } from './session.ts';

const SESSION_COOKIE = 'signet_rp';
/** A sign-in left pending longer than this is abandoned. */
const PENDING_TTL_MS = 10 * 60_000;

export type ClientAppOptions = RegistrationOptions & {
  /** openid-client options (allowInsecureRequests for a provider on http://localhost). */
  execute?: ((config: oidc.Configuration) => void)[];
};

/** The session's CSRF token, made (and saved) on first use. */
async function csrfToken(session: IronSession<SessionData>): Promise<string> {
  if (!session.csrf) {
    session.csrf = randomBytes(24).toString('base64url');
    await session.save();
  }
  return session.csrf;
}

const tokensEqual = (a: string, b: string) => {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
};

export function buildClientApp(config: ClientConfig, options: ClientAppOptions = {}) {
  const registrar = createRegistrar(config, options);
  let configuration: Promise<oidc.Configuration> | undefined;

  /** Discovery + this client's registration, made once and reused. */
  const oidcConfig = () => {
    configuration ??= (async () => {
      const registration = await registrar.get();
      const auth = registration.client_secret ? oidc.ClientSecretBasic(registration.client_secret) : oidc.None();
      return oidc.discovery(new URL(config.issuer), registration.client_id, undefined, auth, { execute: options.execute });
    })().catch((error) => {
      configuration = undefined;
      throw error;
    });
    return configuration;
  };

  const app = new Hono<{ Variables: { session: IronSession<SessionData> } }>();

  app.use(
    secureHeaders({
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
    }),
  );

  app.use(
    ironSession<SessionData>({
      password: config.sessionSecret,
      cookieName: SESSION_COOKIE,
      ttl: 24 * 3600,
      secure: config.production,
    }),
  );

  const backWithError = (error: string, description: string) =>
    `/?${new URLSearchParams({ error, error_description: description.slice(0, 300) })}`;

  app.get('/api/auth/login', async (c) => {
    let config_: oidc.Configuration;
    try {
      config_ = await oidcConfig();
    } catch (error) {
      return c.redirect(backWithError('provider_unavailable', `could not reach the provider: ${(error as Error).message}`), 302);
    }
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const session = c.get('session');
    session.pending = { state, codeVerifier, nonce, startedAt: Date.now() };
    await session.save();
    const url = oidc.buildAuthorizationUrl(config_, {
      redirect_uri: config.redirectUri,
      scope: config.scope,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return c.redirect(url.href, 302);
  });

  app.get('/api/auth/callback', async (c) => {
    const session = c.get('session');
    const pending = session.pending;
    const query = new URL(c.req.url).search;
    // The URL the provider redirected to, as registered (not as this server sees itself behind a proxy).
    const currentUrl = new URL(`${config.redirectUri}${query}`);
    // A callback that is not the answer to this browser's pending sign-in (a link from another
    // site, a stale tab) changes nothing: the session, and any sign-in in progress, stay as they are.
    if (!pending || Date.now() - pending.startedAt > PENDING_TTL_MS) {
      return c.redirect(
        backWithError('no_pending_sign_in', 'no sign-in was started from this browser (or it expired); try again'),
        302,
      );
    }
    if (currentUrl.searchParams.get('state') !== pending.state) {
      return c.redirect(backWithError('state_mismatch', 'the answer does not carry the state of the sign-in started here'), 302);
    }
    // The answer to this sign-in: it ends here, whatever it says (a signed-in user stays signed in).
    const fail = async (error: string, description: string) => {
      session.pending = undefined;
      await session.save();
      return c.redirect(backWithError(error, description), 302);
    };
    if (currentUrl.searchParams.has('error')) {
      return fail(
        currentUrl.searchParams.get('error') as string,
        currentUrl.searchParams.get('error_description') ?? 'the provider refused',
      );
    }
    try {
      const config_ = await oidcConfig();
      const tokens = await oidc.authorizationCodeGrant(config_, currentUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) return await fail('invalid_id_token', 'the provider returned no ID token');
      const userinfo = await oidc.fetchUserInfo(config_, tokens.access_token, claims.sub);
      const user: SessionUser = {
        sub: claims.sub,
        preferredUsername: String(userinfo.preferred_username ?? claims.preferred_username ?? claims.sub),
        ...(typeof (userinfo.picture ?? claims.picture) === 'string'
          ? { picture: String(userinfo.picture ?? claims.picture) }
          : {}),
        ...(typeof userinfo.siwe_message === 'string' ? { siweMessage: userinfo.siwe_message } : {}),
      };
      session.pending = undefined;
      session.user = user;
      session.idToken = tokens.id_token;
      await session.save();
      return c.redirect('/', 302);
    } catch (error) {
      const e = error as {
        error?: string;
        error_description?: string;
        code?: string;
        message: string;
        cause?: { message?: string };
      };
      const description = e.error_description ?? (e.cause?.message ? `${e.message}: ${e.cause.message}` : e.message);
      return fail(e.error ?? e.code ?? 'sign_in_failed', description);
    }
  });

  app.get('/api/auth/me', (c) => {
    const user = c.get('session').user;
    if (!user) return c.json({ error: 'not_signed_in' }, 401);
    return c.json(user);
  });

  /** The end of a confirmed logout: the session goes, then the provider ends its own. */
  const logout = async (c: Context<{ Variables: { session: IronSession<SessionData> } }>) => {
    const session = c.get('session');
    const idToken = session.idToken;
    session.destroy();
    try {
      const config_ = await oidcConfig();
      if (config_.serverMetadata().end_session_endpoint) {
        const url = oidc.buildEndSessionUrl(config_, {
          post_logout_redirect_uri: `${config.appOrigin}/`,
          ...(idToken ? { id_token_hint: idToken } : {}),
        });
        return c.redirect(url.href, 302);
      }
    } catch {
      // provider unreachable: the local session is gone anyway
    }
    return c.redirect('/', 302);
  };

  // The spec's GET route stays: a click on this site's own link (Sec-Fetch-Site: same-origin) or a
  // typed address (none) signs out; a request another site caused gets a page to confirm with.
  app.get('/api/auth/logout', async (c) => {
    const session = c.get('session');
    if (!session.user) return c.redirect('/', 302);
    const site = c.req.header('sec-fetch-site');
    if (site === 'same-origin' || site === 'none') return logout(c);
    c.header('cache-control', 'no-store');
    return c.html(renderLogoutConfirmation({ name: config.clientName, csrf: await csrfToken(session) }));
  });

  app.post('/api/auth/logout', async (c) => {
    const session = c.get('session');
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const origin = c.req.header('origin');
    const sameOrigin = origin === undefined || origin === config.appOrigin;
    if (!sameOrigin || !session.csrf || !tokensEqual(String(form.csrf ?? ''), session.csrf)) {
      return c.json({ error: 'invalid_request', error_description: 'sign out from this site’s own page' }, 403);
    }
    return logout(c);
  });

  app.get('/logo.svg', (c) => {
    c.header('content-type', 'image/svg+xml');
    c.header('cache-control', 'public, max-age=86400');
    return c.body(LOGO_SVG);
  });

  app.get('/styles.css', (c) => {
    c.header('content-type', 'text/css; charset=utf-8');
    c.header('cache-control', 'public, max-age=3600');
    return c.body(STYLES);
  });

  app.get('/', async (c) => {
    c.header('cache-control', 'no-store');
    const session = c.get('session');
    return c.html(
      renderHome({
        user: session.user,
        csrf: session.user ? await csrfToken(session) : undefined,
        error: c.req.query('error'),
        errorDescription: c.req.query('error_description'),
        issuer: config.issuer,
        name: config.clientName,
      }),
    );
  });

  app.notFound((c) => c.json({ error: 'not_found' }, 404));
  app.onError((error, c) => {
    console.error(error);
    return c.json({ error: 'server_error' }, 500);
  });

  return { app, registration: () => registrar.get() };
}
