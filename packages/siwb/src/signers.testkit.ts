/**
 * Test-only signing (not built, not published: tsconfig.build.json leaves `*.testkit.ts` out):
 * keys, their addresses, and BIP-322 / BIP-137 signatures made by @scure/btc-signer's own
 * signing and finalizing (its sighashes, not this package's) and @noble/curves. Tests check
 * these against bip322-js and bitcoinjs-message, so they are not only this package's word.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base58check, base64 } from '@scure/base';
import {
  NETWORK,
  p2pkh,
  p2sh,
  p2tr,
  p2wpkh,
  RawTx,
  RawWitness,
  SigHash,
  TEST_NETWORK,
  Transaction,
  WIF,
} from '@scure/btc-signer';
import { bip137MessageHash } from './bip137.ts';
import { bip322ToSpend, OP_RETURN_SCRIPT, type SignedMessage } from './bip322.ts';
import type { AddressFamily } from './networks.ts';

export type TestAddressType = 'p2pkh' | 'p2pkh-uncompressed' | 'p2sh-p2wpkh' | 'p2wpkh' | 'p2tr';
export const TEST_ADDRESS_TYPES: readonly TestAddressType[] = ['p2pkh', 'p2pkh-uncompressed', 'p2sh-p2wpkh', 'p2wpkh', 'p2tr'];

export type TestKey = { privateKey: Uint8Array; wif(family?: AddressFamily, compressed?: boolean): string };

/** A key from 32 bytes (a fixed seed gives the same key), or a random one. */
export function testKey(privateKey: Uint8Array = secp256k1.utils.randomSecretKey()): TestKey {
  return {
    privateKey,
    wif: (family = 'mainnet', compressed = true) =>
      // WIF: version, key, and 0x01 when the key is used compressed.
      compressed ? WIF(family === 'mainnet' ? NETWORK : TEST_NETWORK).encode(privateKey) : uncompressedWif(privateKey, family),
  };
}

/** WIF without the compression flag (btc-signer writes compressed WIF only). */
function uncompressedWif(privateKey: Uint8Array, family: AddressFamily): string {
  const version = family === 'mainnet' ? 0x80 : 0xef;
  return base58check(sha256).encode(Uint8Array.from([version, ...privateKey]));
}

const network = (family: AddressFamily) => (family === 'mainnet' ? NETWORK : TEST_NETWORK);

/** The payment (address, script, and what signing needs) of a key as an address type. */
export function payment(key: TestKey, type: TestAddressType, family: AddressFamily = 'mainnet') {
  const net = network(family);
  const pub = secp256k1.getPublicKey(key.privateKey, type !== 'p2pkh-uncompressed');
  if (type === 'p2pkh' || type === 'p2pkh-uncompressed') return p2pkh(pub, net);
  if (type === 'p2wpkh') return p2wpkh(pub, net);
  if (type === 'p2sh-p2wpkh') return p2sh(p2wpkh(pub, net), net);
  return p2tr(pub.subarray(1), undefined, net);
}

export const addressOf = (key: TestKey, type: TestAddressType, family: AddressFamily = 'mainnet') =>
  payment(key, type, family).address as string;

export type Bip322Options = {
  form?: 'simple' | 'full';
  /** The hash type to sign with (default: SIGHASH_ALL for ECDSA, SIGHASH_DEFAULT for Taproot). */
  sighash?: number;
  /** `to_sign`'s version, lock time and input sequence (BIP-322 lets a full signature set them; the template has 0). */
  version?: number;
  lockTime?: number;
  sequence?: number;
};

/**
 * A BIP-322 signature (base64) of `message` by `key` for a P2WPKH, P2SH-P2WPKH or P2TR
 * address, signed and finalized by btc-signer: the witness (simple) or the whole `to_sign` (full).
 */
export function signBip322(
  key: TestKey,
  type: Exclude<TestAddressType, 'p2pkh' | 'p2pkh-uncompressed'>,
  message: SignedMessage,
  options: Bip322Options & { family?: AddressFamily } = {},
): string {
  const pay = payment(key, type, options.family);
  const toSpend = bip322ToSpend(message, pay.script);
  const sighash = options.sighash ?? (type === 'p2tr' ? SigHash.DEFAULT : SigHash.ALL);
  const tx = new Transaction({
    version: options.version ?? 0,
    lockTime: options.lockTime ?? 0,
    allowUnknownVersion: true,
    allowUnknownOutputs: true,
  });
  tx.addOutput({ script: OP_RETURN_SCRIPT, amount: 0n });
  tx.addInput({
    txid: toSpend.id,
    index: 0,
    sequence: options.sequence ?? 0,
    witnessUtxo: { script: pay.script, amount: 0n },
    ...(type === 'p2sh-p2wpkh' ? { redeemScript: (pay as ReturnType<typeof p2sh>).redeemScript } : {}),
    ...(type === 'p2tr' ? { tapInternalKey: (pay as ReturnType<typeof p2tr>).tapInternalKey } : {}),
    ...(sighash === SigHash.DEFAULT ? {} : { sighashType: sighash }),
  });
  tx.signIdx(key.privateKey, 0, [sighash]);
  tx.finalizeIdx(0);
  const signed = tx.extract();
  if (options.form === 'full') return base64.encode(signed);
  const witness = RawTx.decode(signed).witnesses?.[0] ?? [];
  return base64.encode(RawWitness.encode(witness));
}

/**
 * A BIP-137 signature (base64, 65 bytes) of `message` by `key`: header 27 + recovery id, + 4
 * for a compressed key, + 8 / + 12 when it claims a P2SH-P2WPKH / P2WPKH address (`claim`).
 */
export function signBip137(
  key: TestKey,
  message: SignedMessage,
  options: { compressed?: boolean; claim?: 'p2pkh' | 'p2sh-p2wpkh' | 'p2wpkh' } = {},
): string {
  const recovered = secp256k1.sign(bip137MessageHash(message), key.privateKey, { prehash: false, format: 'recovered' });
  const compressed = options.compressed ?? true;
  const offset = options.claim === 'p2wpkh' ? 12 : options.claim === 'p2sh-p2wpkh' ? 8 : compressed ? 4 : 0;
  const bytes = Uint8Array.from(recovered);
  bytes[0] = 27 + (recovered[0] as number) + offset;
  return base64.encode(bytes);
}

/** The same bytes through base64, changed by `edit`. */
export function editSignature(signature: string, edit: (bytes: Uint8Array) => Uint8Array): string {
  const bytes = base64.decode(signature);
  return base64.encode(edit(bytes));
}
