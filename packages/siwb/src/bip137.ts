import { CompactSizeLen } from '@scure/btc-signer/script.js';
import { concatBytes, sha256x2 } from '@scure/btc-signer/utils.js';
import type { SignedMessage } from './bip322.ts';

const encoder = new TextEncoder();
const PREFIX = encoder.encode('\x18Bitcoin Signed Message:\n');

/**
 * The hash a legacy (BIP-137, `signmessage`) signature signs: double SHA-256 of
 * `"\x18Bitcoin Signed Message:\n"`, the message's length as a CompactSize, and the message.
 */
export function bip137MessageHash(message: SignedMessage): Uint8Array {
  const bytes = typeof message === 'string' ? encoder.encode(message) : message;
  return sha256x2(concatBytes(PREFIX, CompactSizeLen.encode(bytes.length), bytes));
}
