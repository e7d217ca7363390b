import { base58 } from '@scure/base';

/** The base58 alphabet (Bitcoin's) and the lengths 32 bytes take in it. */
const BASE58_ADDRESS_RE = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** The last address decoded: verification decodes the address parsing has just decoded (base58 is quadratic). */
let last: { address: string; bytes: Uint8Array } | undefined;

/** The 32 bytes of a base58 Solana address (an Ed25519 public key), or undefined when it is not one. */
export function decodeSolanaAddress(address: string): Uint8Array | undefined {
  if (last?.address === address) return last.bytes.slice();
  if (typeof address !== 'string' || !BASE58_ADDRESS_RE.test(address)) return undefined;
  const bytes = base58.decode(address);
  if (bytes.length !== 32) return undefined;
  last = { address, bytes: bytes.slice() };
  return bytes;
}

/**
 * Whether `address` is a Solana address: base58 that decodes to exactly 32 bytes. (It may
 * still be off the curve, as program-derived addresses are: such an address cannot sign.)
 */
export function isSolanaAddress(address: string): boolean {
  return decodeSolanaAddress(address) !== undefined;
}
