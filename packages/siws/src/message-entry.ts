/**
 * `@signet/siws/message`: parsing and formatting only, for browsers (the wallet page). No
 * Ed25519, so it bundles small.
 */
export { type CreateSiwsMessageParameters, createSiwsMessage } from './createSiwsMessage.ts';
export {
  isSiwsError,
  SIWS_ERROR_TYPES,
  SiwsError,
  type SiwsErrorType,
  type SiwsField,
  siwsErrorStatus,
} from './errors.ts';
export { isSolanaAddress } from './isSolanaAddress.ts';
export { SIWS_CHAIN_IDS, type SiwsChainId, SOLANA_CHAIN_REFERENCES, SOLANA_NETWORKS, type SolanaNetwork } from './networks.ts';
export { type ParseSiwsMessageOptions, parseSiwsMessage } from './parseSiwsMessage.ts';
export { siwsNetwork } from './siwsNetwork.ts';
export { type SolanaAccountId, type SolanaChainId, solanaAccountId, solanaChainId } from './solanaAccountId.ts';
export type { SiwsMessage } from './types.ts';
