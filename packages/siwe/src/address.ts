import { keccak256 } from './keccak256.ts';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * The EIP-55 spelling of an Ethereum address, as viem's getAddress gives it (any case accepted,
 * the checksum of mixed-case input not checked), for servers: the hash is keccak256.ts's
 * (WebAssembly once ready, ~2 µs), where checksumAddress.ts, which the wallet page bundles,
 * keeps @noble/hashes. Throws a TypeError for anything but 0x and 40 hex digits.
 * address.test.ts holds it to viem's answer.
 */
export function toChecksumAddress(address: string): `0x${string}` {
  if (typeof address !== 'string' || !ADDRESS.test(address)) throw new TypeError(`Address "${address}" is invalid.`);
  const hex = address.slice(2).toLowerCase();
  const hash = keccak256(Buffer.from(hex, 'latin1'));
  let out = '0x';
  for (let i = 0; i < hex.length; i++) {
    const nibble = ((hash[i >> 1] as number) >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    out += nibble >= 8 ? (hex[i] as string).toUpperCase() : hex[i];
  }
  return out as `0x${string}`;
}
