/**
 * Who signed in, in an access token for a resource (RFC 9068 allows identity claims): what the
 * client's ID token says of the person, for the scopes the token carries, so a resource server
 * (an MCP server's `whoami`) need not ask userinfo, which a resource's token cannot use.
 * With `profile`: `preferred_username` and `picture` (a pairwise client gets no address as the
 * name, as in its ID token); for an account client (`account_subject`), `wallet`: the wallet that
 * signed (none for a pairwise one). Nothing else: no signed message, no e-mail, no `wallets`.
 */
import { loadSignIn } from '../records/sign-ins.ts';
import type { Store } from '../storage/index.ts';
import { accountClaimsOf, accountSubject } from './account-subject.ts';
import { claimsOf } from './claims.ts';

export async function accessTokenIdentity(
  store: Store,
  accountId: string,
  client: object,
  grantId: string | undefined,
  scopes: ReadonlySet<string>,
): Promise<Record<string, string>> {
  const profile = scopes.has('profile');
  const ofAccount = accountSubject(client);
  if (!profile && !ofAccount) return {};
  const pairwise = (client as { subjectType?: string }).subjectType === 'pairwise';
  const record = await loadSignIn(store, grantId);
  const claims: Record<string, unknown> = {
    ...claimsOf(accountId, record, { pairwise }),
    ...(ofAccount ? await accountClaimsOf(store, record, { pairwise }) : {}),
  };
  const kept: Record<string, string> = {};
  for (const name of [...(profile ? ['preferred_username', 'picture'] : []), ...(ofAccount ? ['wallet'] : [])]) {
    if (typeof claims[name] === 'string') kept[name] = claims[name] as string;
  }
  return kept;
}
