/**
 * Introspection answers with the `sub` the token's client was given: oidc-provider writes the
 * account id (or, for pairwise clients, calls Signet's pairwise function, which already knows
 * the chain-independent subject); a public client registered with subject_chain "any" gets the
 * chain-independent subject here too (relying-party/subject.ts).
 */
import type { Middleware } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { ProfileDefinition } from '../deployment/profiles.ts';
import { routeKey, routeOf } from '../http/route-key.ts';

type FindClient = (clientId: string) => Promise<object | undefined>;

export function introspectionSubject(
  profile: ProfileDefinition,
  findClient: FindClient,
  subjectOf: (accountId: string, client: object, ctx: KoaContextWithOIDC) => Promise<string>,
): Middleware {
  const introspection = routeKey(profile.routes.introspection);
  return (ctx, next) => {
    if (ctx.method !== 'POST' || routeOf(ctx) !== introspection) return next();
    return next().then(async () => {
      const body = ctx.body as { active?: unknown; sub?: unknown; client_id?: unknown } | undefined;
      if (body?.active !== true || typeof body.sub !== 'string' || typeof body.client_id !== 'string') return;
      const client = (await findClient(body.client_id)) as { subjectType?: string } | undefined;
      if (client && client.subjectType !== 'pairwise') {
        body.sub = await subjectOf(body.sub, client, ctx as unknown as KoaContextWithOIDC);
      }
    });
  };
}
