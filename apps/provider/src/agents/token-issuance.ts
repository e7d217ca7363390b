/**
 * Tokens for an agent's grant, made by oidc-provider's own issuance (the code its
 * authorization_code grant runs after the code is checked): the access token (opaque, or an RFC
 * 9068 JWT for a `resource`), DPoP binding when a proof comes, the ID token with `amr`, and a
 * refresh token when `issueRefreshToken` says so (oidc/provider.ts: `offline_access` and the
 * client's refresh_token grant, for this grant on both profiles).
 */
import type { KoaContextWithOIDC, Provider } from 'oidc-provider';
import { issueTokens } from 'oidc-provider/lib/helpers/grant_common.js';
import {
  applyAuthorizationDetails,
  buildTokenResponse,
  checkDpopRequired,
  checkMtlsCert,
  resolveAndApplyResource,
  validateClientScope,
  validateDpop,
} from 'oidc-provider/lib/helpers/grants.js';

/** The `gty` of an agent's tokens (oidc-provider's record of the grant type that made them). */
export const AGENT_GTY = 'jwt_bearer';

/** A DPoP proof, when the request carries one; refused when the client requires one and none came. */
export async function dpopOf(provider: Provider, ctx: KoaContextWithOIDC): Promise<unknown> {
  const dPoP = await validateDpop(provider, ctx);
  checkDpopRequired(provider, ctx, dPoP);
  return dPoP;
}

/** `scopes` cut to what the client registered (invalid_scope otherwise, as oidc-provider says for any grant). */
export const clientScope = (provider: Provider, ctx: KoaContextWithOIDC, scopes: Set<string>) =>
  validateClientScope(provider, ctx, scopes);

export type AgentSource = {
  accountId: string;
  grantId: string;
  scope: string;
  scopes: Set<string>;
  resource?: string;
  resourceIndicators: Set<string>;
  amr: string[];
  authTime: number;
};

/** Issues the tokens for `source` under `grant` and writes the token response on ctx. */
export async function issueAgentTokens(
  provider: Provider,
  ctx: KoaContextWithOIDC,
  source: AgentSource,
  grant: unknown,
  dPoP: unknown,
): Promise<void> {
  const bind = <T extends (provider: unknown, ...rest: never[]) => unknown>(helper: T) =>
    helper.bind(undefined, provider) as unknown;
  const helpers = {
    resolveAndApplyResource: bind(resolveAndApplyResource),
    applyAuthorizationDetails: bind(applyAuthorizationDetails),
    buildTokenResponse: bind(buildTokenResponse),
  };
  const cert = checkMtlsCert(provider, ctx);
  await issueTokens(provider, helpers, ctx, { ...source, claims: {}, expiresWithSession: false }, grant, {
    gty: AGENT_GTY,
    entityLabel: 'assertion',
    cert,
    dPoP,
  });
}
