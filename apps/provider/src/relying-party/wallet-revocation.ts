/**
 * When a wallet leaves an account (removed, moved to another account, or its account deleted), or
 * a passkey is removed, nothing it signed in stays alive: every grant its sign-ins made is destroyed with the access and
 * refresh tokens and codes issued under it, the provider sessions it signed in are ended, and each
 * relying party with a `backchannel_logout_uri` is sent a logout token (OpenID Connect
 * Back-Channel Logout 1.0) naming the subject it was given for that grant.
 *
 * The grants come from the wallet's index (accounts/sessions.ts, `wallet-grants:<wallet>`; a
 * passkey's `passkey-grants:<credential id>`), each
 * grant's session from `grant-session:<grant>`; a session is ended only while it is still signed in
 * as the account id that grant was made for.
 */
import { randomUUID } from 'node:crypto';
import type { KoaContextWithOIDC, Provider } from 'oidc-provider';
import type { Account } from '../accounts/accounts.ts';
import { grantSessionKey, passkeyGrantsKey, walletGrantsKey } from '../accounts/sessions.ts';
import type { Logger } from '../observability/logger.ts';
import { publicUrlProblem } from '../outbound/public-fetch.ts';
import { loadSignIn } from '../records/sign-ins.ts';
import type { Store } from '../storage/index.ts';

export type RevocationDeps = { provider: Provider; store: Store; logger: Logger; allowPrivateFetch: boolean };

export type Revoked = { grants: number; sessions: number; logoutTokens: number };

type Grant = { clientId: string; accountId: string };
type Session = { accountId?: string; sidFor(clientId: string): string | undefined; destroy(): Promise<void> };
type Client = InstanceType<Provider['Client']> & { backchannelLogoutUri?: string; backchannelLogoutSessionRequired?: boolean };

/**
 * A logout token for the client, as oidc-provider makes one at logout, but computed in the
 * context of this grant: the `sub` is the one the client was given under it (pairwise,
 * chain-independent or the account's, by the grant's sign-in record).
 */
async function sendLogoutToken(
  deps: RevocationDeps,
  client: Client,
  accountId: string,
  grantId: string,
  sid: string | undefined,
) {
  const uri = client.backchannelLogoutUri as string;
  if (!deps.allowPrivateFetch) {
    const problem = await publicUrlProblem(uri);
    if (problem) throw new Error(`refusing to send a logout token to ${new URL(uri).host}: ${problem}`);
  }
  const ctx = { oidc: { entities: { Grant: { jti: grantId } } } } as unknown as KoaContextWithOIDC;
  const IdToken = deps.provider.IdToken as unknown as new (
    claims: Record<string, unknown>,
    options: { ctx: KoaContextWithOIDC; client: Client },
  ) => { mask: unknown; set(key: string, value: unknown): void; issue(options: { use: string }): Promise<string> };
  const token = new IdToken({ sub: accountId }, { ctx, client });
  token.mask = { sub: null };
  token.set('events', { 'http://schemas.openid.net/event/backchannel-logout': {} });
  token.set('jti', randomUUID());
  if (client.backchannelLogoutSessionRequired && sid) token.set('sid', sid);
  const response = await fetch(uri, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ logout_token: await token.issue({ use: 'logout' }) }),
    signal: AbortSignal.timeout(5000),
  });
  if (response.status !== 200 && response.status !== 204) throw new Error(`expected 200 OK, got ${response.status}`);
}

/** Ends everything the wallets' sign-ins issued; returns what it ended. Logout tokens that cannot be delivered are logged, never fatal. */
export function endWalletSignIns(deps: RevocationDeps, walletIds: readonly string[]): Promise<Revoked> {
  return endIndexedSignIns(deps, walletIds.map(walletGrantsKey));
}

/** Ends everything the passkeys' sign-ins issued (accounts/passkeys.ts), as for a wallet. */
export function endPasskeySignIns(deps: RevocationDeps, credentialIds: readonly string[]): Promise<Revoked> {
  return endIndexedSignIns(deps, credentialIds.map(passkeyGrantsKey));
}

/** Ends everything an ended account's wallets and passkeys signed in. */
export function endAccountSignIns(deps: RevocationDeps, account: Account | undefined): Promise<Revoked> {
  if (!account) return Promise.resolve({ grants: 0, sessions: 0, logoutTokens: 0 });
  return endIndexedSignIns(deps, [
    ...account.wallets.map((wallet) => walletGrantsKey(wallet.id)),
    ...(account.passkeys ?? []).map(passkeyGrantsKey),
  ]);
}

/** Ends every grant (and its session) each index names, and the index. */
async function endIndexedSignIns(deps: RevocationDeps, indexKeys: readonly string[]): Promise<Revoked> {
  const { provider, store, logger } = deps;
  const revoked: Revoked = { grants: 0, sessions: 0, logoutTokens: 0 };
  for (const indexKey of indexKeys) {
    const grantIds = await store.members(indexKey);
    for (const grantId of grantIds) {
      const [grant, record, sessionId] = await Promise.all([
        provider.Grant.find(grantId) as Promise<Grant | undefined>,
        loadSignIn(store, grantId),
        store.get(grantSessionKey(grantId)),
      ]);
      const session = sessionId ? ((await provider.Session.find(sessionId)) as unknown as Session | undefined) : undefined;
      const accountId = grant?.accountId ?? record?.accountId;
      if (grant) {
        const client = (await provider.Client.find(grant.clientId)) as Client | undefined;
        if (client?.backchannelLogoutUri && accountId) {
          await sendLogoutToken(deps, client, accountId, grantId, session?.sidFor(client.clientId)).then(
            () => {
              revoked.logoutTokens += 1;
              logger.info({ event: 'backchannel_logout', client_id: client.clientId }, 'logout token delivered');
            },
            (error: Error) =>
              logger.warn(
                { event: 'backchannel_logout_failed', client_id: client.clientId, reason: error.message },
                'logout token not delivered',
              ),
          );
        }
      }
      await Promise.all([
        provider.AccessToken.revokeByGrantId(grantId),
        provider.RefreshToken.revokeByGrantId(grantId),
        provider.AuthorizationCode.revokeByGrantId(grantId),
        provider.Grant.adapter.destroy(grantId),
      ]);
      if (grant || record) revoked.grants += 1;
      if (session && accountId && session.accountId === accountId) {
        await session.destroy();
        revoked.sessions += 1;
      }
      await store.delete(grantSessionKey(grantId));
    }
    await store.delete(indexKey);
  }
  return revoked;
}
