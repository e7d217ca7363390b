import { SiweError } from './errors.ts';
import { parseDateTime } from './grammar.ts';

const quote = (value: string) => JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);

/** Epoch milliseconds of one of a message's timestamps (which parsing already validated). */
export function siweTime(value: string): number {
  const time = parseDateTime(value);
  if (time === undefined) {
    throw new SiweError('INVALID_TIME_FORMAT', `${quote(value)} is not an RFC 3339 date-time`, { received: value });
  }
  return time;
}
