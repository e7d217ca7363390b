/**
 * A wallet's id as accounts know it: the CAIP-10 id of what the signature proves control of.
 *
 * - A signature that recovers to the address (a plain account's key, on any chain): the key
 *   controls the address everywhere, so `eip155:0:<address>` (CAIP-10's chain-agnostic form).
 * - A signature the address's code accepted (EIP-1271, EIP-6492, ERC-8010: a contract wallet, or
 *   an EIP-7702-delegated account): that code on that chain only, `eip155:<chainId>:<address>`.
 * - A Solana key: `solana:<CAIP-2 reference>:<base58 address>`.
 * - A Bitcoin address: `bip122:<CAIP-2 reference>:<address>` (bech32 in lower case).
 *
 * Every comparison of wallets (which account a sign-in finds, a link, a 409) is on these exact ids.
 */
import { toChecksumAddress as getAddress } from '@signet/siwe/offline';

export type VerifiedWallet =
  | { namespace: 'eip155'; address: string; chainId: number; method: string }
  | { namespace: 'solana' | 'bip122'; accountId: string };

export function walletIdOf(wallet: VerifiedWallet): string {
  if (wallet.namespace !== 'eip155') return wallet.accountId;
  const address = getAddress(wallet.address);
  return wallet.method === 'eoa' ? `eip155:0:${address}` : `eip155:${wallet.chainId}:${address}`;
}

/** What kind of wallet an id names, for people: a plain account, a contract (or delegated) account, a Solana key. */
export function walletKindOf(walletId: string): 'ethereum-account' | 'ethereum-contract' | 'solana' | 'bitcoin' | 'unknown' {
  if (/^eip155:0:0x[0-9a-fA-F]{40}$/.test(walletId)) return 'ethereum-account';
  if (/^eip155:[1-9][0-9]*:0x[0-9a-fA-F]{40}$/.test(walletId)) return 'ethereum-contract';
  if (walletId.startsWith('solana:')) return 'solana';
  if (walletId.startsWith('bip122:')) return 'bitcoin';
  return 'unknown';
}

/** The address part of a wallet id. */
export const walletAddressOf = (walletId: string): string => walletId.slice(walletId.lastIndexOf(':') + 1);
