import { createPublicKey, verify } from 'node:crypto';
import { ED25519_TORSION_SUBGROUP, ed25519 } from '@noble/curves/ed25519';
import { createSiwsMessage } from './createSiwsMessage.ts';
import { decodeSiwsSignature } from './decodeSiwsSignature.ts';
import { SiwsError } from './errors.ts';
import { decodeSolanaAddress } from './isSolanaAddress.ts';
import type { SolanaNetwork } from './networks.ts';
import { type ParseSiwsMessageOptions, parseSiwsMessage } from './parseSiwsMessage.ts';
import { siwsNetwork } from './siwsNetwork.ts';
import { type SolanaAccountId, solanaAccountId } from './solanaAccountId.ts';
import type { SiwsMessage } from './types.ts';

export type VerifySiwsSignatureParameters = {
  /** The message as signed (text), or parsed (it is formatted back to the same text). */
  message: string | SiwsMessage;
  /** 64-byte Ed25519 signature: base58, padded base64, or bytes. */
  signature: string | Uint8Array;
  /** How text is parsed (`acceptCaip2ChainId`: also a cluster's CAIP-2 id). */
  parse?: ParseSiwsMessageOptions;
};

export type VerifySiwsSignatureReturnType = {
  message: SiwsMessage;
  /** base58 address (the public key that signed). */
  address: string;
  /** The cluster the message's Chain ID names, or undefined when it names none. */
  network: SolanaNetwork | 'localnet' | undefined;
  /** CAIP-10 `solana:<reference>:<address>` when the network has a CAIP-2 reference (not localnet, not absent). */
  accountId: SolanaAccountId | undefined;
  method: 'ed25519';
};

const encoder = new TextEncoder();
/** DER SubjectPublicKeyInfo header of an Ed25519 key (RFC 8410): the 32 key bytes follow. */
const SPKI_ED25519 = Uint8Array.from([0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]);

/**
 * The encodings of small-order points that a strict (RFC 8032) decoder reads: the eight points
 * of the torsion subgroup, plus the two of them with x = 0 written with the sign bit set. No one
 * holds such a key, and a trivial signature verifies for any message under it.
 */
const SMALL_ORDER_KEYS = new Set([
  ...ED25519_TORSION_SUBGROUP,
  `01${'00'.repeat(30)}80`, // (0, 1), the neutral point, with the sign bit
  `ec${'ff'.repeat(31)}`, // (0, -1), of order 2, with the sign bit
]);

/** Whether the key's y (its low 255 bits) is below p = 2^255 - 19, as RFC 8032 requires. */
function canonicalY(key: Uint8Array): boolean {
  if (((key[31] as number) & 0x7f) !== 0x7f) return true;
  for (let i = 30; i > 0; i--) if (key[i] !== 0xff) return true;
  return (key[0] as number) < 0xed;
}

/** Node's own Ed25519 (OpenSSL): refuses s ≥ L, non-canonical R and keys off the curve, but not small-order keys. */
function opensslVerify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  const key = createPublicKey({ key: Buffer.concat([SPKI_ED25519, publicKey]), format: 'der', type: 'spki' });
  return verify(null, message, key, signature);
}

/**
 * Strict Ed25519 verification: RFC 8032 (canonical encodings, s < L) and no small-order key,
 * by Node's own Ed25519 (OpenSSL, several times faster than pure JavaScript) after two byte
 * checks of the key. A property test holds it to @noble/curves' strict `verify` (`zip215: false`).
 */
export function ed25519Verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  return (
    publicKey.length === 32 &&
    canonicalY(publicKey) &&
    !SMALL_ORDER_KEYS.has(Buffer.from(publicKey).toString('hex')) &&
    opensslVerify(signature, message, publicKey)
  );
}

/** Why a key can make no signature (for the error message; only after a failure), or undefined for a usable key. */
function unusableKey(publicKey: Uint8Array): string | undefined {
  try {
    const point = ed25519.ExtendedPoint.fromHex(publicKey); // strict RFC 8032 decoding
    return point.isSmallOrder() ? 'is a small-order point, whose key no one holds' : undefined;
  } catch {
    return 'is not an Ed25519 public key (a program-derived address, say), so it cannot sign';
  }
}

/**
 * Verifies the Ed25519 signature of the message's text (its UTF-8 bytes) by the message's
 * address, offline. Strict RFC 8032 verification: non-canonical encodings and small-order
 * public keys are refused (ZIP-215's looser rules, and OpenSSL alone, would let anyone sign
 * for the neutral point's address). Throws `SiwsError` `INVALID_SIGNATURE` when the signature is malformed or
 * wrong, `UNABLE_TO_PARSE` and the like when the message is.
 */
export function verifySiwsSignature(parameters: VerifySiwsSignatureParameters): VerifySiwsSignatureReturnType {
  const message =
    typeof parameters.message === 'string' ? parseSiwsMessage(parameters.message, parameters.parse) : parameters.message;
  const text = typeof parameters.message === 'string' ? parameters.message : createSiwsMessage(message);
  return verifyParsedSignature(message, text, parameters.signature);
}

/** verifySiwsSignature for a message already parsed from `text` (no second parse). */
export function verifyParsedSignature(
  message: SiwsMessage,
  text: string,
  signature: string | Uint8Array,
): VerifySiwsSignatureReturnType {
  const bytes = decodeSiwsSignature(signature);
  const publicKey = decodeSolanaAddress(message.address);
  if (publicKey === undefined) {
    throw new SiwsError('INVALID_ADDRESS', `address ${JSON.stringify(message.address)} is not 32 bytes of base58`, {
      field: 'address',
      received: message.address,
    });
  }
  if (!ed25519Verify(bytes, encoder.encode(text), publicKey)) {
    const unusable = unusableKey(publicKey);
    throw new SiwsError(
      'INVALID_SIGNATURE',
      unusable ? `address ${message.address} ${unusable}` : `signature was not made by ${message.address}`,
      { field: 'signature' },
    );
  }
  const network = message.chainId === undefined ? undefined : siwsNetwork(message.chainId);
  const accountId = network === undefined || network === 'localnet' ? undefined : solanaAccountId(network, message.address);
  return { message, address: message.address, network, accountId, method: 'ed25519' };
}
