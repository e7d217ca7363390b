import { type ParseSiwbMessageOptions, parseSiwbMessage } from './parseSiwbMessage.ts';
import { type SiwbExpectations, validateSiwbMessage } from './validateSiwbMessage.ts';
import { type VerifySiwbSignatureReturnType, verifyParsedSignature } from './verifySiwbSignature.ts';

export type VerifySiwbParameters = {
  /** The message text exactly as the wallet signed it. */
  message: string;
  /** base64: BIP-322 simple or full, or BIP-137 (P2PKH). */
  signature: string | Uint8Array;
  expect?: SiwbExpectations;
  /** How the text is parsed (`acceptCaip2ChainId`: also `bip122:<reference>`). */
  parse?: ParseSiwbMessageOptions;
};

/**
 * The whole check, in order: parse strictly, validate against `expect`, then verify the
 * signature (offline, synchronous). Cheap checks run first.
 */
export function verifySiwb(parameters: VerifySiwbParameters): VerifySiwbSignatureReturnType {
  const message = validateSiwbMessage(parseSiwbMessage(parameters.message, parameters.parse), parameters.expect);
  return verifyParsedSignature(message, parameters.message, parameters.signature);
}
