/**
 * Accounts are Ethereum accounts on a chain: the account id (and the public `sub`) is the
 * CAIP-10 id `eip155:<chainId>:<EIP-55 address>`; or Solana accounts on a cluster,
 * `solana:<CAIP-2 reference>:<base58 address>` (solana/account.ts). What a sign-in learned (the signed message,
 * the ENS name, avatar and e-mail) is kept per grant, so the claims of a token are those of the
 * sign-in that produced it.
 */
import type { SiweVerificationMethod } from '@signet/siwe';
import type { SolanaNetwork } from '@signet/siws/message';
import { type Address, getAddress } from 'viem';
import { isNormalized } from './onchain/names/primary.ts';
import { type EmailSources, emailClaims } from './relying-party/email.ts';
import { parseSolanaAccountId } from './solana/account.ts';
import type { Store } from './storage/index.ts';

/** How a signature was checked: an Ethereum wallet's way (`eoa`, `erc1271`, …) or a Solana key's (`ed25519`). */
export type SignInMethod = SiweVerificationMethod | 'ed25519';

export type SignInRecord = {
  accountId: string;
  /** EIP-55 for Ethereum, base58 for Solana. */
  address: string;
  /** Ethereum: the chain signed on. */
  chainId?: number;
  /** Solana (absent for Ethereum, as in records of earlier versions). */
  namespace?: 'solana';
  /** Solana: the cluster signed on. */
  network?: SolanaNetwork;
  message: string;
  /** As posted for Ethereum; base58 for Solana. */
  signature: string;
  method: SignInMethod;
  ensName?: string;
  avatar?: string;
  /** The ENS `email` text record of the name (self-asserted by the name's owner, not verified). */
  email?: string;
  signedInAt: number;
};

export const accountIdOf = (chainId: number, address: string) => `eip155:${chainId}:${getAddress(address)}`;

export function parseAccountId(accountId: string): { chainId: number; address: Address } | undefined {
  const match = /^eip155:([1-9][0-9]*):(0x[0-9a-fA-F]{40})$/.exec(accountId);
  return match ? { chainId: Number(match[1]), address: getAddress(match[2] as string) } : undefined;
}

const recordKey = (grantId: string) => `signin:${grantId}`;

export async function saveSignIn(store: Store, grantId: string, record: SignInRecord, ttlSeconds: number): Promise<void> {
  await store.set(recordKey(grantId), JSON.stringify(record), ttlSeconds);
}

export async function loadSignIn(store: Store, grantId: string | undefined): Promise<SignInRecord | undefined> {
  if (!grantId) return undefined;
  const raw = await store.get(recordKey(grantId));
  return raw === undefined ? undefined : (JSON.parse(raw) as SignInRecord);
}

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
  const signIn = record && { address: record.address, email: ensName ? record.email : undefined };
  const claims: { sub: string } & Record<string, string | boolean> = { sub: accountId, ...emailClaims(email, signIn) };
  const username = ensName ?? (pairwise ? undefined : (parsed?.address ?? parseSolanaAccountId(accountId)?.address));
  if (username) claims.preferred_username = username;
  if (ensName && record?.avatar) claims.picture = record.avatar;
  if (record && !pairwise) {
    claims.siwe_message = record.message;
    claims.siwe_signature = record.signature;
  }
  return claims;
}
