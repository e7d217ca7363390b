import { type ParseSiweMessageOptions, parseSiweMessage } from './parseSiweMessage.ts';
import { type SiweExpectations, validateSiweMessage } from './validateSiweMessage.ts';
import { type SiweVerificationClient, type VerifySiweSignatureReturnType, verifyParsedSignature } from './verifySiweSignature.ts';

export type VerifySiweParameters = {
  /** The message text exactly as the wallet signed it. */
  message: string;
  signature: string;
  expect?: SiweExpectations;
  client?: SiweVerificationClient;
  /** How the text is parsed (`acceptCaip2ChainId`: also `Chain ID: eip155:<id>`). */
  parse?: ParseSiweMessageOptions;
};

/**
 * The whole check, in order: parse strictly, validate against `expect`, then verify the
 * signature (offline for EOAs). Cheap checks run first, so a bad message never costs an RPC call.
 */
export async function verifySiwe(parameters: VerifySiweParameters): Promise<VerifySiweSignatureReturnType> {
  const message = validateSiweMessage(parseSiweMessage(parameters.message, parameters.parse), parameters.expect);
  return verifyParsedSignature(message, parameters.message, parameters.signature, parameters.client);
}
