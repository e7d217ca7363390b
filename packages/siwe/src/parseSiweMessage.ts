import type { Address } from 'viem';
import { PREAMBLE_SUFFIX } from './constants.ts';
import { SiweError, type SiweField } from './errors.ts';
import { FIELD_CHECKS } from './fields.ts';
import { CHAIN_ID_RE } from './grammar.ts';
import { messageLines } from './messageLines.ts';
import type { SiweMessage } from './types.ts';

type Tagged = { label: string; field: SiweField };

const URI: Tagged = { label: 'URI: ', field: 'uri' };
const VERSION: Tagged = { label: 'Version: ', field: 'version' };
const CHAIN_ID: Tagged = { label: 'Chain ID: ', field: 'chainId' };
const NONCE: Tagged = { label: 'Nonce: ', field: 'nonce' };
const ISSUED_AT: Tagged = { label: 'Issued At: ', field: 'issuedAt' };
const OPTIONAL: Tagged[] = [
  { label: 'Expiration Time: ', field: 'expirationTime' },
  { label: 'Not Before: ', field: 'notBefore' },
  { label: 'Request ID: ', field: 'requestId' },
];
const RESOURCES_LINE = 'Resources:';
const RESOURCE_PREFIX = '- ';

function show(line: string | undefined): string {
  if (line === undefined) return 'the end of the message';
  const shown = line.length > 60 ? `${line.slice(0, 60)}…` : line;
  return JSON.stringify(shown);
}

/**
 * Parses EIP-4361 text with the EIP's ABNF, strictly: every line in its place, each field
 * in its own grammar, nothing after the last field. Throws `SiweError` (never anything else)
 * whose `type` names the failed rule and whose `line`/`field` point at the offending part.
 */
export function parseSiweMessage(text: string): SiweMessage {
  const lines = messageLines(text, SiweError);
  let index = 0;

  const fail = (type: ConstructorParameters<typeof SiweError>[0], message: string, field: SiweField, received?: unknown) =>
    new SiweError(type, `line ${index + 1}: ${message}`, { field, line: index + 1, received });

  const validate = <K extends keyof typeof FIELD_CHECKS>(key: K, value: string) => {
    const rule = FIELD_CHECKS[key];
    if (!rule.test(value)) {
      const error = rule.fail(value);
      throw new SiweError(error.type, `line ${index + 1}: ${error.message}`, {
        field: rule.field,
        line: index + 1,
        received: value,
      });
    }
    return value;
  };

  const tagged = ({ label, field }: Tagged): string => {
    const line = lines[index];
    if (line === undefined || !line.startsWith(label)) {
      throw fail('UNABLE_TO_PARSE', `expected "${label}…", found ${show(line)}`, field, line);
    }
    return line.slice(label.length);
  };

  // Line 1: [scheme "://"] domain " wants you to sign in with your Ethereum account:"
  const first = lines[0] as string;
  if (!first.endsWith(PREAMBLE_SUFFIX)) {
    throw fail('UNABLE_TO_PARSE', `expected "<domain>${PREAMBLE_SUFFIX}", found ${show(first)}`, 'domain', first);
  }
  let domain = first.slice(0, -PREAMBLE_SUFFIX.length);
  let scheme: string | undefined;
  const separator = domain.indexOf('://');
  if (separator !== -1) {
    scheme = validate('scheme', domain.slice(0, separator));
    domain = domain.slice(separator + 3);
  }
  if (domain === '') throw fail('INVALID_DOMAIN', 'the domain is missing', 'domain', domain);
  validate('domain', domain);

  // Line 2: address
  index = 1;
  const address = lines[index];
  if (address === undefined || address === '') {
    throw fail('INVALID_ADDRESS', `expected the address, found ${show(address)}`, 'address', address);
  }
  validate('address', address);

  // Line 3: empty; then either [statement LF] LF, i.e. "statement", "" or just "".
  index = 2;
  if (lines[index] !== '') throw fail('UNABLE_TO_PARSE', `expected an empty line, found ${show(lines[index])}`, 'statement');
  index = 3;
  let statement: string | undefined;
  if (lines[index] === '' && lines[index + 1]?.startsWith(URI.label)) {
    index = 4;
  } else {
    const candidate = lines[index];
    if (candidate === undefined)
      throw fail('UNABLE_TO_PARSE', `expected the statement or an empty line, found ${show(candidate)}`, 'statement');
    if (candidate.startsWith(URI.label) && lines[index + 1] !== '') {
      throw fail('UNABLE_TO_PARSE', 'expected an empty line before "URI: "', 'statement', candidate);
    }
    statement = validate('statement', candidate);
    index = 4;
    if (lines[index] !== '') {
      throw fail(
        'UNABLE_TO_PARSE',
        `expected an empty line after the statement, found ${show(lines[index])} (statements are one line)`,
        'statement',
      );
    }
    index = 5;
  }

  const uri = validate('uri', tagged(URI));
  index += 1;
  const version = tagged(VERSION);
  if (version !== '1') throw fail('INVALID_MESSAGE_VERSION', `version must be 1, found ${show(version)}`, 'version', version);
  index += 1;
  const chainIdText = tagged(CHAIN_ID);
  if (!CHAIN_ID_RE.test(chainIdText) || !Number.isSafeInteger(Number(chainIdText))) {
    throw fail(
      'INVALID_CHAIN_ID',
      `chain id must be a positive decimal integer without leading zeros, found ${show(chainIdText)}`,
      'chainId',
      chainIdText,
    );
  }
  index += 1;
  const nonce = validate('nonce', tagged(NONCE));
  index += 1;
  const issuedAt = validate('issuedAt', tagged(ISSUED_AT));
  index += 1;

  const message: SiweMessage = {
    ...(scheme === undefined ? {} : { scheme }),
    domain,
    address: address as Address,
    ...(statement === undefined ? {} : { statement }),
    uri,
    version: '1',
    chainId: Number(chainIdText),
    nonce,
    issuedAt,
  };

  for (const optional of OPTIONAL) {
    const line = lines[index];
    if (line?.startsWith(optional.label)) {
      const key = optional.field as 'expirationTime' | 'notBefore' | 'requestId';
      message[key] = validate(key, line.slice(optional.label.length));
      index += 1;
    }
  }

  if (lines[index] === RESOURCES_LINE) {
    index += 1;
    const resources: string[] = [];
    while (index < lines.length) {
      const line = lines[index] as string;
      if (!line.startsWith(RESOURCE_PREFIX)) {
        throw fail('UNABLE_TO_PARSE', `expected a resource line "- <URI>", found ${show(line)}`, 'resources', line);
      }
      resources.push(validate('resources', line.slice(RESOURCE_PREFIX.length)));
      index += 1;
    }
    message.resources = resources;
  }

  if (index < lines.length) {
    const line = lines[index] as string;
    const known = [...OPTIONAL.map((o) => o.label), URI.label, VERSION.label, CHAIN_ID.label, NONCE.label, ISSUED_AT.label];
    const misplaced = known.find((label) => line.startsWith(label)) ?? (line === RESOURCES_LINE ? RESOURCES_LINE : undefined);
    throw fail(
      'UNABLE_TO_PARSE',
      misplaced
        ? `"${misplaced.trim()}" is out of order (fields follow the order of EIP-4361)`
        : `unexpected ${show(line)} after the last field`,
      'message',
      line,
    );
  }
  return message;
}
