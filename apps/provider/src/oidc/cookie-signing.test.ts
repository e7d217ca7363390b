import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import Keygrip from 'keygrip';
import { describe, expect, it } from 'vitest';
import { cookieSigner } from './cookie-signing.ts';

describe('cookie signing (keygrip-compatible, compared with timingSafeEqual)', () => {
  const keys = [randomBytes(32).toString('base64url'), randomBytes(32).toString('base64url')];

  it('signs exactly as keygrip does, and each verifies the other’s signatures, under any key of the list', () => {
    const ours = cookieSigner(keys);
    const theirs = new Keygrip(keys);
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (data) => {
        expect(ours.sign(data)).toBe(theirs.sign(data));
        expect(ours.index(data, theirs.sign(data))).toBe(0);
        expect(theirs.index(data, ours.sign(data))).toBe(0);
        // Signed before a rotation, under the key now second: still valid, as keygrip says.
        const old = new Keygrip([keys[1] as string]).sign(data);
        expect(ours.index(data, old)).toBe(1);
        expect(theirs.index(data, old)).toBe(1);
      }),
      { numRuns: 300, seed: 3 },
    );
  });

  it('refuses a signature of other data, another key, a changed character, another length, or none', () => {
    const ours = cookieSigner(keys);
    const data = '_interaction=abc123';
    const good = ours.sign(data);
    expect(ours.verify(data, good)).toBe(true);
    expect(ours.verify('_interaction=abc124', good)).toBe(false);
    expect(ours.verify(data, cookieSigner([randomBytes(32).toString('base64url')]).sign(data))).toBe(false);
    const flipped = `${good.slice(0, 5)}${good[5] === 'A' ? 'B' : 'A'}${good.slice(6)}`;
    expect(ours.verify(data, flipped)).toBe(false);
    expect(ours.verify(data, good.slice(0, -1))).toBe(false);
    expect(ours.verify(data, `${good}A`)).toBe(false);
    expect(ours.verify(data, '')).toBe(false);
    expect(ours.index(data, undefined as unknown as string)).toBe(-1);
  });

  it('needs a key', () => {
    expect(() => cookieSigner([])).toThrow(/at least one/);
    expect(() => cookieSigner([''])).toThrow(/at least one/);
  });
});
