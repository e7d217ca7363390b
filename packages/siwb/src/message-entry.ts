/**
 * `@signet/siwb/message`: parsing and formatting only, for browsers (the wallet page): the
 * networks and their Chain IDs, address checks by @scure/base's codecs. No transactions, no
 * secp256k1, so it bundles small.
 */
export {
  type BitcoinAccountId,
  type BitcoinChainId,
  bitcoinAccountId,
  bitcoinChainId,
  normalizeBitcoinAddress,
} from './bitcoinAccountId.ts';
export { bitcoinNetworkOf } from './bitcoinNetworkOf.ts';
export { MAX_SIWB_MESSAGE_LENGTH } from './constants.ts';
export { type CreateSiwbMessageParameters, createSiwbMessage } from './createSiwbMessage.ts';
export {
  type BitcoinAddressType,
  type DecodedBitcoinAddress,
  decodeBitcoinAddress,
  isBitcoinAddress,
  SIGN_IN_ADDRESS_TYPES,
  type SignInAddressType,
} from './decodeBitcoinAddress.ts';
export {
  isSiwbError,
  SIWB_ERROR_TYPES,
  SiwbError,
  type SiwbErrorType,
  type SiwbField,
  siwbErrorStatus,
} from './errors.ts';
export {
  ADDRESS_FAMILY,
  type AddressFamily,
  BITCOIN_CHAIN_REFERENCES,
  BITCOIN_NETWORKS,
  type BitcoinChainReference,
  type BitcoinNetwork,
} from './networks.ts';
export { type ParseSiwbMessageOptions, parseSiwbMessage } from './parseSiwbMessage.ts';
export type { SiwbMessage } from './types.ts';
