import { keccak_256 } from '@noble/hashes/sha3';

/**
 * The EIP-55 spelling of a 0x-prefixed, 40-hex-digit address: each letter upper case where the
 * matching nibble of keccak256(lower-case hex) is 8 or more. Written here over @noble/hashes
 * rather than taken from viem so that the message entry, which the sign-in page bundles, brings
 * keccak alone and not viem's encoders and error classes (about 2 KB gzipped of the page's
 * budget). checksumAddress.test.ts holds it to viem's answer.
 */
export function checksumAddress(address: string): `0x${string}` {
  const hex = address.slice(2).toLowerCase();
  const hash = keccak_256(new TextEncoder().encode(hex));
  let out = '0x';
  for (let i = 0; i < hex.length; i++) {
    const nibble = ((hash[i >> 1] as number) >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    out += nibble >= 8 ? (hex[i] as string).toUpperCase() : hex[i];
  }
  return out as `0x${string}`;
}
