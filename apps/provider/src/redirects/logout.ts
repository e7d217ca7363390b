/**
 * Logout never sends the browser off the provider unless this browser asked for it. oidc-provider
 * redirects to a registered post_logout_redirect_uri when the request names the client by
 * `client_id` alone, or carries an `id_token_hint` it can verify (signed by this provider for
 * that client, its expiry ignored), and without a session it does so at once (an auto-submitted
 * form, then a 303). So anyone who registered a client could use the provider's origin to bounce
 * people to their site: with `client_id`, with an empty hint (oidc-provider reads it as none),
 * or with an ID token of their own throwaway sign-in.
 *
 * Here the destination is followed only when the hint is non-empty, verifies for that client, and
 * names the subject that client was given in this browser's own provider session (a session that
 * signed in to it). Otherwise the post_logout_redirect_uri (and its state) is taken out before
 * oidc-provider sees the request; the logout proceeds as without one (the
 * confirmation page when there is a session), and the "signed out" page names the destination's
 * host with a link the person may follow. Where it leads is carried in a signed, short-lived cookie
 * scoped to the logout path, and checked against the client's registration again when the page is
 * shown.
 */

import { decodeJwt } from 'jose';
import type { Context, Middleware } from 'koa';
import type { Provider } from 'oidc-provider';
import type { ProfileDefinition } from '../deployment/profiles.ts';
import { routeKey, routeOf } from '../http/route-key.ts';
import { browserSession, subjectInSession } from './browser-session.ts';

const COOKIE = 'signet_logout_to';
const COOKIE_SECONDS = 600;

type Continuation = { client_id: string; uri: string; state?: string };

export type LogoutDestination = {
  /** The registered post_logout_redirect_uri, with the request's state. */
  href: string;
  host: string;
  clientName?: string;
};

const cookieOptions = (path: string) => ({
  signed: true,
  httpOnly: true,
  sameSite: 'lax' as const,
  path,
  overwrite: true,
});

/**
 * GET <end_session>: the post_logout_redirect_uri goes to oidc-provider only when this browser's
 * session vouches for it. (A POSTed logout is answered with a 303 to the same request as a GET
 * first: middleware/post-as-get.ts.)
 */
export function logoutRedirects(profile: ProfileDefinition, provider: Provider): Middleware {
  const route = routeKey(profile.routes.end_session);
  const path = profile.routes.end_session;
  return (ctx, next) => {
    if (ctx.method !== 'GET' || routeOf(ctx) !== route) return next();
    return hold(ctx, provider, path).then(() => next());
  };
}

/** The client an ID token names as its audience, or undefined when it cannot be read. */
function audienceOf(hint: string): string | undefined {
  try {
    const { aud } = decodeJwt(hint);
    const audience = Array.isArray(aud) && aud.length === 1 ? aud[0] : aud;
    return typeof audience === 'string' ? audience : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether `hint` is an ID token this provider signed for `client` naming the subject the client
 * was given in this browser's session.
 */
async function hintNamesThisSession(
  ctx: Context,
  provider: Provider,
  client: InstanceType<Provider['Client']>,
  hint: string,
): Promise<boolean> {
  const session = await browserSession(ctx, provider);
  if (!session) return false;
  try {
    await provider.IdToken.validate(hint, client);
  } catch {
    return false;
  }
  const subject = await subjectInSession(session, provider, client);
  return subject !== undefined && decodeJwt(hint).sub === subject;
}

/** Takes the destination out of the query (and into the cookie) unless the request may be redirected at once. */
async function hold(ctx: Context, provider: Provider, path: string): Promise<void> {
  // A stale destination from an earlier logout must not outlive this one.
  if (ctx.cookies.get(COOKIE)) ctx.cookies.set(COOKIE, null, cookieOptions(path));
  const params = new URLSearchParams(ctx.querystring);
  const uri = params.get('post_logout_redirect_uri');
  if (uri === null) return;
  const hint = params.get('id_token_hint') ?? '';
  const clientId = params.get('client_id') ?? (hint === '' ? undefined : audienceOf(hint));
  if (clientId === undefined) return;
  // Not registered (or no such client, or a hint for another client): left in, so oidc-provider
  // refuses the request as before.
  const client = await provider.Client.find(clientId).catch(() => undefined);
  if (!client?.postLogoutRedirectUriAllowed(uri)) return;
  if (hint !== '' && audienceOf(hint) === clientId && (await hintNamesThisSession(ctx, provider, client, hint))) return;
  const held: Continuation = {
    client_id: clientId,
    uri,
    ...(params.has('state') ? { state: params.get('state') as string } : {}),
  };
  params.delete('post_logout_redirect_uri');
  params.delete('state');
  // An empty hint is no hint (as oidc-provider reads it); the client is still named.
  if (hint === '') {
    params.delete('id_token_hint');
    params.set('client_id', clientId);
  }
  ctx.querystring = params.toString();
  ctx.cookies.set(COOKIE, Buffer.from(JSON.stringify(held)).toString('base64url'), {
    ...cookieOptions(path),
    maxAge: COOKIE_SECONDS * 1000,
  });
}

/**
 * On the "signed out" page: where the person may continue, when the logout request named one
 * without an id_token_hint (and it is still registered for that client). Clears the cookie.
 */
export async function heldLogoutDestination(
  ctx: Context,
  provider: Provider,
  path: string,
): Promise<LogoutDestination | undefined> {
  const value = ctx.cookies.get(COOKIE, { signed: true });
  if (!value) return undefined;
  ctx.cookies.set(COOKIE, null, cookieOptions(path));
  let held: Continuation;
  try {
    held = JSON.parse(Buffer.from(value, 'base64url').toString()) as Continuation;
  } catch {
    return undefined;
  }
  const client = await provider.Client.find(held.client_id).catch(() => undefined);
  if (!client?.postLogoutRedirectUriAllowed(held.uri)) return undefined;
  const url = new URL(held.uri);
  if (held.state !== undefined) url.searchParams.set('state', held.state);
  return { href: url.href, host: url.host, clientName: client.clientName };
}
