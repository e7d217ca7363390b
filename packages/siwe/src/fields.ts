/** The grammar of each field of a message, shared by the parser and the formatter. */
import { checksumAddress } from './checksumAddress.ts';
import { SiweError, type SiweField } from './errors.ts';
import {
  ADDRESS_RE,
  AUTHORITY_RE,
  AUTHORITY_WITH_USERINFO_RE,
  NONCE_RE,
  parseDateTime,
  REQUEST_ID_RE,
  SCHEME_RE,
  STATEMENT_RE,
  URI_RE,
} from './grammar.ts';

type FieldCheck = { field: SiweField; test(value: string): boolean; fail(value: string): SiweError };

const check = (
  field: SiweField,
  test: (value: string) => boolean,
  type: ConstructorParameters<typeof SiweError>[0],
  describe: (value: string) => string,
): FieldCheck => ({
  field,
  test,
  fail: (value) => new SiweError(type, describe(value), { field, received: value }),
});

const quote = (value: string) => JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);

/** The grammar of each field, shared by the parser and the formatter. */
export const FIELD_CHECKS = {
  scheme: check(
    'scheme',
    (v) => SCHEME_RE.test(v),
    'UNABLE_TO_PARSE',
    (v) => `scheme ${quote(v)} is not an RFC 3986 scheme`,
  ),
  domain: check(
    'domain',
    (v) => AUTHORITY_RE.test(v),
    'INVALID_DOMAIN',
    (v) =>
      AUTHORITY_WITH_USERINFO_RE.test(v)
        ? `domain ${quote(v)} carries userinfo (the part up to "@"): a sign-in domain is host[:port] alone`
        : `domain ${quote(v)} is not an RFC 3986 authority`,
  ),
  address: check(
    'address',
    (v) => ADDRESS_RE.test(v) && checksumAddress(v) === v,
    'INVALID_ADDRESS',
    (v) =>
      ADDRESS_RE.test(v)
        ? `address ${v} is not EIP-55 checksummed (expected ${checksumAddress(v)})`
        : `address ${quote(v)} is not 0x followed by 40 hex digits`,
  ),
  statement: check(
    'statement',
    (v) => STATEMENT_RE.test(v),
    'INVALID_STATEMENT',
    (v) =>
      `statement ${quote(v)} has characters EIP-4361 does not allow (printable ASCII only, one line: no line break, tab, control or non-ASCII character)`,
  ),
  uri: check(
    'uri',
    (v) => URI_RE.test(v),
    'INVALID_URI',
    (v) => `URI ${quote(v)} is not an RFC 3986 URI`,
  ),
  nonce: check(
    'nonce',
    (v) => NONCE_RE.test(v),
    'INVALID_NONCE',
    (v) => `nonce ${quote(v)} is not 8 or more letters and digits`,
  ),
  issuedAt: check(
    'issuedAt',
    (v) => parseDateTime(v) !== undefined,
    'INVALID_TIME_FORMAT',
    (v) => `Issued At ${quote(v)} is not an RFC 3339 date-time`,
  ),
  expirationTime: check(
    'expirationTime',
    (v) => parseDateTime(v) !== undefined,
    'INVALID_TIME_FORMAT',
    (v) => `Expiration Time ${quote(v)} is not an RFC 3339 date-time`,
  ),
  notBefore: check(
    'notBefore',
    (v) => parseDateTime(v) !== undefined,
    'INVALID_TIME_FORMAT',
    (v) => `Not Before ${quote(v)} is not an RFC 3339 date-time`,
  ),
  requestId: check(
    'requestId',
    (v) => REQUEST_ID_RE.test(v),
    'INVALID_REQUEST_ID',
    (v) => `Request ID ${quote(v)} has characters outside URI path characters`,
  ),
  resources: check(
    'resources',
    (v) => URI_RE.test(v),
    'INVALID_RESOURCE',
    (v) => `resource ${quote(v)} is not an RFC 3986 URI`,
  ),
} satisfies Partial<Record<SiweField, FieldCheck>>;
