/**
 *   GET /api/auth/login     state + PKCE (S256) verifier + nonce into the session, redirect to the provider
 *   GET /api/auth/callback  check state, exchange the code, validate the ID token, fetch userinfo, sign in
 *   GET /api/auth/me        { sub, preferredUsername, picture } or 401
 *
 * A callback changes the session only when its `state` is the pending sign-in's.
 */
import * as oidc from 'openid-client';
import type { SessionData, SessionUser } from '../session.ts';
import { backWithError, type ClientContext, type RouteDeps } from './context.ts';

/** A sign-in left pending longer than this is abandoned. */
const PENDING_TTL_MS = 10 * 60_000;

export function signInRoutes({ app, config, oidcConfig }: RouteDeps): void {
  app.get('/api/auth/login', async (c) => {
    let configuration: oidc.Configuration;
    try {
      configuration = await oidcConfig();
    } catch (error) {
      return c.redirect(backWithError('provider_unavailable', `could not reach the provider: ${(error as Error).message}`), 302);
    }
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const session = c.get('session');
    session.pending = { state, codeVerifier, nonce, startedAt: Date.now() };
    await session.save();
    const url = oidc.buildAuthorizationUrl(configuration, {
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
    const pending = c.get('session').pending;
    // The URL the provider redirected to, as registered (not as this server sees itself behind a proxy).
    const currentUrl = new URL(`${config.redirectUri}${new URL(c.req.url).search}`);
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
    return finishSignIn(c, currentUrl, pending, oidcConfig);
  });

  app.get('/api/auth/me', (c) => {
    const user = c.get('session').user;
    if (!user) return c.json({ error: 'not_signed_in' }, 401);
    return c.json(user);
  });
}

/** The answer to this sign-in: it ends here, whatever it says (a signed-in user stays signed in on a failure). */
async function finishSignIn(
  c: ClientContext,
  currentUrl: URL,
  pending: NonNullable<SessionData['pending']>,
  oidcConfig: () => Promise<oidc.Configuration>,
) {
  const session = c.get('session');
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
    const configuration = await oidcConfig();
    const tokens = await oidc.authorizationCodeGrant(configuration, currentUrl, {
      pkceCodeVerifier: pending.codeVerifier,
      expectedState: pending.state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims) return await fail('invalid_id_token', 'the provider returned no ID token');
    const userinfo = await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub);
    session.pending = undefined;
    session.user = userOf(claims, userinfo);
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
}

/** Who signed in, from the ID token's claims and userinfo. */
function userOf(claims: oidc.IDToken, userinfo: oidc.UserInfoResponse): SessionUser {
  const picture = userinfo.picture ?? claims.picture;
  return {
    sub: claims.sub,
    preferredUsername: String(userinfo.preferred_username ?? claims.preferred_username ?? claims.sub),
    ...(typeof picture === 'string' ? { picture } : {}),
    ...(typeof userinfo.siwe_message === 'string' ? { siweMessage: userinfo.siwe_message } : {}),
  };
}
