import { checksumAddress } from './checksumAddress.ts';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * The EIP-55 spelling of an Ethereum address, as viem's getAddress gives it (any case accepted,
 * the checksum of mixed-case input not checked), for servers that need not load viem: with
 * keccak256.ts loaded (any server entry), the hash is its WebAssembly build once ready. Throws a
 * TypeError for anything but 0x and 40 hex digits. address.test.ts holds it to viem's answer.
 */
export function toChecksumAddress(address: string): `0x${string}` {
  if (typeof address !== 'string' || !ADDRESS.test(address)) throw new TypeError(`Address "${address}" is invalid.`);
  return checksumAddress(address);
}
