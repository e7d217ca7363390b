import { MAX_SIGN_IN_MESSAGE_LENGTH } from '@signet/siwe/caip122';

/** The longest message accepted (as for Sign-In with Ethereum): `parseSiwsMessage` refuses a longer text at once. */
export const MAX_SIWS_MESSAGE_LENGTH = MAX_SIGN_IN_MESSAGE_LENGTH;
