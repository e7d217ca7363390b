import { MAX_SIWE_MESSAGE_LENGTH } from './constants.ts';
import type { SignInErrorClass } from './signInError.ts';

/**
 * The lines of a sign-in message, after the checks every profile's parser starts with: a
 * string, at most MAX_SIWE_MESSAGE_LENGTH characters (checked first: no work at all, and no
 * deep recursion in the grammar's patterns, for huge input), lines ending with LF only.
 * Throws `UNABLE_TO_PARSE` as `Failure` (the profile's error class).
 */
export function messageLines(text: unknown, Failure: SignInErrorClass<'UNABLE_TO_PARSE', 'message'>): string[] {
  if (typeof text !== 'string') {
    throw new Failure('UNABLE_TO_PARSE', 'message must be a string', { field: 'message' });
  }
  if (text.length > MAX_SIWE_MESSAGE_LENGTH) {
    throw new Failure('UNABLE_TO_PARSE', `the message is longer than ${MAX_SIWE_MESSAGE_LENGTH} characters`, {
      field: 'message',
    });
  }
  const lines = text.split('\n');
  const withCr = lines.findIndex((line) => line.includes('\r'));
  if (withCr !== -1) {
    throw new Failure('UNABLE_TO_PARSE', `line ${withCr + 1}: lines must end with LF only (found CR)`, {
      field: 'message',
      line: withCr + 1,
    });
  }
  return lines;
}
