import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { bitcoinAccountId, bitcoinChainId, normalizeBitcoinAddress } from './bitcoinAccountId.ts';
import { bitcoinNetworkOf } from './bitcoinNetworkOf.ts';
import { BITCOIN_CHAIN_REFERENCES, BITCOIN_NETWORKS, type BitcoinNetwork } from './networks.ts';

/**
 * Each network's genesis block header (version 1, no previous block), from its merkle root,
 * time, bits and nonce: mainnet's, testnet3's and signet's from Bitcoin Core's chain
 * parameters, testnet4's from BIP-94 (its block hex). The hash is double SHA-256, shown
 * byte-reversed.
 */
const GENESIS: Record<BitcoinNetwork, { merkleRoot: string; time: number; bits: number; nonce: number; hash: string }> = {
  mainnet: {
    merkleRoot: '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b',
    time: 1231006505,
    bits: 0x1d00ffff,
    nonce: 2083236893,
    hash: '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f',
  },
  testnet: {
    merkleRoot: '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b',
    time: 1296688602,
    bits: 0x1d00ffff,
    nonce: 414098458,
    hash: '000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943',
  },
  testnet4: {
    merkleRoot: '7aa0a7ae1e223414cb807e40cd57e667b718e42aaf9306db9102fe28912b7b4e',
    time: 1714777860,
    bits: 0x1d00ffff,
    nonce: 393743547,
    hash: '00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043',
  },
  signet: {
    merkleRoot: '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b',
    time: 1598918400,
    bits: 0x1e0377ae,
    nonce: 52613770,
    hash: '00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6',
  },
};

const u32 = (n: number) => {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, n, true);
  return bytes;
};
const reversed = (bytes: Uint8Array) => Uint8Array.from(bytes).reverse();

describe('networks and CAIP ids', () => {
  it('each reference is the first 32 hex characters of the network’s genesis block hash, computed from its header', () => {
    expect(BITCOIN_NETWORKS).toEqual(['mainnet', 'testnet', 'testnet4', 'signet']);
    for (const network of BITCOIN_NETWORKS) {
      const { merkleRoot, time, bits, nonce, hash } = GENESIS[network];
      const header = Uint8Array.from([
        ...u32(1),
        ...new Uint8Array(32),
        ...reversed(hex.decode(merkleRoot)),
        ...u32(time),
        ...u32(bits),
        ...u32(nonce),
      ]);
      expect(hex.encode(reversed(sha256(sha256(header)))), network).toBe(hash);
      expect(BITCOIN_CHAIN_REFERENCES[network]).toBe(hash.slice(0, 32));
    }
  });

  it('testnet4’s header is the first 80 bytes of the block hex BIP-94 gives', () => {
    const blockHex =
      '0100000000000000000000000000000000000000000000000000000000000000000000004e7b2b9128fe0291db0693af2ae418b767e657cd407e80cb1434221eaea7a07a046f3566ffff001dbb0c7817';
    expect(hex.encode(reversed(sha256(sha256(hex.decode(blockHex)))))).toBe(GENESIS.testnet4.hash);
  });

  it('reads a Chain ID (reference or CAIP-2 id) as its network; anything else is none', () => {
    expect(BITCOIN_NETWORKS.map((n) => bitcoinNetworkOf(BITCOIN_CHAIN_REFERENCES[n]))).toEqual(BITCOIN_NETWORKS);
    expect(bitcoinNetworkOf('bip122:00000000da84f2bafbbc53dee25a72ae')).toBe('testnet4');
    expect(bitcoinNetworkOf('000000000019D6689C085AE165831E93')).toBeUndefined();
    expect(bitcoinNetworkOf('0f9188f13cb7b2c71f2a335e3a4fc328')).toBeUndefined(); // regtest
    expect(bitcoinNetworkOf('12a765e31ffd4059bada1e25190f6e98')).toBeUndefined(); // Litecoin
    expect(bitcoinNetworkOf('eip155:1')).toBeUndefined();
    expect(bitcoinNetworkOf(1 as unknown as string)).toBeUndefined();
  });

  it('builds CAIP-2 and CAIP-10 ids, Signet’s subject: bech32 in lower case, base58 as it is', () => {
    expect(bitcoinChainId('signet')).toBe('bip122:00000008819873e925422c1ff0f99f7c');
    expect(() => bitcoinChainId('regtest' as BitcoinNetwork)).toThrow(RangeError);
    expect(() => bitcoinChainId('toString' as BitcoinNetwork)).toThrow(RangeError);
    expect(bitcoinAccountId('mainnet', 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4')).toBe(
      'bip122:000000000019d6689c085ae165831e93:bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    );
    expect(bitcoinAccountId('mainnet', '1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH')).toBe(
      'bip122:000000000019d6689c085ae165831e93:1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH',
    );
    // testnet3, testnet4 and signet share test addresses; the Chain ID tells them apart.
    const test = 'tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c';
    expect(['testnet', 'testnet4', 'signet'].map((n) => bitcoinAccountId(n as BitcoinNetwork, test))).toEqual([
      `bip122:000000000933ea01ad0ee984209779ba:${test}`,
      `bip122:00000000da84f2bafbbc53dee25a72ae:${test}`,
      `bip122:00000008819873e925422c1ff0f99f7c:${test}`,
    ]);
  });

  it('refuses an address of another network, or no address', () => {
    expect(() => bitcoinAccountId('mainnet', 'tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c')).toThrow(
      RangeError,
    );
    expect(() => bitcoinAccountId('signet', '1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH')).toThrow(/mainnet/);
    expect(() => bitcoinAccountId('mainnet', '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2')).toThrow(RangeError);
  });

  it('normalizes bech32 to lower case and leaves base58 alone', () => {
    expect(normalizeBitcoinAddress('BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4')).toBe(
      'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    );
    expect(normalizeBitcoinAddress('1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH')).toBe('1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH');
    expect(() => normalizeBitcoinAddress('bC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4')).toThrow(RangeError);
  });
});
