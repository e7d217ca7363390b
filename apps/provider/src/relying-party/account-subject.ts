/**
 * Clients that know people by their Signet account (client metadata `account_subject: true`):
 * `sub` is the account's id (opaque, derived from no wallet; pairwise on the hosted profile like
 * any subject), `wallet` names the wallet that signed, the `wallets` scope lists the linked ones,
 * and the primary wallet's ENS name and avatar are the account's `preferred_username` and
 * `picture`. Pairwise clients get neither `wallet` nor `wallets` (they would correlate the
 * person across sectors). A client without it sees exactly what it saw before accounts: the
 * signing wallet's subject, name and claims.
 */
import { readAccount, readProfiles } from '../accounts/accounts.ts';
import { isNormalized } from '../onchain/names/normalized.ts';
import type { SignInRecord } from '../records/sign-ins.ts';
import type { Store } from '../storage/index.ts';

export const accountSubject = (client: object | undefined): boolean =>
  (client as { account_subject?: unknown } | undefined)?.account_subject === true;

/** Why an `account_subject` value is refused, or undefined. */
export function accountSubjectProblem(value: unknown): string | undefined {
  return value === undefined || typeof value === 'boolean' ? undefined : 'account_subject must be a boolean';
}

/**
 * What an account client receives beyond the sign-in's own claims, for the sign-in `record` (of
 * the grant its token was issued under).
 */
export async function accountClaimsOf(
  store: Store,
  record: SignInRecord | undefined,
  { pairwise }: { pairwise: boolean },
): Promise<Record<string, string | string[]>> {
  if (!record?.account) return {};
  const account = await readAccount(store, record.account);
  const claims: Record<string, string | string[]> = {};
  if (!pairwise && record.wallet) claims.wallet = record.wallet;
  if (!account) return claims;
  if (!pairwise) claims.wallets = account.wallets.map((wallet) => wallet.id);
  // The primary wallet's name when it has one (a normalized ENS name, as for any sign-in).
  const [primary] = await readProfiles(store, [account.primary]);
  if (primary?.name && isNormalized(primary.name)) {
    claims.preferred_username = primary.name;
    if (primary.avatar) claims.picture = primary.avatar;
  }
  return claims;
}
