/**
 * This browser's provider session, read in front of oidc-provider: its session cookie (signed
 * with the provider's cookie keys) and the stored session it names. What the redirect rules ask
 * of it: whether it holds a grant for a client, and the subject that client was given in it.
 */
import type { Context } from 'koa';
import type { KoaContextWithOIDC, Provider } from 'oidc-provider';

export type BrowserSession = {
  accountId?: string;
  grantIdFor(clientId: string): string | undefined;
};

/** The session this request's cookie names (oidc-provider's, when it has loaded it already), or undefined. */
export async function browserSession(ctx: Context, provider: Provider): Promise<BrowserSession | undefined> {
  const loaded = (ctx as unknown as Partial<KoaContextWithOIDC>).oidc?.session as BrowserSession | undefined;
  if (loaded) return loaded;
  const id = ctx.cookies.get(provider.cookieName('session'), { signed: true });
  if (!id) return undefined;
  return ((await provider.Session.find(id)) as unknown as BrowserSession | undefined) ?? undefined;
}

/** Whether this browser's session holds a grant for the client: someone signed in to it here. */
export async function sessionHoldsGrant(ctx: Context, provider: Provider, clientId: string): Promise<boolean> {
  const session = await browserSession(ctx, provider);
  return session?.accountId !== undefined && session.grantIdFor(clientId) !== undefined;
}

/**
 * The `sub` the client was given in this session (as an ID token carries it: pairwise, the
 * chain-independent subject, or the account id), computed by oidc-provider's own claims, or
 * undefined when the session has not signed in to that client.
 */
export async function subjectInSession(
  session: BrowserSession,
  provider: Provider,
  client: InstanceType<Provider['Client']>,
): Promise<string | undefined> {
  if (!session.accountId || session.grantIdFor(client.clientId) === undefined) return undefined;
  // The smallest request context the subject needs: the session, to find its grant for the client.
  const ctx = { oidc: { entities: {}, session } } as unknown as KoaContextWithOIDC;
  const claims = new provider.Claims({ sub: session.accountId }, { ctx, client });
  claims.mask({ sub: null });
  const { sub } = await claims.result();
  return typeof sub === 'string' ? sub : undefined;
}
