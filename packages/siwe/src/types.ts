import type { Address } from 'viem';

/**
 * A parsed EIP-4361 message. Timestamps keep the exact text of the message (RFC 3339, any
 * offset, any precision) so that formatting a parsed message gives back the same bytes;
 * `siweTime()` turns one into epoch milliseconds.
 */
export type SiweMessage = {
  scheme?: string;
  domain: string;
  address: Address;
  statement?: string;
  uri: string;
  version: '1';
  chainId: number;
  nonce: string;
  issuedAt: string;
  expirationTime?: string;
  notBefore?: string;
  requestId?: string;
  resources?: string[];
};
