import type { SiwsChainId, SolanaNetwork } from './networks.ts';

/** The cluster a message's Chain ID names: `solana:mainnet` and `mainnet` are both mainnet. */
export function siwsNetwork(chainId: SiwsChainId): SolanaNetwork | 'localnet' {
  return chainId.startsWith('solana:')
    ? (chainId.slice('solana:'.length) as SolanaNetwork)
    : (chainId as SolanaNetwork | 'localnet');
}
