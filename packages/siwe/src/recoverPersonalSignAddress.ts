import { createRequire } from 'node:module';
import { keccak256 } from './keccak256.ts';

/** Recovers the uncompressed (65-byte) public key, or throws / returns null for an invalid signature. */
type Recover = (hash: Uint8Array, signature64: Uint8Array, recoveryId: 0 | 1) => Uint8Array | null;

type NativeSecp256k1 = {
  ecdsaRecover(signature: Uint8Array, recoveryId: number, hash: Uint8Array, compressed: boolean): Uint8Array;
};

type WasmSecp256k1 = {
  recover: (hash: Uint8Array, signature: Uint8Array, recoveryId: 0 | 1, compressed: boolean) => Uint8Array | null;
};

const require = createRequire(import.meta.url);

/**
 * The two builds of libsecp256k1, each loaded only when picked (the WebAssembly module alone
 * costs a process about 10 MB); loading `native` throws when the addon is absent or has no
 * binary here.
 */
const BACKENDS = {
  native: (): Recover => {
    const native = require('secp256k1/bindings') as NativeSecp256k1;
    return (hash, signature, recoveryId) => native.ecdsaRecover(signature, recoveryId, hash, false);
  },
  wasm: (): Recover => {
    const wasm = require('tiny-secp256k1') as WasmSecp256k1;
    return (hash, signature, recoveryId) => wasm.recover(hash, signature, recoveryId, false);
  },
};

/**
 * libsecp256k1 as a native addon (the optional `secp256k1` package, whose prebuilt binary
 * ships inside it) when it loads, else the same library compiled to WebAssembly
 * (`tiny-secp256k1`). Both give identical answers (a property test compares them over
 * thousands of signatures); the native one is faster (bench/BENCHMARKS.md).
 * SIWE_SECP256K1=wasm forces WebAssembly.
 */
function loadBackend(): { name: 'native' | 'wasm'; recover: Recover } {
  if (process.env.SIWE_SECP256K1 !== 'wasm') {
    try {
      return { name: 'native', recover: BACKENDS.native() };
    } catch {
      // not installed, or no binary for this platform: WebAssembly
    }
  }
  return { name: 'wasm', recover: BACKENDS.wasm() };
}

const backend = loadBackend();

/** Which libsecp256k1 build recovers signatures in this process: `native` or `wasm`. */
export const SECP256K1_BACKEND: 'native' | 'wasm' = backend.name;

/** Recovery with one named backend (tests and benchmarks compare them); throws if it cannot load. */
export const secp256k1Recover = (name: 'native' | 'wasm'): Recover => BACKENDS[name]();

/**
 * The uncompressed public key (65 bytes, 0x04‖x‖y) that made the 64-byte signature r‖s of
 * `hash` with `recoveryId`, or undefined when there is none (r or s out of range, or zero).
 */
export function recoverSecp256k1PublicKey(hash: Uint8Array, signature64: Uint8Array, recoveryId: 0 | 1): Uint8Array | undefined {
  try {
    return backend.recover(hash, signature64, recoveryId) ?? undefined;
  } catch {
    return undefined;
  }
}

/** 0x and 65 bytes in hex: r, s and v. */
const SIGNATURE_65 = /^0x[0-9a-fA-F]{130}$/;

/** EIP-191 `personal_sign` hash of a text: keccak256("\x19Ethereum Signed Message:\n" + length + text). */
export function personalSignHash(text: string): Uint8Array {
  // The prefix names the length of the text in UTF-8 bytes; one buffer holds both.
  return keccak256(Buffer.from(`\x19Ethereum Signed Message:\n${Buffer.byteLength(text)}${text}`));
}

/**
 * The address (lower-case hex) whose key made a 65-byte `personal_sign` signature over
 * `text`, or undefined when the signature is not a valid secp256k1 signature.
 *
 * Synchronous and offline: the EIP-191 hash, one public-key recovery and one keccak.
 * Recovery runs in libsecp256k1 (native, else WebAssembly: SECP256K1_BACKEND), several times
 * faster than the pure-JS @noble recovery that viem and ethers use; see bench/BENCHMARKS.md.
 */
export function recoverPersonalSignAddress(text: string, signature: `0x${string}`): string | undefined {
  if (!SIGNATURE_65.test(signature)) return undefined;
  const v = Number.parseInt(signature.slice(130), 16);
  // v is 27/28 (legacy) or 0/1 (y parity), as wallets emit either.
  const recoveryId = v === 27 || v === 28 ? v - 27 : v === 0 || v === 1 ? v : -1;
  if (recoveryId === -1) return undefined;
  try {
    const rs = Buffer.from(signature.slice(2, 130), 'hex');
    const publicKey = backend.recover(personalSignHash(text), rs, recoveryId as 0 | 1);
    if (!publicKey) return undefined;
    const hash = keccak256(publicKey.subarray(1));
    return `0x${Buffer.from(hash.buffer, hash.byteOffset + 12, 20).toString('hex')}`;
  } catch {
    // r or s out of range, or zero: not a signature at all.
    return undefined;
  }
}
