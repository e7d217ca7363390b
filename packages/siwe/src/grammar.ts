/**
 * The lexical rules EIP-4361 borrows from RFC 3986 (URI, authority) and RFC 3339
 * (date-time), as anchored regular expressions built from the RFCs' ABNF. Each is linear
 * in its input (no nested quantifiers over overlapping classes).
 */

const HEX = '[0-9A-Fa-f]';
const UNRESERVED = 'A-Za-z0-9\\-._~';
const SUB_DELIMS = "!$&'()*+,;=";
const PCT_ENCODED = `%${HEX}${HEX}`;
const PCHAR = `(?:[${UNRESERVED}${SUB_DELIMS}:@]|${PCT_ENCODED})`;

const DEC_OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9][0-9]|[0-9])';
const IPV4 = `${DEC_OCTET}\\.${DEC_OCTET}\\.${DEC_OCTET}\\.${DEC_OCTET}`;
const H16 = `${HEX}{1,4}`;
const LS32 = `(?:${H16}:${H16}|${IPV4})`;

/** RFC 3986 IPv6address: the nine alternatives of its ABNF. */
const IPV6 = (() => {
  const rep = (n: number) => (n === 0 ? '' : `(?:${H16}:){${n}}`);
  const head = (max: number) => (max < 0 ? '' : `(?:(?:${H16}:){0,${max}}${H16})?`);
  return `(?:${[
    `${rep(6)}${LS32}`,
    `::${rep(5)}${LS32}`,
    `${head(0)}::${rep(4)}${LS32}`,
    `${head(1)}::${rep(3)}${LS32}`,
    `${head(2)}::${rep(2)}${LS32}`,
    `${head(3)}::${H16}:${LS32}`,
    `${head(4)}::${LS32}`,
    `${head(5)}::${H16}`,
    `${head(6)}::`,
  ].join('|')})`;
})();
const IPV_FUTURE = `[vV]${HEX}+\\.[${UNRESERVED}${SUB_DELIMS}:]+`;
const IP_LITERAL = `\\[(?:${IPV6}|${IPV_FUTURE})\\]`;
const REG_NAME = `(?:[${UNRESERVED}${SUB_DELIMS}]|${PCT_ENCODED})*`;
const HOST = `(?:${IP_LITERAL}|${REG_NAME})`;
const USERINFO = `(?:[${UNRESERVED}${SUB_DELIMS}:]|${PCT_ENCODED})*`;
const PORT = '[0-9]*';
const AUTHORITY = `(?:${USERINFO}@)?${HOST}(?::${PORT})?`;

const SEGMENT = `${PCHAR}*`;
const SEGMENT_NZ = `${PCHAR}+`;
const PATH_ABEMPTY = `(?:/${SEGMENT})*`;
const PATH_ABSOLUTE = `/(?:${SEGMENT_NZ}(?:/${SEGMENT})*)?`;
const PATH_ROOTLESS = `${SEGMENT_NZ}(?:/${SEGMENT})*`;
const HIER_PART = `(?://${AUTHORITY}${PATH_ABEMPTY}|${PATH_ABSOLUTE}|${PATH_ROOTLESS}|)`;
const QUERY = `(?:${PCHAR}|[/?])*`;
const SCHEME = '[A-Za-z][A-Za-z0-9+\\-.]*';

export const SCHEME_RE = new RegExp(`^${SCHEME}$`);
/**
 * A sign-in domain: an RFC 3986 authority without userinfo, `host [":" port]`, with a non-empty
 * host. EIP-4361 as published says "RFC 3986 authority", which allows `user@host`; the
 * maintainers' draft erratum drops userinfo (a `domain` of `bank.example@evil.example` reads like
 * the bank's and is another host), and this grammar has moved first. URIs keep their userinfo.
 */
export const AUTHORITY_RE = new RegExp(`^(?!:|$)${HOST}(?::${PORT})?$`);
/** The same authority with its userinfo allowed, as EIP-4361 was published: only to say why a domain was refused. */
export const AUTHORITY_WITH_USERINFO_RE = new RegExp(`^(?:${USERINFO}@)?(?!:|$)${HOST}(?::${PORT})?$`);
export const URI_RE = new RegExp(`^${SCHEME}:${HIER_PART}(?:\\?${QUERY})?(?:#${QUERY})?$`);
export const REQUEST_ID_RE = new RegExp(`^${PCHAR}*$`);

/** True when `value` is an RFC 3986 URI, as EIP-4361's `uri` and `resources` must be. */
export const isSiweUri = (value: string): boolean => URI_RE.test(value);

/**
 * A statement: any printable ASCII character (`%x20-7E`), so no line break, tab or control
 * character, and nothing outside ASCII. That is the maintainers' draft erratum to EIP-4361, which
 * asks parsers to move first: quotes, `%`, `<`, `>`, `{`, `}`, `|`, `\`, `^` and the backtick
 * become valid.
 */
export const STATEMENT_RE = /^[\x20-\x7E]*$/;
/**
 * A statement as EIP-4361 was published (URI reserved / unreserved characters and the space):
 * what every parser, moved or not, accepts. Whoever *writes* messages for verifiers it does not
 * control (Signet's provider) keeps its statements to this set.
 */
export const PORTABLE_STATEMENT_RE = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;= ]*$/;
export const NONCE_RE = /^[A-Za-z0-9]{8,}$/;
export const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;
/** Decimal chain id without leading zeros (stricter than the ABNF's 1*DIGIT: one spelling per id). */
export const CHAIN_ID_RE = /^[1-9][0-9]*$/;

/** RFC 3339 date-time; the letters T and Z may be lower case (ABNF literals are case-insensitive). */
const DATE_TIME_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * Parses an RFC 3339 date-time to epoch milliseconds, or returns undefined when the text is
 * not one (wrong shape, month 13, 30 February, hour 24, offset minutes 60, …).
 */
export function parseDateTime(text: string): number | undefined {
  const m = DATE_TIME_RE.exec(text);
  if (!m) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  let offsetMinutes = 0;
  if (!m[8]) {
    const offsetHour = Number(m[10]);
    const offsetMinute = Number(m[11]);
    if (offsetHour > 23 || offsetMinute > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (offsetHour * 60 + offsetMinute);
  }
  // Milliseconds: the first three digits of the fraction, truncated (never rounded up into the next second).
  const millis = m[7] ? Number(`${m[7].slice(1)}00`.slice(0, 3)) : 0;
  // Plain arithmetic, no Date.UTC: a leap second (second 60) is the next second, even on 31
  // December, and years 0-99 are themselves (year 0 is a leap year in the proleptic calendar).
  const seconds = ((daysFromCivil(year, month, day) * 24 + hour) * 60 + minute - offsetMinutes) * 60 + second;
  return seconds * 1000 + millis;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}
