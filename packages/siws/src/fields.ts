/** The grammar of each field of a SIWS message, shared by the parser and the formatter. */
import {
  AUTHORITY_RE,
  AUTHORITY_WITH_USERINFO_RE,
  NONCE_RE,
  parseDateTime,
  quote,
  REQUEST_ID_RE,
  STATEMENT_RE,
  URI_RE,
} from '@signet/siwe/caip122';
import { isFieldLine } from './constants.ts';
import { SiwsError, type SiwsErrorType, type SiwsField } from './errors.ts';
import { decodeSolanaAddress } from './isSolanaAddress.ts';
import { SIWS_CHAIN_IDS } from './networks.ts';

type FieldCheck = { type: SiwsErrorType; problem(value: string): string | undefined };

const BASE58_RE = /^[1-9A-HJ-NP-Za-km-z]*$/;
const isTime = (value: string) => parseDateTime(value) !== undefined;
const timeCheck = (label: string): FieldCheck => ({
  type: 'INVALID_TIME_FORMAT',
  problem: (v) => (isTime(v) ? undefined : `${label} ${quote(v)} is not an RFC 3339 date-time`),
});

/** Each field's rule: `problem` says what is wrong with a value, or undefined when it is fine. */
const FIELD_CHECKS = {
  domain: {
    type: 'INVALID_DOMAIN',
    problem: (v) =>
      AUTHORITY_RE.test(v)
        ? undefined
        : v.includes('://')
          ? `domain ${quote(v)} has a scheme: a SIWS domain is an RFC 3986 authority (host[:port])`
          : AUTHORITY_WITH_USERINFO_RE.test(v)
            ? `domain ${quote(v)} carries userinfo (the part up to "@"): a sign-in domain is host[:port] alone`
            : `domain ${quote(v)} is not an RFC 3986 authority`,
  },
  address: {
    type: 'INVALID_ADDRESS',
    problem: (v) => {
      if (decodeSolanaAddress(v) !== undefined) return undefined;
      if (v === '' || !BASE58_RE.test(v)) return `address ${quote(v)} is not base58`;
      return `address ${quote(v)} is not 32 bytes of base58 (a Solana address is an Ed25519 public key)`;
    },
  },
  statement: {
    type: 'INVALID_STATEMENT',
    problem: (v) => {
      if (v === '') return 'the statement is empty (leave it out instead)';
      if (!STATEMENT_RE.test(v)) {
        return `statement ${quote(v)} has characters SIWS does not allow (printable ASCII only, one line: no line break, tab, control or non-ASCII character)`;
      }
      if (isFieldLine(v)) return `statement ${quote(v)} begins like a field line, so the message would read as that field`;
      return undefined;
    },
  },
  uri: { type: 'INVALID_URI', problem: (v) => (URI_RE.test(v) ? undefined : `URI ${quote(v)} is not an RFC 3986 URI`) },
  version: { type: 'INVALID_MESSAGE_VERSION', problem: (v) => (v === '1' ? undefined : `version must be 1, found ${quote(v)}`) },
  chainId: {
    type: 'INVALID_CHAIN_ID',
    problem: (v) =>
      (SIWS_CHAIN_IDS as readonly string[]).includes(v)
        ? undefined
        : `Chain ID ${quote(v)} is not a Solana cluster (one of ${SIWS_CHAIN_IDS.join(', ')})`,
  },
  nonce: {
    type: 'INVALID_NONCE',
    problem: (v) => (NONCE_RE.test(v) ? undefined : `nonce ${quote(v)} is not 8 or more letters and digits`),
  },
  issuedAt: timeCheck('Issued At'),
  expirationTime: timeCheck('Expiration Time'),
  notBefore: timeCheck('Not Before'),
  requestId: {
    type: 'INVALID_REQUEST_ID',
    problem: (v) =>
      v === ''
        ? 'the Request ID is empty (leave the line out instead)'
        : REQUEST_ID_RE.test(v)
          ? undefined
          : `Request ID ${quote(v)} has characters outside URI path characters`,
  },
  resources: {
    type: 'INVALID_RESOURCE',
    problem: (v) => (URI_RE.test(v) ? undefined : `resource ${quote(v)} is not an RFC 3986 URI`),
  },
} satisfies Record<Exclude<SiwsField, 'message' | 'signature'>, FieldCheck>;

export type CheckedField = keyof typeof FIELD_CHECKS;

/**
 * Checks one field's value against its grammar; throws its typed error (with `line` when the
 * value came from a message's text). A value that is not a string fails too.
 */
export function checkField(field: CheckedField, value: unknown, line?: number): string {
  const rule: FieldCheck = FIELD_CHECKS[field];
  const problem = typeof value === 'string' ? rule.problem(value) : `${field} must be a string`;
  if (problem === undefined) return value as string;
  throw new SiwsError(rule.type, line === undefined ? problem : `line ${line}: ${problem}`, { field, line, received: value });
}
