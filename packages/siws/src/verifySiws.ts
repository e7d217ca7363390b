import { type ParseSiwsMessageOptions, parseSiwsMessage } from './parseSiwsMessage.ts';
import { type SiwsExpectations, validateSiwsMessage } from './validateSiwsMessage.ts';
import { type VerifySiwsSignatureReturnType, verifyParsedSignature } from './verifySiwsSignature.ts';

export type VerifySiwsParameters = {
  /** The message text exactly as the wallet signed it. */
  message: string;
  /** 64-byte Ed25519 signature: base58, padded base64, or bytes. */
  signature: string | Uint8Array;
  expect?: SiwsExpectations;
  /** How the text is parsed (`acceptCaip2ChainId`: also a cluster's CAIP-2 id). */
  parse?: ParseSiwsMessageOptions;
};

/**
 * The whole check, in order: parse strictly, validate against `expect`, then verify the
 * Ed25519 signature (offline, synchronous). Cheap checks run first.
 */
export function verifySiws(parameters: VerifySiwsParameters): VerifySiwsSignatureReturnType {
  const message = validateSiwsMessage(parseSiwsMessage(parameters.message, parameters.parse), parameters.expect);
  return verifyParsedSignature(message, parameters.message, parameters.signature);
}
