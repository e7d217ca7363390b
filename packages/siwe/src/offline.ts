/**
 * `@signet/siwe/offline`: what needs no RPC node, with no part of viem loaded at start (a
 * server that verifies EOAs only, or has no chain configured, never loads it): parsing,
 * validation, signatures (an EOA's checked offline; a contract wallet's check loads viem then),
 * keccak and addresses. `@signet/siwe` is this and the chain registry.
 */
export { toChecksumAddress } from './address.ts';
export { MAX_SIWE_MESSAGE_LENGTH } from './constants.ts';
export type { ContractWalletMethod } from './contractWallets.ts';
export type { ChainRegistry } from './createChainRegistry.ts';
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
  recoverSecp256k1PublicKey,
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
