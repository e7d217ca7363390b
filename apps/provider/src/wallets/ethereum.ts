/**
 * Ethereum account ids: CAIP-10 `eip155:<chainId>:<EIP-55 address>`, the `sub` of an Ethereum
 * sign-in (a client with `subject_chain: "any"` may get `eip155:0:<address>` instead:
 * relying-party/subject.ts).
 */
import { toChecksumAddress as getAddress } from '@signet/siwe/offline';
import type { Address } from 'viem';

export const accountIdOf = (chainId: number, address: string) => `eip155:${chainId}:${getAddress(address)}`;

export function parseAccountId(accountId: string): { chainId: number; address: Address } | undefined {
  const match = /^eip155:([1-9][0-9]*):(0x[0-9a-fA-F]{40})$/.exec(accountId);
  return match ? { chainId: Number(match[1]), address: getAddress(match[2] as string) } : undefined;
}
