import { type BitcoinAccountId, bitcoinAccountId } from './bitcoinAccountId.ts';
import { bitcoinNetworkOf } from './bitcoinNetworkOf.ts';
import { createSiwbMessage } from './createSiwbMessage.ts';
import type { BitcoinNetwork } from './networks.ts';
import { type ParseSiwbMessageOptions, parseSiwbMessage } from './parseSiwbMessage.ts';
import type { SiwbMessage } from './types.ts';
import { type SignatureMethod, type SignedAddressType, verifyBitcoinSignature } from './verifyBitcoinSignature.ts';

export type VerifySiwbSignatureParameters = {
  /** The message as signed (text), or parsed (it is formatted back to the same text). */
  message: string | SiwbMessage;
  /** base64: a BIP-322 simple or full signature, or a 65-byte BIP-137 signature (P2PKH). */
  signature: string | Uint8Array;
  /** How text is parsed (`acceptCaip2ChainId`: also `bip122:<reference>`). */
  parse?: ParseSiwbMessageOptions;
};

export type VerifySiwbSignatureReturnType = {
  message: SiwbMessage;
  /** The address that signed, as the message writes it (bech32 in lower case). */
  address: string;
  /** The network the message's Chain ID names. */
  network: BitcoinNetwork;
  /** CAIP-10 `bip122:<CAIP-2 reference>:<address>`: Signet's subject for a Bitcoin sign-in. */
  accountId: BitcoinAccountId;
  addressType: SignedAddressType;
  method: SignatureMethod;
};

/**
 * Verifies the signature of a Sign in with Bitcoin message (its text's UTF-8 bytes) by the
 * message's address, offline: BIP-322 simple or full for P2WPKH, P2SH-P2WPKH and P2TR
 * (key path), BIP-137 for P2PKH. Throws `SiwbError`: `INVALID_SIGNATURE` when the signature is
 * well formed but not the address's, another typed reason when its form is refused
 * (README: what is refused and why), `UNABLE_TO_PARSE` and the like when the message is.
 */
export function verifySiwbSignature(parameters: VerifySiwbSignatureParameters): VerifySiwbSignatureReturnType {
  const message =
    typeof parameters.message === 'string' ? parseSiwbMessage(parameters.message, parameters.parse) : parameters.message;
  const text = typeof parameters.message === 'string' ? parameters.message : createSiwbMessage(message);
  return verifyParsedSignature(message, text, parameters.signature);
}

/** verifySiwbSignature for a message already parsed from `text` (no second parse). */
export function verifyParsedSignature(
  message: SiwbMessage,
  text: string,
  signature: string | Uint8Array,
): VerifySiwbSignatureReturnType {
  const { addressType, method } = verifyBitcoinSignature(message.address, text, signature);
  // A parsed message names a known network, and its address is one of that network's.
  const network = bitcoinNetworkOf(message.chainId) as BitcoinNetwork;
  return {
    message,
    address: message.address,
    network,
    accountId: bitcoinAccountId(network, message.address),
    addressType,
    method,
  };
}
