const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A nonce for a sign-in message: `length` (default 17, about 101 bits) letters and digits
 * from the platform's cryptographic random source. Unlike viem's `generateSiweNonce`, never
 * `Math.random`.
 */
export function generateNonce(length = 17): string {
  if (!Number.isInteger(length) || length < 8) throw new RangeError('a SIWE nonce has at least 8 characters');
  let nonce = '';
  // Rejection sampling keeps every character equally likely (256 is not a multiple of 62).
  while (nonce.length < length) {
    const bytes = crypto.getRandomValues(new Uint8Array(length * 2));
    for (const byte of bytes) {
      if (byte < 248 && nonce.length < length) nonce += ALPHABET[byte % 62];
    }
  }
  return nonce;
}
