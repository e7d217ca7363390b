import { keccak_256 } from '@noble/hashes/sha3';

/**
 * The EIP-55 spelling of a 0x-prefixed, 40-hex-digit address: each letter upper case where the
 * matching nibble of keccak256(lower-case hex) is 8 or more. Written here over @noble/hashes
 * rather than taken from viem so that the message entry, which the sign-in page bundles, brings
 * keccak alone and not viem's encoders and error classes (about 2 KB gzipped of the page's
 * budget). checksumAddress.test.ts holds it to viem's answer.
 */
let keccak: (bytes: Uint8Array) => Uint8Array = keccak_256;

/**
 * Where the hash comes from: a server hands in a faster keccak256 that gives the same bytes
 * (keccak256.ts does, once its WebAssembly build is ready: ~2 µs instead of ~20 for a
 * sign-in's address); the page, which never loads keccak256.ts, keeps @noble/hashes.
 */
export function useKeccak256(hash: (bytes: Uint8Array) => Uint8Array) {
  keccak = hash;
}

/**
 * Spellings made lately, by the address as given: a sign-in spells its signer's address several
 * times (the message, the account id, the wallet id, the claims), and the same people come back.
 * Bounded: past `HELD` the oldest is dropped.
 */
const spelled = new Map<string, `0x${string}`>();
const HELD = 4096;

export function checksumAddress(address: string): `0x${string}` {
  const known = spelled.get(address);
  if (known !== undefined) return known;
  const hex = address.slice(2).toLowerCase();
  const hash = keccak(new TextEncoder().encode(hex));
  let out = '0x';
  for (let i = 0; i < hex.length; i++) {
    const nibble = ((hash[i >> 1] as number) >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    out += nibble >= 8 ? (hex[i] as string).toUpperCase() : hex[i];
  }
  if (spelled.size >= HELD) spelled.delete(spelled.keys().next().value as string);
  spelled.set(address, out as `0x${string}`);
  return out as `0x${string}`;
}
