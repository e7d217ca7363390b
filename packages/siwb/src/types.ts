import type { BitcoinChainReference } from './networks.ts';

/**
 * A parsed Sign in with Bitcoin message (CAIP-122 for the bip122 namespace). Timestamps keep
 * their exact text, so formatting a parsed message gives back the same bytes.
 */
export type SiwbMessage = {
  domain: string;
  /** P2PKH, P2SH, P2WPKH or P2TR; bech32 in lower case. */
  address: string;
  statement?: string;
  uri: string;
  version: '1';
  /** The CAIP-2 reference of the network (first 32 hex characters of its genesis block hash). */
  chainId: BitcoinChainReference;
  nonce: string;
  issuedAt: string;
  expirationTime?: string;
  notBefore?: string;
  requestId?: string;
  resources?: string[];
};
