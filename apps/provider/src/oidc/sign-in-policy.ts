/**
 * The interaction policy: oidc-provider's default prompts with Signet's login checks (the
 * id_token_hint's subject, access conditions, the redirect URIs a wallet signed for).
 */
import { interactionPolicy } from 'oidc-provider';
import type { AccessGate } from '../onchain/access.ts';
import { loadSignIn } from '../records/sign-ins.ts';
import { gateSubject } from '../relying-party/passkey-sign-in.ts';
import type { SubjectOf } from '../relying-party/subject.ts';
import type { Store } from '../storage/index.ts';

/**
 * oidc-provider's default prompts, with three login checks of Signet's:
 * - id_token_hint: the hint's `sub` must be the subject this client was given (for a client with
 *   subject_chain "any", the chain-independent one; relying-party/subject.ts), not only the
 *   session's account id as oidc-provider compares it;
 * - access conditions: a session whose account no longer meets a gated client's conditions gets
 *   no silent code (prompt=none: login_required); the person signs again, and the sign-in checks
 *   whoever signs. Right after a sign-in (which has just checked) and for ungated clients it costs nothing;
 * - the redirect URI: a wallet's signature covers the redirect URIs its messages named (below).
 */
export function signInPolicy(access: AccessGate | undefined, store: Store, subjectOf: SubjectOf) {
  const policy = interactionPolicy.base();
  const { Check } = interactionPolicy;
  const login = policy.get('login');
  const hintCheck = login?.checks.get('id_token_hint');
  if (login && hintCheck) {
    const index = login.checks.indexOf(hintCheck);
    login.checks.remove('id_token_hint');
    login.checks.add(
      new Check(hintCheck.reason, hintCheck.description, 'login_required', async (ctx) => {
        const { oidc } = ctx;
        const hint = oidc.entities.IdTokenHint as { payload: { sub?: unknown } } | undefined;
        if (hint === undefined) return Check.NO_NEED_TO_PROMPT;
        const accountId = oidc.session?.accountId;
        if (accountId === undefined || !oidc.client) return Check.REQUEST_PROMPT;
        return hint.payload.sub === (await subjectOf(accountId, oidc.client, ctx))
          ? Check.NO_NEED_TO_PROMPT
          : Check.REQUEST_PROMPT;
      }),
      index,
    );
  }
  login?.checks.add(signedRedirectUriCheck(store));
  if (!access) return policy;
  login?.checks.add(
    new Check('access_conditions', "the account does not meet this client's access conditions", 'login_required', async (ctx) => {
      const { oidc } = ctx;
      const accountId = oidc.session?.accountId;
      if (!accountId || !oidc.client || (oidc.result as { login?: unknown } | undefined)?.login) return Check.NO_NEED_TO_PROMPT;
      try {
        // How the session's account signed in (its sign-in record for this client, if any).
        const record = await loadSignIn(store, oidc.session?.grantIdFor(oidc.client.clientId));
        // Not an Ethereum account (Solana): an ungated client lets it through; the gate refuses it
        // for a gated one. A passkey's session: the account's primary wallet (relying-party/passkey-sign-in.ts).
        const gate = await gateSubject(store, accountId, record?.accountId === accountId ? record.method : undefined);
        await access.enforce(oidc.client, gate.accountId, gate.holder, gate.method);
        return Check.NO_NEED_TO_PROMPT;
      } catch {
        // Not met, or the chain could not be asked: ask for a signature; the sign-in then
        // answers with the precise refusal (403, or 503 RPC_UNAVAILABLE).
        return Check.REQUEST_PROMPT;
      }
    }),
  );
  return policy;
}

/**
 * A wallet's signature covers the redirect URI its message named (ERC-8019 auto-login policies
 * are recorded per redirect URI): a session's grant signed for other redirect URIs of the client
 * gives no silent code to this one (prompt=none: login_required); the person signs again, and
 * that sign-in's record covers both. Passkey and device sign-ins, and records of earlier
 * versions, name no redirect URI and are not asked.
 */
function signedRedirectUriCheck(store: Store) {
  const { Check } = interactionPolicy;
  return new Check(
    'redirect_uri_not_signed_for',
    'the wallet signed this session in for another redirect URI of this client',
    'login_required',
    async (ctx) => {
      const { oidc } = ctx;
      const redirectUri = oidc.params?.redirect_uri;
      if (!oidc.session?.accountId || !oidc.client || typeof redirectUri !== 'string') return Check.NO_NEED_TO_PROMPT;
      if ((oidc.result as { login?: unknown } | undefined)?.login) return Check.NO_NEED_TO_PROMPT;
      const record = await loadSignIn(store, oidc.session.grantIdFor(oidc.client.clientId));
      if (record?.redirectUris === undefined) return Check.NO_NEED_TO_PROMPT;
      return record.accountId === oidc.session.accountId && record.redirectUris.includes(redirectUri)
        ? Check.NO_NEED_TO_PROMPT
        : Check.REQUEST_PROMPT;
    },
  );
}
