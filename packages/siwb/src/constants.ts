import { MAX_SIGN_IN_MESSAGE_LENGTH } from '@signet/siwe/caip122';

/** The longest message accepted (as for Sign-In with Ethereum): `parseSiwbMessage` refuses a longer text at once. */
export const MAX_SIWB_MESSAGE_LENGTH = MAX_SIGN_IN_MESSAGE_LENGTH;

/**
 * The longest signature accepted, in base64 characters, checked before decoding. The largest
 * accepted form, a full `to_sign` of a P2SH-P2WPKH address, is under 200 bytes (268
 * characters); a BIP-137 signature is 88 characters.
 */
export const MAX_SIWB_SIGNATURE_LENGTH = 400;

export const PREAMBLE_SUFFIX = ' wants you to sign in with your Bitcoin account:';

/** The tagged lines every message has, in their order (EIP-4361's and CAIP-122's). */
export const REQUIRED_FIELDS = [
  { label: 'URI: ', field: 'uri' },
  { label: 'Version: ', field: 'version' },
  { label: 'Chain ID: ', field: 'chainId' },
  { label: 'Nonce: ', field: 'nonce' },
  { label: 'Issued At: ', field: 'issuedAt' },
] as const;
/** The optional tagged lines, after the required ones, in their order (each at most once), then `Resources:`. */
export const OPTIONAL_FIELDS = [
  { label: 'Expiration Time: ', field: 'expirationTime' },
  { label: 'Not Before: ', field: 'notBefore' },
  { label: 'Request ID: ', field: 'requestId' },
] as const;
export const TAGGED_FIELDS = [...REQUIRED_FIELDS, ...OPTIONAL_FIELDS] as const;
export type TaggedField = (typeof TAGGED_FIELDS)[number]['field'];
export const RESOURCES_LINE = 'Resources:';
export const RESOURCE_PREFIX = '- ';

/** Whether a line opens the fields (and so cannot be a statement). */
export const isFieldLine = (line: string) => line === RESOURCES_LINE || TAGGED_FIELDS.some(({ label }) => line.startsWith(label));
