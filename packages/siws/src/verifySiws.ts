import { parseSiwsMessage } from './parseSiwsMessage.ts';
import { type SiwsExpectations, validateSiwsMessage } from './validateSiwsMessage.ts';
import { type VerifySiwsSignatureReturnType, verifyParsedSignature } from './verifySiwsSignature.ts';

export type VerifySiwsParameters = {
  /** The message text exactly as the wallet signed it. */
  message: string;
  /** 64-byte Ed25519 signature: base58, padded base64, or bytes. */
  signature: string | Uint8Array;
  expect?: SiwsExpectations;
};

/**
 * The whole check, in order: parse strictly, validate against `expect`, then verify the
 * Ed25519 signature (offline, synchronous). Cheap checks run first.
 */
export function verifySiws(parameters: VerifySiwsParameters): VerifySiwsSignatureReturnType {
  const message = validateSiwsMessage(parseSiwsMessage(parameters.message), parameters.expect);
  return verifyParsedSignature(message, parameters.message, parameters.signature);
}
