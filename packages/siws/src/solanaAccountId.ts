import { isSolanaAddress } from './isSolanaAddress.ts';
import { SOLANA_CHAIN_REFERENCES, type SolanaNetwork } from './networks.ts';

export type SolanaChainId = `solana:${string}`;
export type SolanaAccountId = `solana:${string}:${string}`;

/** The CAIP-2 chain id of a cluster: `solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp` for mainnet. */
export function solanaChainId(network: SolanaNetwork): SolanaChainId {
  const reference = Object.hasOwn(SOLANA_CHAIN_REFERENCES, network) ? SOLANA_CHAIN_REFERENCES[network] : undefined;
  if (reference === undefined) throw new RangeError(`${JSON.stringify(network)} is not a Solana network with a CAIP-2 reference`);
  return `solana:${reference}`;
}

/**
 * The CAIP-10 account id of an address on a cluster, `solana:<CAIP-2 reference>:<base58
 * address>`: Signet's subject for a Solana sign-in.
 */
export function solanaAccountId(network: SolanaNetwork, address: string): SolanaAccountId {
  if (!isSolanaAddress(address)) throw new RangeError(`${JSON.stringify(address)} is not a base58 address of 32 bytes`);
  return `${solanaChainId(network)}:${address}`;
}
