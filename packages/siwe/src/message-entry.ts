/**
 * `@signet/siwe/message`: parsing and formatting only, for browsers (the wallet page).
 * No signature recovery and no RPC client, so it bundles small.
 */
export { checksumAddress } from './checksumAddress.ts';
export { type CreateSiweMessageParameters, createSiweMessage } from './createSiweMessage.ts';
export {
  isSiweError,
  SIWE_ERROR_TYPES,
  SiweError,
  type SiweErrorType,
  type SiweField,
  siweErrorStatus,
} from './errors.ts';
export { type ParseSiweMessageOptions, parseSiweMessage } from './parseSiweMessage.ts';
export { siweTime } from './siweTime.ts';
export type { SiweMessage } from './types.ts';
