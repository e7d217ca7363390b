import type { Address } from 'viem';
import { readCaip2ChainId } from './caip2ChainId.ts';
import { type Caip122ParseOptions, RESOURCES_LINE, TAGGED_FIELDS } from './caip122Namespace.ts';
import { PREAMBLE_SUFFIX } from './constants.ts';
import { SiweError, type SiweErrorType, type SiweField } from './errors.ts';
import { FIELD_CHECKS } from './fields.ts';
import { CHAIN_ID_RE } from './grammar.ts';
import { messageLines } from './messageLines.ts';
import { MessageReader, show } from './messageReader.ts';
import type { SiweMessage } from './types.ts';

/**
 * How `parseSiweMessage` reads `Chain ID:`. By default only as EIP-4361 writes it (decimal, `1`).
 * `acceptCaip2ChainId` also takes the whole CAIP-2 id, `eip155:1`, as CAIP-122 writers such as
 * Reown AppKit's SIWX put it (EIP-4361's grammar does not allow it: an option, never the
 * default); the parsed `chainId` is the number either way. A chain id of another namespace
 * (`solana:…`) is refused.
 */
export type ParseSiweMessageOptions = Caip122ParseOptions;

type Reader = MessageReader<SiweErrorType, SiweField>;

const [URI, VERSION, CHAIN_ID, NONCE, ISSUED_AT, ...OPTIONAL] = TAGGED_FIELDS;

/** A field's value checked by its grammar (`fields.ts`), the error pointing at the line being read. */
function validate<K extends keyof typeof FIELD_CHECKS>(r: Reader, key: K, value: string): string {
  const rule = FIELD_CHECKS[key];
  if (!rule.test(value)) {
    const error = rule.fail(value);
    throw new SiweError(error.type, `line ${r.index + 1}: ${error.message}`, {
      field: rule.field,
      line: r.index + 1,
      received: value,
    });
  }
  return value;
}

/** Line 1: [scheme "://"] domain " wants you to sign in with your Ethereum account:". */
function readPreamble(r: Reader): { scheme?: string; domain: string } {
  const first = r.lines[0] as string;
  if (!first.endsWith(PREAMBLE_SUFFIX)) {
    throw r.fail('UNABLE_TO_PARSE', `expected "<domain>${PREAMBLE_SUFFIX}", found ${show(first)}`, 'domain', first);
  }
  let domain = first.slice(0, -PREAMBLE_SUFFIX.length);
  let scheme: string | undefined;
  const separator = domain.indexOf('://');
  if (separator !== -1) {
    scheme = validate(r, 'scheme', domain.slice(0, separator));
    domain = domain.slice(separator + 3);
  }
  if (domain === '') throw r.fail('INVALID_DOMAIN', 'the domain is missing', 'domain', domain);
  validate(r, 'domain', domain);
  return scheme === undefined ? { domain } : { scheme, domain };
}

/** Line 2: the EIP-55 address. */
function readAddress(r: Reader): Address {
  r.index = 1;
  const address = r.line;
  if (address === undefined || address === '') {
    throw r.fail('INVALID_ADDRESS', `expected the address, found ${show(address)}`, 'address', address);
  }
  return validate(r, 'address', address) as Address;
}

/** Line 3 is empty; then either [statement LF] LF, i.e. "statement", "" or just "". Leaves the reader at "URI: ". */
function readStatement(r: Reader): string | undefined {
  r.index = 2;
  if (r.line !== '') throw r.fail('UNABLE_TO_PARSE', `expected an empty line, found ${show(r.line)}`, 'statement');
  r.index = 3;
  if (r.line === '' && r.lines[4]?.startsWith(URI.label)) {
    r.index = 4;
    return undefined;
  }
  const candidate = r.line;
  if (candidate === undefined) {
    throw r.fail('UNABLE_TO_PARSE', `expected the statement or an empty line, found ${show(candidate)}`, 'statement');
  }
  if (candidate.startsWith(URI.label) && r.lines[4] !== '') {
    throw r.fail('UNABLE_TO_PARSE', 'expected an empty line before "URI: "', 'statement', candidate);
  }
  const statement = validate(r, 'statement', candidate);
  r.index = 4;
  r.endOfStatement('statement');
  return statement;
}

