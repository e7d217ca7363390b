/**
 * Logout never sends the browser off the provider on an unverified request. oidc-provider
 * redirects to a registered post_logout_redirect_uri when the request names the client by
 * `client_id` alone, and without a session it does so at once (an auto-submitted form, then a
 * 303): anyone who registered a client could use the provider's origin to bounce people to
 * their site. Here, a request without an `id_token_hint` (which oidc-provider verifies: signed by
 * this provider, for that client) has its post_logout_redirect_uri taken out before
 * oidc-provider sees it; the logout proceeds as without one (the confirmation page when there
 * is a session), and the "signed out" page then names the destination's host with a link the
 * person may follow. Where it leads is carried in a signed, short-lived cookie scoped to the
 * logout path, and checked against the client's registration again when the page is shown.
 */
import type { Context, Middleware } from 'koa';
import type { Provider } from 'oidc-provider';
import { routeKey, routeOf } from '../limits.ts';
import type { ProfileDefinition } from '../profiles.ts';

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

/** GET <end_session> without id_token_hint: the post_logout_redirect_uri goes into the cookie, not to oidc-provider. */
export function logoutWithoutHint(profile: ProfileDefinition, provider: Provider): Middleware {
  const route = routeKey(profile.routes.end_session);
  const path = profile.routes.end_session;
  return (ctx, next) => {
    if (ctx.method !== 'GET' || routeOf(ctx) !== route) return next();
    return hold(ctx, provider, path).then(() => next());
  };
}

async function hold(ctx: Context, provider: Provider, path: string) {
  const query = new URLSearchParams(ctx.querystring);
  const uri = query.get('post_logout_redirect_uri');
  const clientId = query.get('client_id');
  // A stale destination from an earlier logout must not outlive this one.
  if (ctx.cookies.get(COOKIE)) ctx.cookies.set(COOKIE, null, cookieOptions(path));
  if (uri === null || query.has('id_token_hint') || clientId === null) return;
  // Not registered (or no such client): left in, so oidc-provider refuses the request as before.
  const client = await provider.Client.find(clientId).catch(() => undefined);
  if (!client?.postLogoutRedirectUriAllowed(uri)) return;
  const held: Continuation = { client_id: clientId, uri, ...(query.has('state') ? { state: query.get('state') as string } : {}) };
  query.delete('post_logout_redirect_uri');
  query.delete('state');
  ctx.querystring = query.toString();
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
