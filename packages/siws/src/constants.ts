import { MAX_SIGN_IN_MESSAGE_LENGTH } from '@signet/siwe/caip122';

/** The longest message accepted (as for Sign-In with Ethereum): `parseSiwsMessage` refuses a longer text at once. */
export const MAX_SIWS_MESSAGE_LENGTH = MAX_SIGN_IN_MESSAGE_LENGTH;

export const PREAMBLE_SUFFIX = ' wants you to sign in with your Solana account:';

/** The tagged lines of a message, in their order (each optional, each at most once), then `Resources:`. */
export const TAGGED_FIELDS = [
  { label: 'URI: ', field: 'uri' },
  { label: 'Version: ', field: 'version' },
  { label: 'Chain ID: ', field: 'chainId' },
  { label: 'Nonce: ', field: 'nonce' },
  { label: 'Issued At: ', field: 'issuedAt' },
  { label: 'Expiration Time: ', field: 'expirationTime' },
  { label: 'Not Before: ', field: 'notBefore' },
  { label: 'Request ID: ', field: 'requestId' },
] as const;
export type TaggedField = (typeof TAGGED_FIELDS)[number]['field'];
export const RESOURCES_LINE = 'Resources:';
export const RESOURCE_PREFIX = '- ';

/** Whether a line opens the fields (and so cannot be a statement). */
export const isFieldLine = (line: string) => line === RESOURCES_LINE || TAGGED_FIELDS.some(({ label }) => line.startsWith(label));