/** `Chain ID: ` as EIP-4361 writes it (decimal, no leading zeros, at most 2^53 − 1), or with the option `eip155:<that>`. */
function readChainId(r: Reader, options: ParseSiweMessageOptions): number {
  const text = r.tagged(CHAIN_ID.label, 'chainId');
  const decimal = (value: string) => CHAIN_ID_RE.test(value) && Number.isSafeInteger(Number(value));
  let chainId = decimal(text) ? text : undefined;
  if (chainId === undefined && options.acceptCaip2ChainId) {
    const read = readCaip2ChainId(text, { namespace: 'eip155', kind: 'Ethereum' }, (reference) =>
      decimal(reference) ? reference : undefined,
    );
    if (read && 'problem' in read) throw r.fail('INVALID_CHAIN_ID', read.problem, 'chainId', text);
    chainId = read?.chainId;
  }
  if (chainId === undefined) {
    const forms = options.acceptCaip2ChainId ? ' (or eip155: and that integer)' : '';
    throw r.fail(
      'INVALID_CHAIN_ID',
      `chain id must be a positive decimal integer without leading zeros${forms}, found ${show(text)}`,
      'chainId',
      text,
    );
  }
  r.index += 1;
  return Number(chainId);
}

/** A tagged line's value, checked by its grammar; then the next line. */
function field<K extends 'uri' | 'nonce' | 'issuedAt'>(r: Reader, label: string, key: K): string {
  const value = validate(r, key, r.tagged(label, key));
  r.index += 1;
  return value;
}

/** URI, Version, Chain ID, Nonce and Issued At, each on its line, in that order. */
function readRequiredFields(r: Reader, options: ParseSiweMessageOptions) {
  const uri = field(r, URI.label, 'uri');
  const version = r.tagged(VERSION.label, 'version');
  if (version !== '1') throw r.fail('INVALID_MESSAGE_VERSION', `version must be 1, found ${show(version)}`, 'version', version);
  r.index += 1;
  const chainId = readChainId(r, options);
  const nonce = field(r, NONCE.label, 'nonce');
  const issuedAt = field(r, ISSUED_AT.label, 'issuedAt');
  return { uri, version: '1' as const, chainId, nonce, issuedAt };
}

/** Expiration Time, Not Before, Request ID: each may be there, in that order. */
function readOptionalFields(r: Reader, message: SiweMessage) {
  for (const { label, field } of OPTIONAL) {
    const line = r.line;
    if (line?.startsWith(label)) {
      message[field] = validate(r, field, line.slice(label.length));
      r.index += 1;
    }
  }
}

/** Nothing may follow the resources: say what is out of order or unknown. */
function rejectRest(r: Reader) {
  if (r.done) return;
  const line = r.line as string;
  const misplaced =
    TAGGED_FIELDS.map(({ label }) => label).find((label) => line.startsWith(label)) ??
    (line === RESOURCES_LINE ? RESOURCES_LINE : undefined);
  throw r.fail(
    'UNABLE_TO_PARSE',
    misplaced
      ? `"${misplaced.trim()}" is out of order (fields follow the order of EIP-4361)`
      : `unexpected ${show(line)} after the last field`,
    'message',
    line,
  );
}

/**
 * Parses EIP-4361 text with the EIP's ABNF, strictly: every line in its place, each field
 * in its own grammar, nothing after the last field. Throws `SiweError` (never anything else)
 * whose `type` names the failed rule and whose `line`/`field` point at the offending part.
 * `options.acceptCaip2ChainId` also reads `Chain ID: eip155:<id>` (ParseSiweMessageOptions).
 */
export function parseSiweMessage(text: string, options: ParseSiweMessageOptions = {}): SiweMessage {
  const r: Reader = new MessageReader<SiweErrorType, SiweField>(messageLines(text, SiweError), SiweError);
  const preamble = readPreamble(r);
  const address = readAddress(r);
  const statement = readStatement(r);
  const required = readRequiredFields(r, options);
  // Built field by field in the message's order, not spread together: on Node 20 a literal that
  // spreads an existing object and then adds keys (`{ ...preamble, address, ... }`) took two
  // thirds of a parse (bench/history.md). The test of every field holds the keys and their order.
  const message = (preamble.scheme === undefined ? {} : { scheme: preamble.scheme }) as SiweMessage;
  message.domain = preamble.domain;
  message.address = address;
  if (statement !== undefined) message.statement = statement;
  message.uri = required.uri;
  message.version = required.version;
  message.chainId = required.chainId;
  message.nonce = required.nonce;
  message.issuedAt = required.issuedAt;
  readOptionalFields(r, message);
  const resources = r.resources((value) => validate(r, 'resources', value));
  if (resources) message.resources = resources;
  rejectRest(r);
  return message;
}
