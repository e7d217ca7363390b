import type { SiwsChainId } from './networks.ts';

/**
 * A parsed Sign In With Solana message: the wallet-standard `SolanaSignInInput` with the two
 * fields every message has (domain, address) required. Every other field is optional in SIWS
 * and present only when the message has its line. Timestamps keep their exact text, so
 * formatting a parsed message gives back the same bytes.
 */
export type SiwsMessage = {
  domain: string;
  /** base58, 32 bytes: the Ed25519 public key that signs. */
  address: string;
  statement?: string;
  uri?: string;
  version?: '1';
  chainId?: SiwsChainId;
  nonce?: string;
  issuedAt?: string;
  expirationTime?: string;
  notBefore?: string;
  requestId?: string;
  resources?: string[];
};
