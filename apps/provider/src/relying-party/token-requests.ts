/**
 * Requests to the client-authenticated endpoints (token, introspection, revocation, device
 * authorization) as stock clients send them, fitted to oidc-provider's rules without weakening any:
 *
 * 1. A public client (`token_endpoint_auth_method: none`) that sends HTTP Basic with its client
 *    id and an empty secret is treated as sending no client authentication. oidc-agent does this
 *    after registering without naming a method (RFC 7591's default is client_secret_basic; the
 *    self-hosted profile registers such a client as public). An empty secret proves nothing, so
 *    this is exactly what `none` means: the header is dropped and the id passed as `client_id`.
 *    A client registered with a secret is untouched (an empty secret stays an error), and a
 *    public client still needs PKCE.
 * 2. A refresh request's `scope` loses the values the profile does not support, as registration
 *    and authorization do (relying-party/scopes.ts). A supported value the grant does not hold
 *    is still refused by oidc-provider (invalid_scope, RFC 6749 §6). Where refresh tokens do not
 *    depend on offline_access (hosted), asking for it at refresh is asking for nothing: it is
 *    dropped too, whether or not the authorization kept it (oidc-provider keeps it only with
 *    prompt=consent).
 *
 * 3. With resource indicators on, a JWT access token (RFC 9068) sent to introspection or
 *    revocation is handed on marked (resources/jwt-access-tokens.ts), where oidc-provider would
 *    refuse any JWT unread; it is then found by its signature, as Signet stores such tokens.
 *
 * Each rewrites the form body oidc-provider then reads; every other request passes untouched.
 */
import type { IncomingMessage } from 'node:http';
import parseBody from 'co-body';
import type { Context, Middleware } from 'koa';
import type { ProfileDefinition } from '../deployment/profiles.ts';
import { bodyIs } from '../http/negotiation.ts';
import { routeKey, routeOf } from '../http/route-key.ts';
import { isJwt, markedToken } from '../resources/jwt-access-tokens.ts';
import { supportedScope } from './scopes.ts';

/** oidc-provider's own limit on a request body. */
const BODY_LIMIT = 56 * 1024;

type FindClient = (clientId: string) => Promise<{ clientAuthMethod?: string } | undefined>;

/** The client id of `Authorization: Basic <id>:` (an empty secret), decoded as oidc-provider decodes it. */
export function emptySecretBasicClientId(header: string | undefined): string | undefined {
  const match = /^basic ([A-Za-z0-9+/]+={0,2})$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
  if (!decoded.endsWith(':') || decoded.indexOf(':') !== decoded.length - 1) return undefined;
  try {
    const id = decodeURIComponent(decoded.slice(0, -1).replace(/\+/g, '%20'));
    return id.length > 0 ? id : undefined;
  } catch {
    return undefined;
  }
}

/** Hands oidc-provider a form body in place of the one read here (it reads `req` as a stream). */
export function replaceBody(req: IncomingMessage, text: string) {
  const body = Buffer.from(text);
  req.headers['content-length'] = String(body.length);
  delete req.headers['transfer-encoding'];
  Object.defineProperty(req, 'readable', { value: true, configurable: true });
  Object.defineProperty(req, 'iterator', {
    configurable: true,
    value: async function* iterator() {
      yield body;
    },
  });
}

export function tokenRequests(
  profile: ProfileDefinition,
  supported: ReadonlySet<string>,
  findClient: FindClient,
  { jwtAccessTokens = false }: { jwtAccessTokens?: boolean } = {},
): Middleware {
  const scopes = profile.refreshTokensWithoutOfflineAccess
    ? new Set([...supported].filter((scope) => scope !== 'offline_access'))
    : supported;
  const token = routeKey(profile.routes.token);
  const tokenInBody = new Set(
    jwtAccessTokens ? [routeKey(profile.routes.introspection), routeKey(profile.routes.revocation)] : [],
  );
  const authenticated = new Set([
    token,
    routeKey(profile.routes.introspection),
    routeKey(profile.routes.revocation),
    // oidc-agent's device flow sends the same empty-secret Basic to the device authorization endpoint.
    routeKey(profile.routes.device_authorization),
  ]);
  return (ctx, next) => {
    if (ctx.method !== 'POST') return next();
    const route = routeOf(ctx);
    if (!authenticated.has(route) || !bodyIs(ctx, 'application/x-www-form-urlencoded')) return next();
    const basicId = emptySecretBasicClientId(ctx.get('authorization') || undefined);
    if (route !== token && basicId === undefined && !tokenInBody.has(route)) return next();
    return rewrite(ctx, next, { isToken: route === token, markJwt: tokenInBody.has(route) }, basicId, scopes, findClient);
  };
}

async function rewrite(
  ctx: Context,
  next: () => Promise<unknown>,
  { isToken, markJwt }: { isToken: boolean; markJwt: boolean },
  basicId: string | undefined,
  scopes: ReadonlySet<string>,
  findClient: FindClient,
) {
  let text: string;
  try {
    text = await parseBody.text(ctx, { limit: BODY_LIMIT });
  } catch (error) {
    ctx.status = (error as { status?: number }).status === 413 ? 413 : 400;
    ctx.body = { error: 'invalid_request', error_description: 'failed to parse the request body' };
    return;
  }
  const params = new URLSearchParams(text);
  // What oidc-provider reads is the body as sent unless a rule below changes it.
  let changed = false;
  if (isToken && params.get('grant_type') === 'refresh_token' && params.has('scope')) {
    const kept = supportedScope(params.get('scope'), scopes);
    if (kept) params.set('scope', kept);
    else params.delete('scope');
    changed = true;
  }
  const presented = params.get('token');
  if (markJwt && isJwt(presented)) {
    params.set('token', markedToken(presented));
    changed = true;
  }
  if (
    basicId !== undefined &&
    !params.has('client_secret') &&
    [undefined, basicId].includes(params.get('client_id') ?? undefined)
  ) {
    const client = await findClient(basicId);
    if (client?.clientAuthMethod === 'none') {
      delete ctx.req.headers.authorization;
      params.set('client_id', basicId);
      changed = true;
    }
  }
  replaceBody(ctx.req, changed ? params.toString() : text);
  return next();
}
