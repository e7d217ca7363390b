/**
 * Signet accounts: one person, many wallets. An account is an opaque id (derived from no wallet,
 * never reused) holding the wallets linked to it, one of them primary. Records never expire:
 *
 *   account:<accountId>   { id, createdAt, primary, wallets: [{ id, linkedAt }] }
 *   wallet:<walletId>     the account the wallet belongs to (a wallet belongs to at most one)
 *   wallet-profile:<id>   what the wallet's last sign-in learned (ENS name, avatar) and when
 *   passkey:<credential>  a passkey of the account (accounts/passkeys.ts), listed in the account's `passkeys`
 *
 * A wallet id is what the signature proves (wallets/ids.ts): `eip155:0:<address>` for a key that
 * controls the address on every chain, `eip155:<chainId>:<address>` for code on one chain,
 * `solana:<reference>:<address>`, `bip122:<reference>:<address>`.
 *
 * Every change on `/account` runs under claims on the wallets and accounts it touches
 * (storage/lock.ts), taken in one sorted order, and reads and writes at once, outside the
 * request's unit of work: two replicas linking one wallet at the same instant serialize, and
 * exactly one wins. A first sign-in claims only its wallet's link (`accountForSignIn`).
 */
import { randomBytes } from 'node:crypto';
import { HttpError } from '../errors.ts';
import type { Reference, Store } from '../storage/index.ts';
import { withLocks } from '../storage/lock.ts';

export type LinkedWallet = { id: string; linkedAt: number };
export type Account = {
  id: string;
  createdAt: number;
  primary: string;
  wallets: LinkedWallet[];
  /** The credential ids of the account's passkeys (accounts/passkeys.ts), oldest first; absent before the first. */
  passkeys?: string[];
  /** The WebAuthn user handle of the account's passkeys: 32 random bytes, base64url, made with the first passkey. */
  userHandle?: string;
};
export type WalletProfile = { name?: string; avatar?: string; lastUsedAt?: number };

export const accountKey = (id: string) => `account:${id}`;
const walletKey = (id: string) => `wallet:${id}`;
const profileKey = (id: string) => `wallet-profile:${id}`;
/** A passkey's record, by its credential id (accounts/passkeys.ts). */
export const passkeyKey = (credentialId: string) => `passkey:${credentialId}`;

/** A store that can step outside the request's unit of work (the provider's); a bare store already is outside. */
export type AccountStore = Store & { immediate?<T>(work: () => Promise<T>): Promise<T> };
export const immediately = <T>(store: AccountStore, work: () => Promise<T>) => (store.immediate ? store.immediate(work) : work());

/** A new account id: 128 random bits, so never one that existed before (nothing is derived from a wallet). */
export const newAccountId = () => `acct_${randomBytes(16).toString('base64url')}`;

/** Whether an id names a Signet account (a passkey sign-in's session and tokens carry one) rather than a wallet. */
export const isAccountId = (id: string) => id.startsWith('acct_');

export async function readAccount(store: Store, accountId: string): Promise<Account | undefined> {
  const raw = await store.get(accountKey(accountId));
  return raw === undefined ? undefined : (JSON.parse(raw) as Account);
}

/** The account a wallet belongs to, if any. */
export async function accountOfWallet(store: Store, walletId: string): Promise<Account | undefined> {
  const accountId = await store.get(walletKey(walletId));
  return accountId === undefined ? undefined : readAccount(store, accountId);
}

export async function readProfiles(store: Store, walletIds: string[]): Promise<(WalletProfile | undefined)[]> {
  const values = await store.getMany(walletIds.map(profileKey));
  return values.map((value) => (value === undefined ? undefined : (JSON.parse(value) as WalletProfile)));
}

/** What a wallet's sign-in learned (held with the request's writes: no claim needed, the last one wins). */
export async function recordWalletUse(store: Store, walletId: string, profile: WalletProfile): Promise<void> {
  await store.set(profileKey(walletId), JSON.stringify(profile));
}

/**
 * Starts reading the wallet's link for the current request, before its outcome is claimed: the
 * read leaves with the claim (one round trip on Redis), and accountForSignIn finds it answered.
 * Only a read: what accountForSignIn decides from it is unchanged.
 */
