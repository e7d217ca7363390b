/**
 * oidc-provider's `findAccount`: an account's claims come from the sign-in record of the grant
 * (relying-party/claims.ts), read once per request and only when claims that need it are asked;
 * a refresh of a gated client's grant checks its access conditions again first.
 */
import { type Configuration, errors, type KoaContextWithOIDC } from 'oidc-provider';
import { type AuditLog, requestFields } from '../observability/audit.ts';
import type { Logger } from '../observability/logger.ts';
import { AccessDeniedError, type AccessGate, AccessRpcError } from '../onchain/access.ts';
import { loadSignIn } from '../records/sign-ins.ts';
import type { RefreshGrace } from '../refresh/grace.ts';
import { accountClaimsOf, accountSubject } from '../relying-party/account-subject.ts';
import { claimsOf } from '../relying-party/claims.ts';
import { emailSourcesOf } from '../relying-party/email.ts';
import { gateSubject } from '../relying-party/passkey-sign-in.ts';
import { grantIdOf } from '../relying-party/subject.ts';
import type { Store } from '../storage/index.ts';

/** The scopes whose claims come from the sign-in record (the name, avatar, e-mail, signed message). */
const RECORD_SCOPES = new Set(['profile', 'siwe', 'email']);

/**
 * Whether claims asked for by `scope` (or named in a claims request) may come from the sign-in
 * record: not for a token of `openid` alone, whose only claim is `sub` (an unknown shape: yes).
 */
function recordClaimsAsked(scope: unknown, requested: unknown): boolean {
  if (typeof scope !== 'string') return true;
  if (scope.split(' ').some((value) => RECORD_SCOPES.has(value))) return true;
  return requested !== null && typeof requested === 'object' && Object.keys(requested).some((claim) => claim !== 'sub');
}

/** 503 from oidc-provider's own endpoints (the token endpoint) when a chain cannot be asked. */
class TemporarilyUnavailable extends errors.OIDCProviderError {
  constructor(description: string) {
    super(503, 'temporarily_unavailable');
    Object.assign(this, { error_description: description, expose: true });
  }
}

export type FindAccountDependencies = {
  store: Store;
  logger: Logger;
  access?: AccessGate;
  audit?: AuditLog;
  refresh?: RefreshGrace;
};

/**
 * A refresh token is the one place a grant lives on without a new signature: holdings may have
 * changed since, so a gated client's conditions are checked again, before oidc-provider rotates
 * or spends anything. Not met: the grant and its tokens go.
 */
async function recheckAccessAtRefresh(
  ctx: KoaContextWithOIDC,
  deps: FindAccountDependencies & { access: AccessGate },
  accountId: string,
  grantId: string | undefined,
) {
  const { store, access, logger, audit } = deps;
  const client = ctx.oidc.client;
  if (!client) return;
  try {
    // Not an Ethereum account (Solana): an ungated client refreshes; the gate refuses it for a
    // gated one. A passkey's grant: the account's primary wallet (relying-party/passkey-sign-in.ts).
    const gate = await gateSubject(store, accountId, (await loadSignIn(store, grantId))?.method);
    await access.enforce(client, gate.accountId, gate.holder, gate.method);
  } catch (error) {
    if (error instanceof AccessRpcError) throw new TemporarilyUnavailable(`RPC_UNAVAILABLE: ${error.reason}; try again`);
    if (!(error instanceof AccessDeniedError)) throw error;
    if (grantId) {
      const { provider } = ctx.oidc;
      await Promise.all([
        provider.AccessToken.revokeByGrantId(grantId),
        provider.RefreshToken.revokeByGrantId(grantId),
        provider.AuthorizationCode.revokeByGrantId(grantId),
        provider.Grant.adapter.destroy(grantId),
      ]);
    }
    logger.info({ event: 'access_revoked', sub: accountId, client_id: client.clientId }, 'access conditions no longer met');
    audit?.write('refresh.refused', {
      client_id: client.clientId,
      account: accountId,
      reason: 'ACCESS_CONDITION_NOT_MET',
      description: error.message,
      grant_revoked: grantId !== undefined,
      ...requestFields(ctx),
    });
    throw Object.assign(new errors.InvalidGrant('access conditions not met'), {
      error_description: `ACCESS_CONDITION_NOT_MET: ${error.message}; the grant is revoked`,
    });
  }
}

export function findAccount(deps: FindAccountDependencies): NonNullable<Configuration['findAccount']> {
  const { store, access, refresh } = deps;
  return async (ctx, accountId, token) => {
    // A rotated refresh token presented again within the window is answered with its successor (refresh/).
    if (refresh && ctx.oidc.route === 'token') await refresh.answerReplay(ctx, token as never);
    const grantId = (token as { grantId?: string } | undefined)?.grantId ?? grantIdOf(ctx, ctx.oidc.client);
    if (access && ctx.oidc.route === 'token' && ctx.oidc.params?.grant_type === 'refresh_token') {
      await recheckAccessAtRefresh(ctx, { ...deps, access }, accountId, grantId);
    }
    const client = ctx.oidc.client;
    const pairwise = (client as { subjectType?: string } | undefined)?.subjectType === 'pairwise';
    // The sign-in record is read when claims are asked for (ID token, userinfo), once per
    // request, and only when they may include one of its claims; oidc-provider also finds the
    // account where it needs no claims (the resume).
    let record: ReturnType<typeof loadSignIn> | undefined;
    const ofAccount = accountSubject(client);
    return {
      accountId,
      claims: async (_use: string, scope: string, requested: unknown) => {
        // An account client's `wallet` comes from the record, whatever the scope.
        if (!ofAccount && !recordClaimsAsked(scope, requested)) return claimsOf(accountId, undefined, { pairwise });
        record ??= loadSignIn(store, grantId);
        const claims = claimsOf(accountId, await record, { pairwise, email: emailSourcesOf(client) });
        return ofAccount ? { ...claims, ...(await accountClaimsOf(store, await record, { pairwise })) } : claims;
      },
    };
  };
}
