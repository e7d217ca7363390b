import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { signRecoverable } from 'tiny-secp256k1';
import { bytesToHex } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import {
  personalSignHash,
  recoverPersonalSignAddress,
  SECP256K1_BACKEND,
  secp256k1Recover,
} from './recoverPersonalSignAddress.ts';

const outcome = (recover: ReturnType<typeof secp256k1Recover>, hash: Uint8Array, signature: Uint8Array, recoveryId: 0 | 1) => {
  try {
    const key = recover(hash, signature, recoveryId);
    return key ? bytesToHex(key) : 'invalid';
  } catch {
    return 'invalid';
  }
};

describe('secp256k1 backends: native libsecp256k1 and its WebAssembly build', () => {
  it('the native addon loads here, and is the one in use', () => {
    expect(SECP256K1_BACKEND).toBe('native');
  });

  it('give identical answers over thousands of valid, mutated and random signatures', () => {
    const native = secp256k1Recover('native');
    const wasm = secp256k1Recover('wasm');
    let valid = 0;
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.string({ maxLength: 200 }),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 63 }),
        fc.integer({ min: 0, max: 255 }),
        (seed, text, kind, position, value) => {
          const key = Uint8Array.from(seed);
          key[0] = (key[0] ?? 0) | 1; // never the zero key
          const hash = personalSignHash(text);
          let { signature, recoveryId } = signRecoverable(hash, key);
          signature = Uint8Array.from(signature);
          if (kind === 1) signature[position] = value; // a byte changed
          if (kind === 2) signature = Uint8Array.from(randomBytes(64)); // noise
          if (kind === 3) recoveryId = (recoveryId ^ 1) as 0 | 1; // the other parity
          const rid = (recoveryId & 1) as 0 | 1;
          const a = outcome(native, hash, signature, rid);
          const b = outcome(wasm, hash, signature, rid);
          if (a !== 'invalid') valid += 1;
          expect(a).toBe(b);
        },
      ),
      { numRuns: 4000, seed: 42 },
    );
    expect(valid).toBeGreaterThan(1000);
  });

  it('recoverPersonalSignAddress finds the signer with either backend (SIWE_SECP256K1=wasm forces WebAssembly)', () => {
    const key = randomBytes(32);
    const text = 'example.com wants you to sign in';
    const { signature, recoveryId } = signRecoverable(personalSignHash(text), key);
    const hex = `0x${Buffer.from(signature).toString('hex')}${(27 + recoveryId).toString(16)}` as `0x${string}`;
    expect(recoverPersonalSignAddress(text, hex)).toBe(privateKeyToAddress(bytesToHex(key)).toLowerCase());
    const forced = execFileSync(
      process.execPath,
      [
        '--conditions=@signet/source',
        '--import',
        'tsx',
        '-e',
        "import('@signet/siwe').then((m) => console.log(m.SECP256K1_BACKEND))",
      ],
      { env: { ...process.env, SIWE_SECP256K1: 'wasm' }, encoding: 'utf8' },
    );
    expect(forced.trim()).toBe('wasm');
  });

  it('recoverPersonalSignAddress refuses anything but 0x and 65 bytes of hex: a non-hex character anywhere, another length', () => {
    const key = randomBytes(32);
    const text = 'example.com wants you to sign in';
    const { signature, recoveryId } = signRecoverable(personalSignHash(text), key);
    const hex = `0x${Buffer.from(signature).toString('hex')}${(27 + recoveryId).toString(16)}`;
    const signer = privateKeyToAddress(bytesToHex(key)).toLowerCase();
    expect(recoverPersonalSignAddress(text, hex as `0x${string}`)).toBe(signer);
    // v written as "1g" (parseInt would read 1), a letter inside r, no 0x, a byte short or long.
    for (const bad of [
      `${hex.slice(0, 130)}1g`,
      `${hex.slice(0, 10)}z${hex.slice(11)}`,
      `00${hex.slice(2)}`,
      hex.slice(0, -2),
      `${hex}00`,
    ]) {
      expect(recoverPersonalSignAddress(text, bad as `0x${string}`), bad).toBeUndefined();
    }
  });
});