export function readAheadForSignIn(
  store: Store & { prefetch?(keys: string[], references?: readonly Reference[]): void },
  walletId: string,
): void {
  // PostgreSQL and Redis: the account the link names, in the same round trip (the link's value is its id).
  store.prefetch?.([walletKey(walletId)], [{ path: [], prefix: accountKey('') }]);
}

/**
 * The account a sign-in with this wallet belongs to: the wallet's account, or a new account
 * holding it (a person's first sign-in with the wallet). `created` says which.
 *
 * The wallet's link is the one thing claimed at once (`setIfAbsent`, shared by replicas): two
 * first sign-ins of one wallet at the same instant make one account. The new account's record
 * goes with the request's other writes, stored before its answer leaves. A link found without
 * its account's record (another request's writes not stored yet, or lost with a failed batch) is
 * the account as it was made, stored again with this request's writes.
 */
export async function accountForSignIn(
  store: Store,
  walletId: string,
  now = Date.now(),
): Promise<{ account: Account; created: boolean }> {
  let owner = await store.get(walletKey(walletId));
  let created = false;
  if (owner === undefined) {
    const id = newAccountId();
    if (await store.setIfAbsent(walletKey(walletId), id)) {
      owner = id;
      created = true;
    } else {
      owner = await store.get(walletKey(walletId));
      if (owner === undefined)
        throw new HttpError('STORAGE_UNAVAILABLE', 'the wallet’s account changed while signing in; try again');
    }
  }
  const stored = created ? undefined : await readAccount(store, owner);
  if (stored) return { account: stored, created };
  const account: Account = { id: owner, createdAt: now, primary: walletId, wallets: [{ id: walletId, linkedAt: now }] };
  await store.set(accountKey(owner), JSON.stringify(account));
  return { account, created };
}

export type LinkOutcome = {
  account: Account;
  /** The account the wallet left, when it was that account's only wallet: it has ended. */
  ended?: Account;
};

/**
 * Links `walletId` to the account. Refusals, in this order: `WALLET_ALREADY_LINKED` (this
 * account), `TOO_MANY_WALLETS` (the cap), `WALLET_LINKED_ELSEWHERE` (another account that holds
 * other wallets too). A wallet that is the only wallet of its account moves, and that account
 * ends (returned as `ended`: the caller ends what was signed in with it).
 */
export function linkWallet(
  store: AccountStore,
  accountId: string,
  walletId: string,
  { maxWallets, now = Date.now() }: { maxWallets: number; now?: number },
): Promise<LinkOutcome> {
  return immediately(store, async () => {
    // The wallet's current owner decides which accounts to claim; claimed, it is read again, and
    // when it changed meanwhile (another link won the race) the claims are taken again for it.
    for (let attempt = 0; ; attempt++) {
      const owner = await store.get(walletKey(walletId));
      const outcome = await linkClaimed(store, accountId, walletId, owner, { maxWallets, now });
      if (outcome !== 'owner changed') return outcome;
      if (attempt === 3) throw new HttpError('STORAGE_UNAVAILABLE', 'the wallet kept changing accounts; try again');
    }
  });
}

function linkClaimed(
  store: Store,
  accountId: string,
  walletId: string,
  owner: string | undefined,
  { maxWallets, now }: { maxWallets: number; now: number },
): Promise<LinkOutcome | 'owner changed'> {
  const names = [walletKey(walletId), accountKey(accountId), ...(owner && owner !== accountId ? [accountKey(owner)] : [])];
  return withLocks(store, names, async () => {
    const account = await readAccount(store, accountId);
    if (!account) throw new HttpError('SIGN_IN_REQUIRED', 'this account no longer exists; sign in again');
    const currentOwner = await store.get(walletKey(walletId));
    if (currentOwner !== owner) return 'owner changed' as const;
    if (currentOwner === accountId || account.wallets.some((wallet) => wallet.id === walletId)) {
      throw new HttpError('WALLET_ALREADY_LINKED', 'this wallet is already linked to your account');
    }
    if (account.wallets.length >= maxWallets) {
      throw new HttpError('TOO_MANY_WALLETS', `an account holds at most ${maxWallets} wallets; remove one first`);
    }
    let ended: Account | undefined;
    if (currentOwner !== undefined) {
      const other = await readAccount(store, currentOwner);
      if (other?.wallets.some((wallet) => wallet.id !== walletId)) {
        throw new HttpError(
          'WALLET_LINKED_ELSEWHERE',
          'this wallet belongs to another Signet account that holds other wallets too; remove it there first',
        );
      }
      if (other) {
        ended = other;
        // The ended account's passkeys go with it (their sign-ins are ended by the caller).
        await store.delete(accountKey(other.id), ...(other.passkeys ?? []).map(passkeyKey));
      }
    }
    const updated: Account = { ...account, wallets: [...account.wallets, { id: walletId, linkedAt: now }] };
    // A wallet of no account is claimed as a first sign-in claims it (that sign-in may be making
    // its account at this instant): the loser reads the owner again.
    if (currentOwner === undefined) {
      if (!(await store.setIfAbsent(walletKey(walletId), accountId))) return 'owner changed' as const;
    } else {
      await store.set(walletKey(walletId), accountId);
    }
    await store.set(accountKey(accountId), JSON.stringify(updated));
    return { account: updated, ...(ended ? { ended } : {}) };
  });
}

