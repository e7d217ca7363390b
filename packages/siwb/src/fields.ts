/** The grammar of each field of a SIWB message, shared by the parser and the formatter. */
import { AUTHORITY_RE, NONCE_RE, parseDateTime, quote, REQUEST_ID_RE, STATEMENT_RE, URI_RE } from '@signet/siwe/caip122';
import { bitcoinNetworkOf } from './bitcoinNetworkOf.ts';
import { isFieldLine } from './constants.ts';
import { readBitcoinAddress } from './decodeBitcoinAddress.ts';
import { SiwbError, type SiwbErrorType, type SiwbField } from './errors.ts';
import { ADDRESS_FAMILY, BITCOIN_CHAIN_REFERENCES, BITCOIN_NETWORKS } from './networks.ts';

/** What is wrong with a value: a sentence (the rule's own type) or a type and a sentence. */
type Problem = string | { type: SiwbErrorType; text: string } | undefined;
type FieldCheck = { type: SiwbErrorType; problem(value: string): Problem };

const isTime = (value: string) => parseDateTime(value) !== undefined;
const timeCheck = (label: string): FieldCheck => ({
  type: 'INVALID_TIME_FORMAT',
  problem: (v) => (isTime(v) ? undefined : `${label} ${quote(v)} is not an RFC 3339 date-time`),
});
const REFERENCES = BITCOIN_NETWORKS.map((network) => `${BITCOIN_CHAIN_REFERENCES[network]} (${network})`).join(', ');

function addressProblem(v: string): Problem {
  const decoded = readBitcoinAddress(v);
  if (typeof decoded === 'string') return `address ${quote(v)} is not a Bitcoin address: ${decoded}`;
  if (decoded.bech32 && v !== v.toLowerCase()) {
    return `address ${quote(v)} must be written in lower case (${v.toLowerCase()}): one spelling per account`;
  }
  if (decoded.type === 'p2wsh') {
    return { type: 'UNSUPPORTED_ADDRESS_TYPE', text: `address ${v} is P2WSH (a script), which cannot sign in here` };
  }
  if (decoded.type === 'witness') {
    return {
      type: 'UNSUPPORTED_ADDRESS_TYPE',
      text: `address ${v} is a witness version ${decoded.witnessVersion} program of ${decoded.data.length} bytes, which cannot sign in here (P2PKH, P2SH-P2WPKH, P2WPKH and P2TR can)`,
    };
  }
  return undefined;
}

/** Each field's rule: `problem` says what is wrong with a value, or undefined when it is fine. */
const FIELD_CHECKS = {
  domain: {
    type: 'INVALID_DOMAIN',
    problem: (v) =>
      AUTHORITY_RE.test(v)
        ? undefined
        : v.includes('://')
          ? `domain ${quote(v)} has a scheme: a SIWB domain is an RFC 3986 authority (host[:port])`
          : `domain ${quote(v)} is not an RFC 3986 authority`,
  },
  address: { type: 'INVALID_ADDRESS', problem: addressProblem },
  statement: {
    type: 'INVALID_STATEMENT',
    problem: (v) => {
      if (v === '') return 'the statement is empty (leave it out instead)';
      if (!STATEMENT_RE.test(v)) {
        return `statement ${quote(v)} has characters SIWB does not allow (only URI reserved/unreserved characters and spaces, one line)`;
      }
      if (isFieldLine(v)) return `statement ${quote(v)} begins like a field line, so the message would read as that field`;
      return undefined;
    },
  },
  uri: { type: 'INVALID_URI', problem: (v) => (URI_RE.test(v) ? undefined : `URI ${quote(v)} is not an RFC 3986 URI`) },
  version: { type: 'INVALID_MESSAGE_VERSION', problem: (v) => (v === '1' ? undefined : `version must be 1, found ${quote(v)}`) },
  chainId: {
    type: 'INVALID_CHAIN_ID',
    problem: (v) => {
      if (bitcoinNetworkOf(v) !== undefined && !v.startsWith('bip122:')) return undefined;
      if (v.startsWith('bip122:')) return `Chain ID ${quote(v)}: write the CAIP-2 reference alone, without "bip122:"`;
      if (bitcoinNetworkOf(v.toLowerCase()) !== undefined) return `Chain ID ${quote(v)} must be lower-case hex`;
      return `Chain ID ${quote(v)} is not the CAIP-2 reference of a Bitcoin network (one of ${REFERENCES})`;
    },
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
} satisfies Record<Exclude<SiwbField, 'message' | 'signature'>, FieldCheck>;

export type CheckedField = keyof typeof FIELD_CHECKS;

/**
 * Checks one field's value against its grammar; throws its typed error (with `line` when the
 * value came from a message's text). A value that is not a string fails too.
 */
export function checkField(field: CheckedField, value: unknown, line?: number): string {
  const rule: FieldCheck = FIELD_CHECKS[field];
  const problem = typeof value === 'string' ? rule.problem(value) : `${field} must be a string`;
  if (problem === undefined) return value as string;
  const { type, text } = typeof problem === 'string' ? { type: rule.type, text: problem } : problem;
  throw new SiwbError(type, line === undefined ? text : `line ${line}: ${text}`, { field, line, received: value });
}

/**
 * Checks that a (valid) address is one of the (valid) Chain ID's network: mainnet's own, or
 * the test encodings that testnet3, testnet4 and signet share. Throws `NETWORK_MISMATCH`.
 */
export function checkAddressNetwork(address: string, chainId: string, line?: number): void {
  const network = bitcoinNetworkOf(chainId);
  const decoded = readBitcoinAddress(address);
  if (network === undefined || typeof decoded === 'string' || decoded.family === ADDRESS_FAMILY[network]) return;
  const text = `address ${address} is ${decoded.family === 'mainnet' ? 'a mainnet' : 'a test-network'} address, but the Chain ID names ${network}`;
  throw new SiwbError('NETWORK_MISMATCH', line === undefined ? text : `line ${line}: ${text}`, {
    field: 'address',
    line,
    expected: network,
    received: address,
  });
}
