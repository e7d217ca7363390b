/**
 * `@signet/siwe/message`: parsing and formatting only, for browsers (the wallet page).
 * No signature recovery and no RPC client, so it bundles small.
 */
export { type CreateSiweMessageParameters, createSiweMessage } from './create.ts';
export {
  isSiweError,
  SIWE_ERROR_TYPES,
  SiweError,
  type SiweErrorType,
  type SiweField,
  siweErrorStatus,
} from './errors.ts';
export { type SiweMessage, siweTime } from './message.ts';
export { parseSiweMessage } from './parse.ts';
