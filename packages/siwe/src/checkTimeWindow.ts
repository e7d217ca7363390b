import { parseDateTime } from './grammar.ts';
import { quote, type SignInErrorClass } from './signInError.ts';

/** The time bounds a verifier puts on a message. Every field is optional. */
export type TimeWindowExpectations = {
  /** "Now" (epoch ms or Date); defaults to the current time. Inject it in tests. */
  time?: number | Date;
  /** issuedAt may be at most this many ms older than `time`. */
  maxAge?: number;
  /** issuedAt must not be before this moment (e.g. when the sign-in started). */
  notIssuedBefore?: number | Date;
  /** Tolerance for clocks that disagree, in ms (default 60 s); applied to issuedAt and notBefore. */
  clockSkew?: number;
};

/** A message's timestamps as written (RFC 3339). Sign In With Solana makes Issued At optional too. */
export type MessageTimes = { issuedAt?: string; expirationTime?: string; notBefore?: string };

export type TimeWindowErrorType =
  | 'INVALID_TIME_FORMAT'
  | 'ISSUED_IN_FUTURE'
  | 'MESSAGE_TOO_OLD'
  | 'EXPIRED_MESSAGE'
  | 'NOT_YET_VALID_MESSAGE';
export type TimeField = 'issuedAt' | 'expirationTime' | 'notBefore';

export const DEFAULT_CLOCK_SKEW_MS = 60_000;

const ms = (value: number | Date) => (value instanceof Date ? value.getTime() : value);

/**
 * The time checks every Sign-In with X profile shares, in order: issuedAt not ahead of now
 * (beyond the skew), not older than `maxAge`, not before `notIssuedBefore`; expirationTime
 * still ahead; notBefore passed (within the skew). A timestamp the message leaves out is not
 * checked (a profile that needs one checks its presence first). Throws the first failure as
 * `Failure` (the profile's error class); returns the message when all pass.
 */
export function checkTimeWindow<M extends MessageTimes>(
  message: M,
  expect: TimeWindowExpectations,
  Failure: SignInErrorClass<TimeWindowErrorType, TimeField>,
): M {
  const now = ms(expect.time ?? Date.now());
  const skew = expect.clockSkew ?? DEFAULT_CLOCK_SKEW_MS;
  const epoch = (field: TimeField, value: string) => {
    const time = parseDateTime(value);
    if (time === undefined) {
      throw new Failure('INVALID_TIME_FORMAT', `${quote(value)} is not an RFC 3339 date-time`, { field, received: value });
    }
    return time;
  };
  if (message.issuedAt !== undefined) {
    const issuedAt = epoch('issuedAt', message.issuedAt);
    const fail = (type: 'ISSUED_IN_FUTURE' | 'MESSAGE_TOO_OLD', text: string) =>
      new Failure(type, `issued at ${message.issuedAt}, ${text}`, { field: 'issuedAt', received: message.issuedAt });
    if (issuedAt > now + skew) throw fail('ISSUED_IN_FUTURE', 'which is in the future');
    if (expect.maxAge !== undefined && issuedAt < now - expect.maxAge) {
      throw fail('MESSAGE_TOO_OLD', `more than ${Math.round(expect.maxAge / 1000)} s ago`);
    }
    if (expect.notIssuedBefore !== undefined && issuedAt < ms(expect.notIssuedBefore) - skew) {
      throw fail('MESSAGE_TOO_OLD', 'before this sign-in began');
    }
  }
  if (message.expirationTime !== undefined && epoch('expirationTime', message.expirationTime) <= now) {
    throw new Failure('EXPIRED_MESSAGE', `expired at ${message.expirationTime}`, {
      field: 'expirationTime',
      received: message.expirationTime,
    });
  }
  if (message.notBefore !== undefined && epoch('notBefore', message.notBefore) > now + skew) {
    throw new Failure('NOT_YET_VALID_MESSAGE', `not valid before ${message.notBefore}`, {
      field: 'notBefore',
      received: message.notBefore,
    });
  }
  return message;
}
