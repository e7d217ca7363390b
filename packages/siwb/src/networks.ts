/**
 * The Bitcoin networks a sign-in may name: mainnet, testnet (testnet3), testnet4 (BIP-94) and
 * signet (BIP-325's default signet).
 */
export const BITCOIN_NETWORKS = ['mainnet', 'testnet', 'testnet4', 'signet'] as const;
export type BitcoinNetwork = (typeof BITCOIN_NETWORKS)[number];

/**
 * CAIP-2 references of the bip122 namespace: the first 32 hex characters (16 bytes) of each
 * network's genesis block hash, in lower case. A message's `Chain ID:` line is one of these.
 */
export const BITCOIN_CHAIN_REFERENCES = {
  mainnet: '000000000019d6689c085ae165831e93',
  testnet: '000000000933ea01ad0ee984209779ba',
  testnet4: '00000000da84f2bafbbc53dee25a72ae',
  signet: '00000008819873e925422c1ff0f99f7c',
} as const satisfies Record<BitcoinNetwork, string>;
export type BitcoinChainReference = (typeof BITCOIN_CHAIN_REFERENCES)[BitcoinNetwork];

/**
 * Which addresses a network uses. Mainnet has its own (`bc1…`, `1…`, `3…`); testnet3, testnet4
 * and signet share the test encodings (`tb1…`, `m…`/`n…`, `2…`), so an address alone cannot
 * tell them apart: any of the three accepts a test address.
 */
export type AddressFamily = 'mainnet' | 'test';
export const ADDRESS_FAMILY = {
  mainnet: 'mainnet',
  testnet: 'test',
  testnet4: 'test',
  signet: 'test',
} as const satisfies Record<BitcoinNetwork, AddressFamily>;
