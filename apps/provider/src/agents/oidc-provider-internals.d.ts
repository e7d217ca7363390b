/**
 * The parts of oidc-provider's token issuance the JWT bearer grant reuses (token-issuance.ts):
 * the same functions its own authorization_code and device_code grants call, so an agent's
 * tokens are made exactly as a person's are (ID token claims, `amr`, resource indicators, DPoP,
 * refresh tokens). oidc-provider publishes no types for them; these are the signatures used.
 */
declare module 'oidc-provider/lib/helpers/grant_common.js' {
  export function issueTokens(
    provider: unknown,
    helpers: Record<string, unknown>,
    ctx: unknown,
    source: unknown,
    grant: unknown,
    options: { gty: string; entityLabel: string; cert?: unknown; dPoP?: unknown },
  ): Promise<void>;
}

declare module 'oidc-provider/lib/helpers/grants.js' {
  export function validateDpop(provider: unknown, ctx: unknown): Promise<unknown>;
  export function checkDpopRequired(provider: unknown, ctx: unknown, dPoP: unknown): void;
  export function checkMtlsCert(provider: unknown, ctx: unknown): unknown;
  export function validateClientScope(provider: unknown, ctx: unknown, scopes: Set<string>): Set<string>;
  export function resolveAndApplyResource(provider: unknown, ...rest: unknown[]): Promise<unknown>;
  export function applyAuthorizationDetails(provider: unknown, ...rest: unknown[]): Promise<void>;
  export function buildTokenResponse(provider: unknown, ...rest: unknown[]): Record<string, unknown>;
}
