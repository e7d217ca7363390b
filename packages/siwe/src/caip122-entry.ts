/**
 * `@signet/siwe/caip122`: the CAIP-122 core every Sign-In with X profile shares with EIP-4361,
 * for `@signet/siws` (Sign In With Solana), `@signet/siwb` (Sign in with Bitcoin) and any later
 * profile: the one parser and writer of CAIP-122 text with a namespace slot (a profile adds its
 * addresses, chain ids and signature checks), the RFC 3986 / RFC 3339 grammar, CAIP-2 chain ids,
 * the error base class, and the checks that bind a message to its request and bound its times.
 * No viem, no recovery: safe for browsers.
 */
export { type BindingExpectations, checkDomain, checkFirstResource, checkNonce, checkUri } from './bindingChecks.ts';
export { type Caip2Parts, caip2Parts, readCaip2ChainId } from './caip2ChainId.ts';
export { type Caip122CheckedField, checkCaip122Field } from './caip122Fields.ts';
export {
  type Caip122ErrorType,
  type Caip122Field,
  type Caip122Message,
  type Caip122Namespace,
  type Caip122ParseOptions,
  type FieldProblem,
  isFieldLine,
  RESOURCE_PREFIX,
  RESOURCES_LINE,
  TAGGED_FIELDS,
  type TaggedField,
} from './caip122Namespace.ts';
export {
  checkTimeWindow,
  DEFAULT_CLOCK_SKEW_MS,
  type MessageTimes,
  type TimeField,
  type TimeWindowErrorType,
  type TimeWindowExpectations,
} from './checkTimeWindow.ts';
export { MAX_SIWE_MESSAGE_LENGTH as MAX_SIGN_IN_MESSAGE_LENGTH } from './constants.ts';
export { type CreateCaip122MessageParameters, createCaip122Message } from './createCaip122Message.ts';
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
export { MessageReader, show } from './messageReader.ts';
export { parseCaip122Message } from './parseCaip122Message.ts';
export { quote, SignInError, type SignInErrorClass, type SignInErrorOptions } from './signInError.ts';
