import { MAX_SIGN_IN_MESSAGE_LENGTH } from '@signet/siwe/caip122';

/** The longest message accepted (as for Sign-In with Ethereum): `parseSiwbMessage` refuses a longer text at once. */
export const MAX_SIWB_MESSAGE_LENGTH = MAX_SIGN_IN_MESSAGE_LENGTH;

/**
 * The longest signature accepted, in base64 characters, checked before decoding. The largest
 * accepted form, a full `to_sign` of a P2SH-P2WPKH address, is under 200 bytes (268
 * characters); a BIP-137 signature is 88 characters.
 */
export const MAX_SIWB_SIGNATURE_LENGTH = 400;
