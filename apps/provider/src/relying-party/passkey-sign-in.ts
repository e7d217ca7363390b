/**
 * Which clients take a sign-in by a passkey of the person's Signet account, and what a gated one
 * checks then (docs/relying-parties.md, "Passkey sign-ins").
 *
 * A passkey proves the person, never a wallet. So it is offered only to clients that know people
 * by their account (`account_subject: true`), and, by default, not to those that ask something of
 * the signing wallet: its holdings (`access_conditions`) or its kind (`account_namespaces`).
 * Client metadata `passkey_sign_in` (boolean) decides otherwise: `false` turns passkeys off for an
 * account client; `true` lets a gated or namespaced account client take them, knowing that:
 *
 * - its `account_namespaces` then limit which wallets sign, not whether the person may use a passkey;
 * - its `access_conditions` are checked against the account's primary wallet (at the sign-in and
 *   at every refresh, as for a wallet's sign-in): an Ethereum account by its holdings on every
 *   chain the conditions name, a contract account on its own chain; a primary that is a Solana or
 *   Bitcoin wallet does not meet them.
 */
import { isAccountId, readAccount } from '../accounts/accounts.ts';
import type { ClientFields } from '../clients/rules.ts';
import type { SignInMethod } from '../records/sign-ins.ts';
import type { Store } from '../storage/index.ts';
import { parseAccountId } from '../wallets/ethereum.ts';

/** Why a `passkey_sign_in` value is refused, or undefined. */
export function passkeySignInProblem(value: unknown, metadata: { account_subject?: unknown }): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') return 'passkey_sign_in must be a boolean';
  if (value && metadata.account_subject !== true) {
    return 'passkey_sign_in: true needs account_subject: true (a passkey signs in a Signet account, not a wallet)';
  }
  return undefined;
}

/** Why this client takes no passkey sign-in, in words for the person; undefined when it takes one. */
export function passkeySignInRefusal(fields: ClientFields): string | undefined {
  if (fields.account_subject !== true) {
    return 'this site knows people by their wallet, not by a Signet account: sign in with a wallet';
  }
  if (fields.passkey_sign_in === false) return 'this site takes no passkey sign-in: sign in with a wallet';
  if (fields.passkey_sign_in !== true && (fields.access_conditions !== undefined || fields.account_namespaces !== undefined)) {
    return 'this site asks something of the wallet that signs (what it holds, or its kind) and takes no passkey in its place: sign in with a wallet';
  }
  return undefined;
}

export type GateSubject = { accountId: string; holder: `0x${string}` | undefined; method: SignInMethod | undefined };

/**
 * Whose holdings a client's access conditions are checked against, for a session or token of
 * `accountId` signed in by `method`: the wallet itself, or, for a passkey sign-in (the account's
 * id), the account's primary wallet as if it had signed.
 */
export async function gateSubject(store: Store, accountId: string, method: SignInMethod | undefined): Promise<GateSubject> {
  if (!isAccountId(accountId)) return { accountId, holder: parseAccountId(accountId)?.address, method };
  const primary = (await readAccount(store, accountId))?.primary;
  const eoa = primary && /^eip155:0:(0x[0-9a-fA-F]{40})$/.exec(primary)?.[1];
  // A key that controls its address on every chain: which chain the id names does not matter to the check.
  if (eoa) return { accountId: `eip155:1:${eoa}`, holder: parseAccountId(`eip155:1:${eoa}`)?.address, method: 'eoa' };
  const contract = primary ? parseAccountId(primary) : undefined;
  // A contract account (or any method but `eoa`): its holdings on its own chain only.
  if (contract && primary) return { accountId: primary, holder: contract.address, method: undefined };
  // A Solana or Bitcoin primary, or no account: the gate refuses it unasked.
  return { accountId: primary ?? accountId, holder: undefined, method: undefined };
}
