import { BITCOIN_CHAIN_REFERENCES, BITCOIN_NETWORKS, type BitcoinNetwork } from './networks.ts';

/**
 * The network a Chain ID names: a CAIP-2 reference (`000000000019d6689c085ae165831e93`, as a
 * message's `Chain ID:` line carries it) or a whole CAIP-2 chain id
 * (`bip122:000000000019d6689c085ae165831e93`). Undefined for anything else (another chain, a
 * reference in upper case, regtest, whose genesis is not fixed in practice).
 */
export function bitcoinNetworkOf(chainId: string): BitcoinNetwork | undefined {
  if (typeof chainId !== 'string') return undefined;
  const reference = chainId.startsWith('bip122:') ? chainId.slice('bip122:'.length) : chainId;
  return BITCOIN_NETWORKS.find((network) => BITCOIN_CHAIN_REFERENCES[network] === reference);
}
