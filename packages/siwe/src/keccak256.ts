import { createRequire } from 'node:module';
import { keccak_256 } from '@noble/hashes/sha3';
import { useKeccak256 } from './checksumAddress.ts';

type Hasher = {
  init(): Hasher;
  update(data: Uint8Array): Hasher;
  digest(format: 'binary'): Uint8Array;
};

const require = createRequire(import.meta.url);

/**
 * keccak256 in WebAssembly (hash-wasm's Keccak build, 11 KB, the module inside the package):
 * about 2 µs for a sign-in message of ~430 bytes where the pure-JavaScript @noble/hashes takes
 * ~40 µs on the same machine (bench/BENCHMARKS.md). Compiling a WebAssembly module is
 * asynchronous: it starts when this module loads, and until it is ready (the first
 * milliseconds of a process) the same hash comes from @noble/hashes. Both give the same bytes
 * (keccak256.test.ts compares them). SIWE_KECCAK=noble keeps @noble/hashes.
 */
let wasm: Hasher | undefined;

/** Resolves with the implementation that hashes from now on. */
export const keccakReady: Promise<'wasm' | 'noble'> =
  process.env.SIWE_KECCAK === 'noble'
    ? Promise.resolve('noble')
    : (require('hash-wasm/dist/keccak.umd.min.js') as { createKeccak(bits: 256): Promise<Hasher> }).createKeccak(256).then(
        (hasher) => {
          wasm = hasher;
          // Message parsing's EIP-55 checksums hash with it too.
          useKeccak256(keccak256);
          return 'wasm' as const;
        },
        () => 'noble' as const,
      );

/** keccak256 of `bytes` (synchronous). */
export function keccak256(bytes: Uint8Array): Uint8Array {
  if (wasm === undefined) return keccak_256(bytes);
  // One hasher, used start to finish within this call: JavaScript runs one call at a time.
  return wasm.init().update(bytes).digest('binary');
}
