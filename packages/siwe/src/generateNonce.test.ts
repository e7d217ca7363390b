import { describe, expect, it } from 'vitest';
import { generateNonce } from './generateNonce.ts';
import { NONCE_RE } from './grammar.ts';

describe('generateNonce', () => {
  it('makes EIP-4361 nonces (8+ letters and digits) that do not repeat', () => {
    const nonces = new Set(Array.from({ length: 2000 }, () => generateNonce()));
    expect(nonces.size).toBe(2000);
    for (const nonce of nonces) expect(nonce).toMatch(NONCE_RE);
    expect(generateNonce(32)).toHaveLength(32);
  });

  it('uses every character of the alphabet roughly evenly', () => {
    const counts = new Map<string, number>();
    for (const char of Array.from({ length: 2000 }, () => generateNonce(31)).join('')) {
      counts.set(char, (counts.get(char) ?? 0) + 1);
    }
    expect(counts.size).toBe(62);
    const expected = (2000 * 31) / 62;
    for (const count of counts.values()) expect(Math.abs(count - expected)).toBeLessThan(expected * 0.25);
  });

  it('refuses lengths EIP-4361 does not allow', () => {
    expect(() => generateNonce(7)).toThrow(RangeError);
  });
});
