/**
 *   GET /api/auth/logout    same-origin (the page's own link): as POST; from anywhere else, a page asking to confirm
 *   POST /api/auth/logout   with the session's CSRF token: clear the session, redirect to the provider's end_session_endpoint
 *
 * Logout needs this site's own page: nothing another site makes a browser do signs it out.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IronSession } from 'iron-session';
import * as oidc from 'openid-client';
import { renderLogoutConfirmation } from '../page.ts';
import type { SessionData } from '../session.ts';
import type { ClientContext, RouteDeps } from './context.ts';

/** The session's CSRF token, made (and saved) on first use. */
export async function csrfToken(session: IronSession<SessionData>): Promise<string> {
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

export function logoutRoutes({ app, config, oidcConfig }: RouteDeps): void {
  /** The end of a confirmed logout: the session goes, then the provider ends its own. */
  const logout = async (c: ClientContext) => {
    const session = c.get('session');
    const idToken = session.idToken;
    session.destroy();
    try {
      const configuration = await oidcConfig();
      if (configuration.serverMetadata().end_session_endpoint) {
        const url = oidc.buildEndSessionUrl(configuration, {
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
}
