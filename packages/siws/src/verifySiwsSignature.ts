import { ed25519 } from '@noble/curves/ed25519';
import { createSiwsMessage } from './createSiwsMessage.ts';
import { decodeSiwsSignature } from './decodeSiwsSignature.ts';
import { SiwsError } from './errors.ts';
import { decodeSolanaAddress } from './isSolanaAddress.ts';
import type { SolanaNetwork } from './networks.ts';
import { parseSiwsMessage } from './parseSiwsMessage.ts';
import { siwsNetwork } from './siwsNetwork.ts';
import { type SolanaAccountId, solanaAccountId } from './solanaAccountId.ts';
import type { SiwsMessage } from './types.ts';

export type VerifySiwsSignatureParameters = {
  /** The message as signed (text), or parsed (it is formatted back to the same text). */
  message: string | SiwsMessage;
  /** 64-byte Ed25519 signature: base58, padded base64, or bytes. */
  signature: string | Uint8Array;
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

/** Why a key could not have made any signature, when that is the reason (undefined otherwise). */
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
 * public keys are refused (ZIP-215's looser rules would let anyone sign for the identity
 * point's address). Throws `SiwsError` `INVALID_SIGNATURE` when the signature is malformed or
 * wrong, `UNABLE_TO_PARSE` and the like when the message is.
 */
export function verifySiwsSignature(parameters: VerifySiwsSignatureParameters): VerifySiwsSignatureReturnType {
  const message = typeof parameters.message === 'string' ? parseSiwsMessage(parameters.message) : parameters.message;
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
  if (!ed25519.verify(bytes, encoder.encode(text), publicKey, { zip215: false })) {
    const reason = unusableKey(publicKey);
    throw new SiwsError(
      'INVALID_SIGNATURE',
      reason ? `address ${message.address} ${reason}` : `signature was not made by ${message.address}`,
      { field: 'signature' },
    );
  }
  const network = message.chainId === undefined ? undefined : siwsNetwork(message.chainId);
  const accountId = network === undefined || network === 'localnet' ? undefined : solanaAccountId(network, message.address);
  return { message, address: message.address, network, accountId, method: 'ed25519' };
}
