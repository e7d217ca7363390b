export { SignInError } from '@signet/siwe/caip122';
export { MAX_SIWS_MESSAGE_LENGTH } from './constants.ts';
export { type CreateSiwsMessageParameters, createSiwsMessage } from './createSiwsMessage.ts';
export { decodeSiwsSignature } from './decodeSiwsSignature.ts';
export {
  isSiwsError,
  SIWS_ERROR_TYPES,
  SiwsError,
  type SiwsErrorOptions,
  type SiwsErrorType,
  type SiwsField,
  siwsErrorStatus,
} from './errors.ts';
export { decodeSolanaAddress, isSolanaAddress } from './isSolanaAddress.ts';
export {
  SIWS_CHAIN_IDS,
  type SiwsChainId,
  SOLANA_CHAIN_REFERENCES,
  SOLANA_NETWORKS,
  type SolanaNetwork,
} from './networks.ts';
export { type ParseSiwsMessageOptions, parseSiwsMessage } from './parseSiwsMessage.ts';
export { siwsNetwork } from './siwsNetwork.ts';
export { type SolanaAccountId, type SolanaChainId, solanaAccountId, solanaChainId } from './solanaAccountId.ts';
export type { SiwsMessage } from './types.ts';
export { type SiwsExpectations, validateSiwsFields, validateSiwsMessage, validateSiwsTimes } from './validateSiwsMessage.ts';
export { type VerifySiwsParameters, verifySiws } from './verifySiws.ts';
export {
  ed25519Verify,
  type VerifySiwsSignatureParameters,
  type VerifySiwsSignatureReturnType,
  verifySiwsSignature,
} from './verifySiwsSignature.ts';
