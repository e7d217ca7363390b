/**
 * The claims a relying party is given for a sign-in: the name, avatar and address as
 * `preferred_username` and `picture`, the e-mail the client opted in to, the signed message.
 */
import { isNormalized } from '../onchain/names/normalized.ts';
import type { SignInRecord } from '../records/sign-ins.ts';
import { parseBitcoinAccountId } from '../wallets/bitcoin.ts';
import { parseAccountId } from '../wallets/ethereum.ts';
import { parseSolanaAccountId } from '../wallets/solana.ts';
import { type EmailSources, emailClaims } from './email.ts';

/**
 * The claims of an account, before oidc-provider filters them by the granted scopes. For a
 * client with pairwise subjects no claim may carry the address (two sectors could otherwise
 * correlate the user): no address as the username (an ENS name is public, so it stays), and
 * no signed message or signature, which name the address. `email`: what the client opted in to
 * (relying-party/email.ts). The `sub` a client finally receives is decided by oidc-provider and
 * relying-party/subject.ts.
 */
export function claimsOf(
  accountId: string,
  record: SignInRecord | undefined,
  { pairwise = false, email }: { pairwise?: boolean; email?: EmailSources } = {},
): { sub: string } & Record<string, string | boolean> {
  const parsed = parseAccountId(accountId);
  // A name kept by an earlier version is held to today's rule: only a normalized name (and its
  // email record only with it).
  const ensName = record?.ensName && isNormalized(record.ensName) ? record.ensName : undefined;
  // A passkey sign-in names no address and signed no message: no synthetic e-mail, no `siwe` claims.
  const signIn = record?.address !== undefined && {
    address: record.address,
    email: ensName ? record.email : undefined,
    namespace: record.namespace,
  };
  const claims: { sub: string } & Record<string, string | boolean> = {
    sub: accountId,
    ...emailClaims(email, signIn || undefined),
  };
  const username =
    ensName ??
    (pairwise
      ? undefined
      : (parsed?.address ?? parseSolanaAccountId(accountId)?.address ?? parseBitcoinAccountId(accountId)?.address));
  if (username) claims.preferred_username = username;
  if (ensName && record?.avatar) claims.picture = record.avatar;
  if (record?.message !== undefined && record.signature !== undefined && !pairwise) {
    claims.siwe_message = record.message;
    claims.siwe_signature = record.signature;
  }
  return claims;
}
