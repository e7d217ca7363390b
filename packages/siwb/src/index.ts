export { SignInError } from '@signet/siwe/caip122';
export { bip137MessageHash } from './bip137.ts';
export { bip322MessageHash, type SignedMessage } from './bip322.ts';
export {
  type BitcoinAccountId,
  type BitcoinChainId,
  bitcoinAccountId,
  bitcoinChainId,
  normalizeBitcoinAddress,
} from './bitcoinAccountId.ts';
export { bitcoinNetworkOf } from './bitcoinNetworkOf.ts';
export { MAX_SIWB_MESSAGE_LENGTH, MAX_SIWB_SIGNATURE_LENGTH } from './constants.ts';
export { type CreateSiwbMessageParameters, createSiwbMessage } from './createSiwbMessage.ts';
export {
  type BitcoinAddressType,
  type DecodedBitcoinAddress,
  decodeBitcoinAddress,
  isBitcoinAddress,
  SIGN_IN_ADDRESS_TYPES,
  type SignInAddressType,
} from './decodeBitcoinAddress.ts';
export { decodeSiwbSignature, type SiwbSignature } from './decodeSiwbSignature.ts';
export {
  isSiwbError,
  SIWB_ERROR_TYPES,
  SiwbError,
  type SiwbErrorOptions,
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
export { type SiwbExpectations, validateSiwbFields, validateSiwbMessage, validateSiwbTimes } from './validateSiwbMessage.ts';
export {
  type SignatureMethod,
  type SignedAddressType,
  type VerifyBitcoinSignatureReturnType,
  verifyBitcoinSignature,
} from './verifyBitcoinSignature.ts';
export { type VerifySiwbParameters, verifySiwb } from './verifySiwb.ts';
export {
  type VerifySiwbSignatureParameters,
  type VerifySiwbSignatureReturnType,
  verifySiwbSignature,
} from './verifySiwbSignature.ts';
