/**
 * `@signet/siwe/caip122`: what every Sign-In with X (CAIP-122) profile shares with EIP-4361,
 * for `@signet/siws` (Sign In With Solana) and any later profile: the RFC 3986 / RFC 3339
 * grammar, the error base class, and the checks that bind a message to its request and bound
 * its times. No viem, no recovery: safe for browsers.
 */
export { type BindingExpectations, checkDomain, checkFirstResource, checkNonce, checkUri } from './bindingChecks.ts';
export {
  checkTimeWindow,
  DEFAULT_CLOCK_SKEW_MS,
  type MessageTimes,
  type TimeField,
  type TimeWindowErrorType,
  type TimeWindowExpectations,
} from './checkTimeWindow.ts';
export { MAX_SIWE_MESSAGE_LENGTH as MAX_SIGN_IN_MESSAGE_LENGTH } from './constants.ts';
export type { SiweField as SignInField } from './errors.ts';
export {
  AUTHORITY_RE,
  AUTHORITY_WITH_USERINFO_RE,
  NONCE_RE,
  PORTABLE_STATEMENT_RE,
  parseDateTime,
  REQUEST_ID_RE,
  STATEMENT_RE,
  URI_RE,
} from './grammar.ts';
export { messageLines } from './messageLines.ts';
export { quote, SignInError, type SignInErrorClass, type SignInErrorOptions } from './signInError.ts';
