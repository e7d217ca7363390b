/**
 * oidc-provider's resource indicators (RFC 8707), as Signet runs them:
 *
 * - a resource RESOURCE_INDICATORS allows (policy.ts) gets RFC 9068 access tokens: JWTs signed with
 *   the provider's own keys (RS256, `typ: at+jwt`), `aud` the resource exactly as asked, with `iss`,
 *   `sub` (the client's subject, as in its ID token), `client_id`, `scope`, `exp`, `iat`, `jti`, and
 *   the name the ID token gives (jwt-access-tokens.ts, relying-party/token-claims.ts);
 *   any other is `invalid_target`, in words;
 * - without `resource` nothing changes: opaque access tokens for userinfo;
 * - a token or refresh request without `resource` gets the grant's (useGrantedResource): the client
 *   asked for it when the person signed; one naming another resource than the grant's is refused
 *   by oidc-provider (`invalid_target`);
 * - the scope a resource's token carries: what the person granted, of the profile's scopes
 *   (`openid`, `profile`, …; `offline_access` is the refresh token's, not the resource's). Signet
 *   knows no scopes of its own for resource servers: they decide on `sub`, `client_id` and these.
 */
import { errors } from 'oidc-provider';
import type { ResourcePolicy } from '../config.ts';
import { resourceProblem } from './policy.ts';

export type ResourceFeatureOptions = {
  policy: ResourcePolicy;
  /** The scopes the profile supports. */
  scopes: ReadonlySet<string>;
  /** Lifetime of an access token, seconds. */
  accessTokenTtl: number;
};

/** The scope a resource's tokens may carry (space-separated). */
export const resourceScope = (scopes: ReadonlySet<string>) => [...scopes].filter((scope) => scope !== 'offline_access').join(' ');

export function resourceIndicatorsFeature({ policy, scopes, accessTokenTtl }: ResourceFeatureOptions) {
  const scope = resourceScope(scopes);
  return {
    enabled: true,
    // One resource granted: that one; several: the request must name one (oidc-provider says so).
    defaultResource: async (_ctx: unknown, _client: unknown, oneOf?: string | readonly string[]) =>
      Array.isArray(oneOf) && oneOf.length === 1 ? oneOf[0] : oneOf,
    useGrantedResource: async () => true,
    getResourceServerInfo: async (_ctx: unknown, resource: string) => {
      const problem = resourceProblem(policy, resource);
      if (problem) throw new errors.InvalidTarget(`resource ${resource} ${problem}`);
      return {
        scope,
        audience: resource,
        accessTokenTTL: accessTokenTtl,
        accessTokenFormat: 'jwt' as const,
        jwt: { sign: { alg: 'RS256' as const } },
      };
    },
  };
}
