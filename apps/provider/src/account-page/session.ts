/**
 * Who is at `/account`, and how freshly they proved it.
 *
 * The person's account comes from one of two places: the provider session of this browser (the
 * wallet sign-in that opened it says which account and wallet: accounts/sessions.ts), or a
 * signature made at `/account/reauth` in a browser with no provider session. Either way an
 * account session is kept for this browser: a signed cookie (`signet_account`, httpOnly,
 * SameSite=Strict, scoped to `/account`) naming a record in storage,
 *
 *   account-session:<id>   { account?, providerSession?, proofs: { <wallet id>: <when it signed> } }
 *
 * for an hour. A record made from a provider session ends with it. A proof is fresh for 10
 * minutes: linking needs a fresh proof by any wallet of the account; removing another wallet,
 * changing the primary and deleting the account need one by the primary wallet. A sign-in by a
 * passkey (`passkey:<credential id>` among the proofs) opens the page but is no wallet's proof:
 * it counts only for removing that passkey.
 */
import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import type { Provider } from 'oidc-provider';
import { type Account, readAccount } from '../accounts/accounts.ts';
import { readSessionLogin, type SessionLogin } from '../accounts/sessions.ts';
import { HttpError } from '../errors.ts';
import { browserSession } from '../redirects/browser-session.ts';
import type { Store } from '../storage/index.ts';

export const ACCOUNT_COOKIE = 'signet_account';
const SESSION_SECONDS = 3600;
export const FRESH_PROOF_MS = 10 * 60 * 1000;

type Record_ = { account?: string; providerSession?: string; proofs: Record<string, number>; createdAt: number };

export type AccountSession = {
  id: string;
  /** The account, when this browser has signed in to it (undefined: only a reauth is pending). */
  account?: Account;
  proofs: Record<string, number>;
};

const recordKey = (id: string) => `account-session:${id}`;

export function cookieOptions(secure: boolean) {
  return { signed: true, httpOnly: true, sameSite: 'strict' as const, path: '/account', secure, overwrite: true };
}

async function readRecord(store: Store, id: string): Promise<Record_ | undefined> {
  const raw = await store.get(recordKey(id));
  return raw === undefined ? undefined : (JSON.parse(raw) as Record_);
}

async function writeRecord(store: Store, id: string, record: Record_) {
  const left = Math.max(1, Math.ceil((record.createdAt + SESSION_SECONDS * 1000 - Date.now()) / 1000));
  await store.set(recordKey(id), JSON.stringify(record), left);
}

export type SessionDeps = { store: Store; provider(): Provider; secure: boolean };

/**
 * This browser's account session: from its cookie (still alive, its provider session too), else
 * made from its provider session's login. `create` makes an empty one (a reauth about to start).
 */
export async function accountSession(
  ctx: Context,
  deps: SessionDeps,
  { create = false } = {},
): Promise<AccountSession | undefined> {
  const { store } = deps;
  const id = ctx.cookies.get(ACCOUNT_COOKIE, { signed: true });
  if (id) {
    const record = await readRecord(store, id);
    const providerAlive =
      record?.providerSession === undefined || (await deps.provider().Session.find(record.providerSession)) !== undefined;
    if (record && providerAlive) {
      const account = record.account ? await readAccount(store, record.account) : undefined;
      if (!record.account || account) return { id, account, proofs: record.proofs };
    }
  }
  const session = (await browserSession(ctx, deps.provider())) as { jti?: string; accountId?: string } | undefined;
  const login = session?.jti && session.accountId ? await readSessionLogin(store, session.jti) : undefined;
  const account = login && login.accountId === session?.accountId ? await readAccount(store, login.account) : undefined;
  const proof = account && login ? proofOf(account, login) : undefined;
  if (account && login && proof) {
    const made = newId();
    const record: Record_ = {
      account: account.id,
      providerSession: session?.jti,
      proofs: { [proof]: login.signedInAt },
      createdAt: Date.now(),
    };
    await writeRecord(store, made, record);
    ctx.cookies.set(ACCOUNT_COOKIE, made, cookieOptions(deps.secure));
    return { id: made, account, proofs: record.proofs };
  }
  if (!create) return undefined;
  const made = newId();
  await writeRecord(store, made, { proofs: {}, createdAt: Date.now() });
  ctx.cookies.set(ACCOUNT_COOKIE, made, cookieOptions(deps.secure));
  return { id: made, proofs: {} };
}

