/**
 * The passkeys of a Signet account: a second kind of credential, which signs the person in to
 * account clients but never controls the account's wallets (docs/wallets.md, "Passkeys").
 *
 *   passkey:<credential id>   { id, account, publicKey, counter, transports, deviceType, backedUp, … }
 *   account:<account id>      lists the ids (`passkeys`) and holds the WebAuthn user handle
 *
 * The lookup at sign-in is one key, the credential id the authenticator answers with (one key per
 * command: Redis Cluster). Every change runs under claims on the account and the passkey
 * (storage/lock.ts), outside the request's unit of work, as a wallet's link does: the cap holds
 * when two replicas add at once, a removal and a sign-in by the same passkey serialize (a removed
 * passkey is never written back), and a use's signature counter is compared and stored in one
 * turn. The account's list is what counts: a record it does not list signs nobody in.
 *
 * Records never expire; deleting the account deletes them (accounts.ts).
 */
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { Config } from '../config.ts';
import { HttpError } from '../errors.ts';
import type { Store } from '../storage/index.ts';
import { withLocks } from '../storage/lock.ts';
import { type Account, type AccountStore, accountKey, immediately, passkeyKey, readAccount } from './accounts.ts';

export type Passkey = {
  /** The credential id (base64url), as the authenticator names it. */
  id: string;
  account: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  /** The signature counter last seen (0 for authenticators that keep none: most synced passkeys). */
  counter: number;
  transports?: string[];
  /** `singleDevice`: the key never leaves its authenticator; `multiDevice`: it may be synced (backup eligible). */
  deviceType: 'singleDevice' | 'multiDevice';
  /** Whether the key was backed up (synced) at its last use. */
  backedUp: boolean;
  /** The authenticator's model (AAGUID), when it names one. */
  aaguid?: string;
  /** What the person called it. */
  name: string;
  createdAt: number;
  lastUsedAt?: number;
};

/**
 * The WebAuthn relying party id: the issuer's host name, without port. Undefined where passkeys
 * are off: ACCOUNT_MAX_PASSKEYS=0, or an issuer on an IP address (WebAuthn takes only domain names).
 */
export function passkeyRpId(config: Pick<Config, 'origin' | 'accountMaxPasskeys'>): string | undefined {
  if (config.accountMaxPasskeys === 0) return undefined;
  const host = new URL(config.origin).hostname;
  return isIP(host.replace(/^\[|\]$/g, '')) === 0 ? host : undefined;
}

export async function readPasskey(store: Store, credentialId: string): Promise<Passkey | undefined> {
  const raw = await store.get(passkeyKey(credentialId));
  return raw === undefined ? undefined : (JSON.parse(raw) as Passkey);
}

/** The account's passkeys, oldest first. */
export async function listPasskeys(store: Store, account: Account): Promise<Passkey[]> {
  const ids = account.passkeys ?? [];
  if (ids.length === 0) return [];
  const values = await store.getMany(ids.map(passkeyKey));
  return values.flatMap((value) => (value === undefined ? [] : [JSON.parse(value) as Passkey]));
}

const gone = () => new HttpError('SIGN_IN_REQUIRED', 'this account no longer exists; sign in again');

/** The account's WebAuthn user handle, made (32 random bytes, never derived from a wallet) when it has none. */
export function userHandleOf(store: AccountStore, accountId: string): Promise<string> {
  return immediately(store, () =>
    withLocks(store, [accountKey(accountId)], async () => {
      const account = await readAccount(store, accountId);
      if (!account) throw gone();
      if (account.userHandle) return account.userHandle;
      const userHandle = randomBytes(32).toString('base64url');
      await store.set(accountKey(accountId), JSON.stringify({ ...account, userHandle }));
      return userHandle;
    }),
  );
}

/** Adds a verified passkey: `PASSKEY_ALREADY_REGISTERED` (here or on another account), `TOO_MANY_PASSKEYS` (the cap). */
export function addPasskey(store: AccountStore, passkey: Passkey, { maxPasskeys }: { maxPasskeys: number }): Promise<Account> {
  return immediately(store, () =>
    withLocks(store, [accountKey(passkey.account), passkeyKey(passkey.id)], async () => {
      const account = await readAccount(store, passkey.account);
      if (!account) throw gone();
      const ids = account.passkeys ?? [];
      if (ids.includes(passkey.id) || (await readPasskey(store, passkey.id)) !== undefined) {
        throw new HttpError('PASSKEY_ALREADY_REGISTERED', 'this passkey is already registered');
      }
      if (ids.length >= maxPasskeys) {
        throw new HttpError('TOO_MANY_PASSKEYS', `an account holds at most ${maxPasskeys} passkeys; remove one first`);
      }
      const updated: Account = { ...account, passkeys: [...ids, passkey.id] };
      await store.set(passkeyKey(passkey.id), JSON.stringify(passkey));
      await store.set(accountKey(account.id), JSON.stringify(updated));
      return updated;
    }),
  );
}

/** Removes one of the account's passkeys: `NO_SUCH_PASSKEY`. */
export function removePasskey(store: AccountStore, accountId: string, credentialId: string): Promise<Account> {
  return immediately(store, () =>
    withLocks(store, [accountKey(accountId), passkeyKey(credentialId)], async () => {
      const account = await readAccount(store, accountId);
      if (!account) throw gone();
      if (!(account.passkeys ?? []).includes(credentialId))
        throw new HttpError('NO_SUCH_PASSKEY', 'no such passkey in your account');
      const updated: Account = { ...account, passkeys: (account.passkeys ?? []).filter((id) => id !== credentialId) };
      await store.set(accountKey(accountId), JSON.stringify(updated));
      await store.delete(passkeyKey(credentialId));
      return updated;
    }),
  );
}

const notFound = () =>
  new HttpError('PASSKEY_NOT_FOUND', 'this passkey does not belong to a Signet account here (it may have been removed)');

/**
 * A sign-in by the passkey `credentialId`: under claims on its account and itself, `check` sees the
 * stored passkey and its account (it verifies the answer; throwing refuses and stores nothing) and
 * returns what the use changed (counter, backup state, last use), which is stored before the
 * claims are given back. `PASSKEY_NOT_FOUND` when no account lists the passkey.
 */
export async function usePasskey<T>(
  store: AccountStore,
  credentialId: string,
  check: (passkey: Passkey, account: Account) => Promise<{ update: Partial<Passkey>; result: T }>,
): Promise<{ passkey: Passkey; account: Account; result: T }> {
  const first = await readPasskey(store, credentialId);
  if (!first) throw notFound();
  return immediately(store, () =>
    withLocks(store, [accountKey(first.account), passkeyKey(credentialId)], async () => {
      const [passkey, account] = await Promise.all([readPasskey(store, credentialId), readAccount(store, first.account)]);
      if (!passkey || !account || !(account.passkeys ?? []).includes(credentialId)) throw notFound();
      const { update, result } = await check(passkey, account);
      const used: Passkey = { ...passkey, ...update };
      await store.set(passkeyKey(credentialId), JSON.stringify(used));
      return { passkey: used, account, result };
    }),
  );
}
