export { type ChainRegistry, type ChainRegistryOptions, createChainRegistry } from './chains.ts';
export { type CreateSiweMessageParameters, createSiweMessage } from './create.ts';
export {
  createEnhancedVerifier,
  ENHANCED_VERIFIER_DEFAULTS,
  type EnhancedVerifier,
  type EnhancedVerifierConfig,
  type EnhancedVerifyParameters,
} from './enhanced.ts';
export {
  isSiweError,
  SIWE_ERROR_TYPES,
  SiweError,
  type SiweErrorOptions,
  type SiweErrorType,
  type SiweField,
  siweErrorStatus,
} from './errors.ts';
export { isSiweUri } from './grammar.ts';
export { MAX_SIWE_MESSAGE_LENGTH, type SiweMessage, siweTime } from './message.ts';
export { generateNonce } from './nonce.ts';
export { parseSiweMessage } from './parse.ts';
export { personalSignHash, recoverPersonalSignAddress } from './recover.ts';
export {
  DEFAULT_CLOCK_SKEW_MS,
  type SiweExpectations,
  validateSiweFields,
  validateSiweMessage,
  validateSiweTimes,
} from './validate.ts';
export {
  CONTRACT_WALLET_GAS_CAP,
  type SiweVerificationClient,
  type SiweVerificationMethod,
  type VerifySiweSignatureParameters,
  type VerifySiweSignatureReturnType,
  verifySiweSignature,
} from './verify.ts';
export { type VerifySiweParameters, verifySiwe } from './verifySiwe.ts';