/** Removes a wallet: `WALLET_NOT_FOUND`, `LAST_WALLET`; a removed primary hands it to the oldest remaining wallet. */
export function removeWallet(store: AccountStore, accountId: string, walletId: string): Promise<Account> {
  return immediately(store, () =>
    withLocks(store, [walletKey(walletId), accountKey(accountId)], async () => {
      const account = await readAccount(store, accountId);
      if (!account) throw new HttpError('SIGN_IN_REQUIRED', 'this account no longer exists; sign in again');
      if (!account.wallets.some((wallet) => wallet.id === walletId)) {
        throw new HttpError('WALLET_NOT_FOUND', 'no such wallet in your account');
      }
      if (account.wallets.length === 1) {
        throw new HttpError('LAST_WALLET', 'the last wallet of an account cannot be removed; delete the account instead');
      }
      const wallets = account.wallets.filter((wallet) => wallet.id !== walletId);
      const updated: Account = {
        ...account,
        wallets,
        primary: account.primary === walletId ? (wallets[0] as LinkedWallet).id : account.primary,
      };
      await store.set(accountKey(accountId), JSON.stringify(updated));
      await store.delete(walletKey(walletId), profileKey(walletId));
      return updated;
    }),
  );
}

export function setPrimary(store: AccountStore, accountId: string, walletId: string): Promise<Account> {
  return immediately(store, () =>
    withLocks(store, [accountKey(accountId)], async () => {
      const account = await readAccount(store, accountId);
      if (!account) throw new HttpError('SIGN_IN_REQUIRED', 'this account no longer exists; sign in again');
      if (!account.wallets.some((wallet) => wallet.id === walletId)) {
        throw new HttpError('WALLET_NOT_FOUND', 'no such wallet in your account');
      }
      const updated = { ...account, primary: walletId };
      await store.set(accountKey(accountId), JSON.stringify(updated));
      return updated;
    }),
  );
}

/** Deletes the account, every link of its wallets and its passkeys; returns what it held (undefined when it was gone). */
export function deleteAccount(store: AccountStore, accountId: string): Promise<Account | undefined> {
  return immediately(store, async () => {
    const before = await readAccount(store, accountId);
    if (!before) return undefined;
    return withLocks(store, [accountKey(accountId), ...before.wallets.map((wallet) => walletKey(wallet.id))], async () => {
      const account = await readAccount(store, accountId);
      if (!account) return undefined;
      // Only the links that still name this account (a wallet cannot have moved while claimed, but be exact).
      const owners = await store.getMany(account.wallets.map((wallet) => walletKey(wallet.id)));
      const links = account.wallets.filter((_wallet, i) => owners[i] === accountId);
      await store.delete(
        accountKey(accountId),
        ...links.flatMap((wallet) => [walletKey(wallet.id), profileKey(wallet.id)]),
        ...(account.passkeys ?? []).map(passkeyKey),
      );
      return account;
    });
  });
}

/** Every account id in storage (the CLI's listing: a scan). */
export async function listAccountIds(store: Store): Promise<string[]> {
  return (await store.keys('account:')).map((key) => key.slice('account:'.length)).sort();
}
