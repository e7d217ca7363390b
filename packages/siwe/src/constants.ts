/** The longest sign-in message verifiers accept (the spec's recommendation): checked before parsing. */
export const MAX_SIWE_MESSAGE_LENGTH = 10_000;

export const PREAMBLE_SUFFIX = ' wants you to sign in with your Ethereum account:';
