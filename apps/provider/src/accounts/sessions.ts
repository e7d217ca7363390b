/**
 * Which Signet account and wallet a provider session was signed in with, and what each wallet's
 * sign-ins issued: what `/account` and the end of a wallet need.
 *
 *   session-login:<session id>   { account, wallet | passkey, accountId, signedInAt }, as long as the session
 *   wallet-grants:<wallet id>    the grants the wallet's sign-ins made (a set, as long as a grant)
 *   passkey-grants:<credential>  the grants a passkey's sign-ins made (likewise)
 *   grant-session:<grant id>     the provider session that holds the grant
 *
 * A sign-in puts who signed in on its interaction's result (`signet`); when oidc-provider saves
 * the session that result logs in, `recordSessionLogins` files it under the session's id (and each
 * of its grants under the session), in the same request's writes.
 */
import type { Provider } from 'oidc-provider';
import { TTL } from '../deployment/lifetimes.ts';
import type { Store } from '../storage/index.ts';
import { recordWalletUse, type WalletProfile } from './accounts.ts';

export type SessionLogin = {
  /** The Signet account. */
  account: string;
  /** The wallet id that signed (wallets/ids.ts); absent for a passkey sign-in. */
  wallet?: string;
  /** The passkey's credential id, for a passkey sign-in (accounts/passkeys.ts). */
  passkey?: string;
  /** oidc-provider's account id of the session (the signer's CAIP-10 id on the chain signed on; the account id for a passkey). */
  accountId: string;
  signedInAt: number;
};

const loginKey = (sessionId: string) => `session-login:${sessionId}`;
export const walletGrantsKey = (walletId: string) => `wallet-grants:${walletId}`;
export const passkeyGrantsKey = (credentialId: string) => `passkey-grants:${credentialId}`;
export const grantSessionKey = (grantId: string) => `grant-session:${grantId}`;

/** After a sign-in's grant is saved: the wallet's grant index and what the sign-in learned of it. */
export async function recordWalletSignIn(store: Store, walletId: string, grantId: string, profile: WalletProfile) {
  await store.addToSet(walletGrantsKey(walletId), grantId, TTL.Grant);
  await recordWalletUse(store, walletId, profile);
}

/** After a passkey sign-in's grant is saved: the passkey's grant index (what removing it ends). */
export async function recordPasskeySignIn(store: Store, credentialId: string, grantId: string) {
  await store.addToSet(passkeyGrantsKey(credentialId), grantId, TTL.Grant);
}

type SavedSession = {
  jti: string;
  accountId?: string;
  exp?: number;
  authorizations?: Record<string, { grantId?: string }>;
};

/** Files each saved session's login (from a sign-in's result) and grants under its id. */
export function recordSessionLogins(provider: Provider, store: Store, onError: (error: unknown) => void): void {
  const events = provider as unknown as { on(event: string, listener: (session: SavedSession) => void): void };
  const current = () => (provider.constructor as unknown as { ctx?: { oidc?: { result?: { signet?: SessionLogin } } } }).ctx;
  events.on('session.saved', (session) => {
    const login = current()?.oidc?.result?.signet;
    if (!login || session.accountId !== login.accountId) return;
    const ttl = typeof session.exp === 'number' ? Math.max(1, session.exp - Math.floor(Date.now() / 1000)) : TTL.Session;
    const writes = [
      store.set(loginKey(session.jti), JSON.stringify(login), ttl),
      ...Object.values(session.authorizations ?? {})
        .map((authorization) => authorization.grantId)
        .filter((grantId): grantId is string => typeof grantId === 'string')
        .map((grantId) => store.set(grantSessionKey(grantId), session.jti, TTL.Grant)),
    ];
    Promise.all(writes).catch(onError);
  });
}

export async function readSessionLogin(store: Store, sessionId: string): Promise<SessionLogin | undefined> {
  const raw = await store.get(loginKey(sessionId));
  return raw === undefined ? undefined : (JSON.parse(raw) as SessionLogin);
}

export const forgetSessionLogin = (store: Store, sessionId: string) => store.delete(loginKey(sessionId));
