import { getAddress } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { toChecksumAddress } from './address.ts';
import { keccakReady } from './keccak256.ts';

describe('toChecksumAddress', () => {
  it("spells 200 random addresses as viem's getAddress does, from lower, upper and mixed case", async () => {
    await keccakReady;
    for (let i = 1; i <= 200; i++) {
      const address = privateKeyToAddress(`0x${i.toString(16).padStart(64, '0')}`);
      for (const given of [address, address.toLowerCase(), `0x${address.slice(2).toUpperCase()}`]) {
        expect(toChecksumAddress(given)).toBe(getAddress(given));
      }
    }
  });

  it('refuses what is not 0x and 40 hex digits, as getAddress does', () => {
    for (const bad of [
      '',
      '0x',
      '0x123',
      `0x${'g'.repeat(40)}`,
      `${'a'.repeat(42)}`,
      `0x${'a'.repeat(41)}`,
      ` 0x${'a'.repeat(40)}`,
    ]) {
      expect(() => toChecksumAddress(bad)).toThrow(TypeError);
      expect(() => getAddress(bad)).toThrow();
    }
    expect(() => toChecksumAddress(undefined as unknown as string)).toThrow(TypeError);
  });
});
