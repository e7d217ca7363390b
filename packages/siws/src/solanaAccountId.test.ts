import { describe, expect, it } from 'vitest';
import { SIWS_CHAIN_IDS, SOLANA_CHAIN_REFERENCES, SOLANA_NETWORKS, type SolanaNetwork } from './networks.ts';
import { siwsNetwork } from './siwsNetwork.ts';
import { solanaAccountId, solanaChainId } from './solanaAccountId.ts';

const ADDRESS = 'FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z';

describe('networks and CAIP ids', () => {
  it('has the CAIP-2 references of the Solana namespace (the first 32 characters of each genesis hash)', () => {
    expect(SOLANA_NETWORKS).toEqual(['mainnet', 'devnet', 'testnet']);
    // Genesis hashes as getGenesisHash returns them.
    const genesis = {
      mainnet: '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d',
      devnet: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG',
      testnet: '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY',
    };
    for (const network of SOLANA_NETWORKS) expect(SOLANA_CHAIN_REFERENCES[network]).toBe(genesis[network].slice(0, 32));
    expect(solanaChainId('mainnet')).toBe('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp');
  });

  it('builds the CAIP-10 account id, Signet’s subject for a Solana sign-in', () => {
    expect(solanaAccountId('devnet', ADDRESS)).toBe(`solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1:${ADDRESS}`);
    expect(() => solanaAccountId('mainnet', '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2')).toThrow(RangeError);
    expect(() => solanaAccountId('localnet' as SolanaNetwork, ADDRESS)).toThrow(RangeError);
    expect(() => solanaChainId('toString' as SolanaNetwork)).toThrow(RangeError);
  });

  it('reads each SIWS Chain ID as its cluster', () => {
    expect(SIWS_CHAIN_IDS.map(siwsNetwork)).toEqual(['mainnet', 'testnet', 'devnet', 'localnet', 'mainnet', 'testnet', 'devnet']);
  });
});
