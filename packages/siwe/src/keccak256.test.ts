import { execFileSync } from 'node:child_process';
import { keccak_256 } from '@noble/hashes/sha3';
import fc from 'fast-check';
import { bytesToHex, keccak256 as viemKeccak256 } from 'viem';
import { describe, expect, it } from 'vitest';
import { keccak256, keccakReady } from './keccak256.ts';

describe('keccak256: WebAssembly (hash-wasm), @noble/hashes until it is ready', () => {
  it('the WebAssembly build loads here, and hashes once ready; SIWE_KECCAK=noble keeps @noble/hashes', async () => {
    expect(await keccakReady).toBe('wasm');
    const kept = execFileSync(
      process.execPath,
      [
        '--conditions=@signet/source',
        '--import',
        'tsx',
        '-e',
        "import('@signet/siwe').then(async (m) => console.log(await m.keccakReady))",
      ],
      { env: { ...process.env, SIWE_KECCAK: 'noble' }, encoding: 'utf8' },
    );
    expect(kept.trim()).toBe('noble');
  });

  it('gives the bytes @noble/hashes and viem give, for inputs of every length across the block size', async () => {
    await keccakReady;
    // Known answers: the empty input and "abc" (Keccak-256, not SHA3-256).
    expect(bytesToHex(keccak256(new Uint8Array()))).toBe('0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    expect(bytesToHex(keccak256(new TextEncoder().encode('abc')))).toBe(
      '0x4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45',
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 700 }), (bytes) => {
        const ours = bytesToHex(keccak256(bytes));
        expect(ours).toBe(bytesToHex(keccak_256(bytes)));
        expect(ours).toBe(viemKeccak256(bytes));
      }),
      { numRuns: 2000, seed: 7 },
    );
  });

  it('a hash interrupted by nothing: back-to-back calls on the one hasher do not mix their inputs', async () => {
    await keccakReady;
    const a = new Uint8Array(300).fill(1);
    const b = new Uint8Array(5).fill(2);
    const first = bytesToHex(keccak256(a));
    expect(bytesToHex(keccak256(b))).toBe(bytesToHex(keccak_256(b)));
    expect(bytesToHex(keccak256(a))).toBe(first);
  });
});