const newId = () => `as_${randomBytes(18).toString('base64url')}`;

/** How a passkey's sign-in is named among the proofs (a wallet's is its id). */
export const passkeyProof = (credentialId: string) => `passkey:${credentialId}`;

/** The proof a provider session's sign-in gives, while what signed is still in the account. */
function proofOf(account: Account, login: SessionLogin): string | undefined {
  if (login.wallet !== undefined) return account.wallets.some((wallet) => wallet.id === login.wallet) ? login.wallet : undefined;
  if (login.passkey !== undefined && (account.passkeys ?? []).includes(login.passkey)) return passkeyProof(login.passkey);
  return undefined;
}

/**
 * Throws 401 REAUTHENTICATION_REQUIRED unless a wallet of the account, or the passkey
 * `credentialId`, proved itself for this session within the last 10 minutes.
 */
export function requireFreshProofOrPasskey(
  session: AccountSession & { account: Account },
  credentialId: string,
  words: string,
  now = Date.now(),
) {
  if (now - (session.proofs[passkeyProof(credentialId)] ?? 0) <= FRESH_PROOF_MS) return;
  requireFreshProof(
    session,
    session.account.wallets.map((wallet) => wallet.id),
    words,
    now,
  );
}

/** The account session's account, or 401 SIGN_IN_REQUIRED. */
export async function requireAccount(ctx: Context, deps: SessionDeps): Promise<AccountSession & { account: Account }> {
  const session = await accountSession(ctx, deps);
  if (!session?.account) {
    throw new HttpError('SIGN_IN_REQUIRED', 'sign in first: with a wallet of your account at /account/reauth, or through a site');
  }
  return session as AccountSession & { account: Account };
}

/** Records a fresh proof by `wallet` (of `account`) for this account session. */
export async function recordProof(store: Store, session: AccountSession, account: string, wallet: string, at = Date.now()) {
  const record = (await readRecord(store, session.id)) ?? { proofs: {}, createdAt: Date.now() };
  // A proof for another account starts this session over, for that account.
  const proofs = record.account === account ? { ...record.proofs, [wallet]: at } : { [wallet]: at };
  // A signature made here stands on its own: the session no longer ends with the provider
  // session it may have been made from (that sign-in's wallet may be the one being removed).
  const { providerSession: _providerSession, ...rest } = record;
  await writeRecord(store, session.id, {
    ...rest,
    account,
    proofs,
    createdAt: record.account === account ? record.createdAt : Date.now(),
  });
}

/**
 * Throws 401 REAUTHENTICATION_REQUIRED unless one of `wallets` signed for this session within
 * the last 10 minutes (and is still in the account).
 */
export function requireFreshProof(
  session: AccountSession & { account: Account },
  wallets: readonly string[],
  words: string,
  now = Date.now(),
) {
  const linked = new Set(session.account.wallets.map((wallet) => wallet.id));
  const fresh = wallets.some((wallet) => linked.has(wallet) && now - (session.proofs[wallet] ?? 0) <= FRESH_PROOF_MS);
  if (!fresh) throw new HttpError('REAUTHENTICATION_REQUIRED', words);
}

/** Ends this browser's account session. */
export async function endAccountSession(ctx: Context, deps: SessionDeps) {
  const id = ctx.cookies.get(ACCOUNT_COOKIE, { signed: true });
  if (id) await deps.store.delete(recordKey(id));
  ctx.cookies.set(ACCOUNT_COOKIE, null, cookieOptions(deps.secure));
}
