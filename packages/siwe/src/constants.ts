/**
 * The longest sign-in message Signet's parsers accept, checked before parsing. Signet's own bound:
 * EIP-4361 names no maximum length. Ten thousand characters hold every field with room to spare
 * (a few dozen resources) and keep the work for hostile input small.
 */
export const MAX_SIWE_MESSAGE_LENGTH = 10_000;

export const PREAMBLE_SUFFIX = ' wants you to sign in with your Ethereum account:';
