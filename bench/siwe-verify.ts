/**
 * EOA verification speed: Signet's whole check (strict parse + validate + offline recovery)
 * beside the raw floor (EIP-191 hash + secp256k1 recovery + keccak, straight @noble calls)
 * and beside the `siwe` npm package (spruceid, on ethers), in the same run.
 *
 * Recovery dominates: @noble's pure-JS secp256k1 recovery (used by viem and ethers) is the
 * floor the issue names; Signet recovers with libsecp256k1 (the native addon when it loads,
 * else its WebAssembly build), so floors with those primitives show what Signet's own parsing
 * and validation cost. The section says which backend Signet used.
 */
import { secp256k1 } from '@noble/curves/secp256k1';
import { keccak_256 } from '@noble/hashes/sha3';
import { createSiweMessage, keccak256, keccakReady, SECP256K1_BACKEND, secp256k1Recover, verifySiwe } from '@signet/siwe';
import { SiweMessage } from 'siwe';
import { bytesToHex, hexToBytes, recoverMessageAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { parseSiweMessage as viemParse, validateSiweMessage as viemValidate } from 'viem/siwe';
import { measure } from './measure.ts';
import type { Section } from './report.ts';

const account = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const NOW = Date.parse('2025-01-01T00:05:00Z');

/** The benchmark's Ethereum sign-in: its message, signature, and Signet's whole check of it (the Solana bench runs it too). */
export async function ethereumSignIn() {
  const message = createSiweMessage({
    domain: 'login.example.com',
    address: account.address,
    statement: 'Sign in to Example with your Ethereum account.',
    uri: 'https://login.example.com',
    chainId: 1,
    nonce: 'k8Xg2LqP0vTz7mNcR',
    issuedAt: '2025-01-01T00:00:00.000Z',
    expirationTime: '2025-01-01T00:10:00.000Z',
    resources: ['https://rp.example.org/callback'],
  });
  const signature = await account.signMessage({ message });
  const verify = async () => {
    const result = await verifySiwe({
      message,
      signature,
      expect: { domain: 'login.example.com', nonce: 'k8Xg2LqP0vTz7mNcR', time: NOW, resource: 'https://rp.example.org/callback' },
    });
    if (result.address !== account.address) throw new Error('signet: wrong address');
  };
  return { message, signature, verify };
}

export async function siweVerify(): Promise<Section> {
  const { message, signature, verify: signet } = await ethereumSignIn();
  const expected = account.address.toLowerCase();

  // The floor: what any EOA verification must at least do.
  const messageBytes = new TextEncoder().encode(message);
  const prefix = new TextEncoder().encode(`\x19Ethereum Signed Message:\n${messageBytes.length}`);
  const sigBytes = hexToBytes(signature);
  const floor = () => {
    const payload = new Uint8Array(prefix.length + messageBytes.length);
    payload.set(prefix);
    payload.set(messageBytes, prefix.length);
    const hash = keccak_256(payload);
    const sig = secp256k1.Signature.fromCompact(sigBytes.subarray(0, 64)).addRecoveryBit((sigBytes[64] as number) - 27);
    const address = bytesToHex(keccak_256(sig.recoverPublicKey(hash).toRawBytes(false).subarray(1)).subarray(12));
    if (address !== expected) throw new Error('floor: wrong address');
  };

  // The same floor with the primitives Signet uses (keccak in WebAssembly, libsecp256k1 recovery
  // in WebAssembly or native): Signet's own overhead.
  const keccak = await keccakReady;
  const floorWith = (name: 'wasm' | 'native') => {
    const recover = secp256k1Recover(name);
    return () => {
      const payload = new Uint8Array(prefix.length + messageBytes.length);
      payload.set(prefix);
      payload.set(messageBytes, prefix.length);
      const publicKey = recover(keccak256(payload), sigBytes.subarray(0, 64), ((sigBytes[64] as number) - 27) as 0 | 1);
      if (!publicKey || bytesToHex(keccak256(publicKey.subarray(1)).subarray(12)) !== expected)
        throw new Error('floor: wrong address');
    };
  };
  const floorWasm = floorWith('wasm');
  const floorNative = SECP256K1_BACKEND === 'native' ? floorWith('native') : undefined;

  const spruce = async () => {
    const result = await new SiweMessage(message).verify(
      { signature, domain: 'login.example.com', nonce: 'k8Xg2LqP0vTz7mNcR', time: new Date(NOW).toISOString() },
      { suppressExceptions: false },
    );
    if (!result.success) throw new Error('siwe: failed');
  };

  const viemOnly = async () => {
    const parsed = viemParse(message);
    if (!viemValidate({ message: parsed, domain: 'login.example.com', nonce: 'k8Xg2LqP0vTz7mNcR', time: new Date(NOW) })) {
      throw new Error('viem: invalid');
    }
    const address = await recoverMessageAddress({ message, signature });
    if (address !== account.address) throw new Error('viem: wrong address');
  };

  // Each must succeed before it is timed.
  floor();
  floorWasm();
  floorNative?.();
  await signet();
  await spruce();
  await viemOnly();

  const FLOOR = 'floor: keccak + secp256k1 recovery (@noble)';
  const FLOOR_WASM = `floor: keccak (${keccak === 'wasm' ? 'hash-wasm' : '@noble'}) + secp256k1 recovery (libsecp256k1 WASM)`;
  const FLOOR_NATIVE = `floor: keccak (${keccak === 'wasm' ? 'hash-wasm' : '@noble'}) + secp256k1 recovery (libsecp256k1 native)`;
  const SIGNET = 'signet: verifySiwe (parse + validate + recover)';
  const SIWE = 'siwe@3 (spruceid, ethers 6): new SiweMessage().verify()';
  const { results, ratio } = await measure([
    { name: FLOOR, fn: floor },
    { name: FLOOR_WASM, fn: floorWasm },
    ...(floorNative ? [{ name: FLOOR_NATIVE, fn: floorNative }] : []),
    { name: SIGNET, fn: signet },
    { name: 'viem: parse + validate + recoverMessageAddress', fn: viemOnly },
    { name: SIWE, fn: spruce },
  ]);
  const ofFloor = ratio(SIGNET, FLOOR);
  const ofSameCrypto = ratio(SIGNET, SECP256K1_BACKEND === 'native' ? FLOOR_NATIVE : FLOOR_WASM);
  const vsSiwe = ratio(SIGNET, SIWE);
  return {
    title: 'EOA sign-in verification (one message, one signature)',
    table: {
      head: ['case', 'ops/s', 'mean µs', 'p99 µs'],
      rows: results.map((r) => [r.name, r.opsPerSec.toFixed(0), r.meanMicros.toFixed(1), r.p99Micros.toFixed(1)]),
    },
    checks: [
      {
        name: 'signet / floor',
        value: ofFloor,
        display: `${(ofFloor * 100).toFixed(1)} %`,
        target: '≥ 85 %',
        pass: ofFloor >= 0.85,
      },
      {
        name: `signet / floor on the same crypto (${SECP256K1_BACKEND}; overhead of parse + validate)`,
        value: ofSameCrypto,
        display: `${(ofSameCrypto * 100).toFixed(1)} %`,
        target: '≥ 85 %',
        pass: ofSameCrypto >= 0.85,
      },
      { name: 'signet / siwe@3', value: vsSiwe, display: `${vsSiwe.toFixed(2)}×`, target: '≥ 2×', pass: vsSiwe >= 2 },
    ],
    notes: [
      `Signet's secp256k1 backend in this run: ${SECP256K1_BACKEND} (libsecp256k1${SECP256K1_BACKEND === 'native' ? ', the optional secp256k1 addon' : ' compiled to WebAssembly'}); keccak256: ${keccak === 'wasm' ? "hash-wasm's WebAssembly build" : '@noble/hashes'}.`,
    ],
  };
}
