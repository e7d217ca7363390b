export { MAX_SIWE_MESSAGE_LENGTH } from './constants.ts';
export {
  CONTRACT_WALLET_GAS_CAP,
  type ContractWalletMethod,
  classifyCallError,
  ETH_CALL_GAS_CAP,
} from './contractWallets.ts';
export { type ChainRegistry, type ChainRegistryOptions, createChainRegistry } from './createChainRegistry.ts';
export { type CreateSiweMessageParameters, createSiweMessage } from './createSiweMessage.ts';
export {
  isSiweError,
  SIWE_ERROR_TYPES,
  SiweError,
  type SiweErrorOptions,
  type SiweErrorType,
  type SiweField,
  siweErrorStatus,
} from './errors.ts';
export { generateNonce } from './generateNonce.ts';
export { isSiweUri } from './grammar.ts';
export { keccak256, keccakReady } from './keccak256.ts';
export { CHAINS_WITHOUT_DEPLOYLESS_CALLS, KNOWN_SIGNATURE_VERIFIERS } from './knownChains.ts';
export { type ParseSiweMessageOptions, parseSiweMessage } from './parseSiweMessage.ts';
export {
  personalSignHash,
  recoverPersonalSignAddress,
  SECP256K1_BACKEND,
  secp256k1Recover,
} from './recoverPersonalSignAddress.ts';
export { SignInError } from './signInError.ts';
export { siweTime } from './siweTime.ts';
export type { SiweMessage } from './types.ts';
export {
  DEFAULT_CLOCK_SKEW_MS,
  type SiweExpectations,
  validateSiweFields,
  validateSiweMessage,
  validateSiweTimes,
} from './validateSiweMessage.ts';
export { type VerifySiweParameters, verifySiwe } from './verifySiwe.ts';
export {
  isEoaSignatureOf,
  type SiweVerificationClient,
  type SiweVerificationMethod,
  type VerifySiweSignatureParameters,
  type VerifySiweSignatureReturnType,
  verifyContractWalletSignature,
  verifySiweSignature,
} from './verifySiweSignature.ts';
