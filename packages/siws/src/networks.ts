/** The Solana clusters a sign-in may name, each with its CAIP-2 reference. */
export const SOLANA_NETWORKS = ['mainnet', 'devnet', 'testnet'] as const;
export type SolanaNetwork = (typeof SOLANA_NETWORKS)[number];

/**
 * CAIP-2 references of the Solana namespace: the first 32 characters of each cluster's
 * base58 genesis hash (`getGenesisHash`).
 */
export const SOLANA_CHAIN_REFERENCES = {
  mainnet: '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  devnet: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
  testnet: '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z',
} as const satisfies Record<SolanaNetwork, string>;

/**
 * What a SIWS message's `Chain ID:` may say, exactly as the SIWS ABNF lists it. `localnet` is
 * any local validator: it has no fixed genesis hash, so no CAIP-2 reference.
 */
export const SIWS_CHAIN_IDS = [
  'mainnet',
  'testnet',
  'devnet',
  'localnet',
  'solana:mainnet',
  'solana:testnet',
  'solana:devnet',
] as const;
export type SiwsChainId = (typeof SIWS_CHAIN_IDS)[number];
