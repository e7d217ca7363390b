import { messageLines } from '@signet/siwe/caip122';
import {
  isFieldLine,
  OPTIONAL_FIELDS,
  PREAMBLE_SUFFIX,
  REQUIRED_FIELDS,
  RESOURCE_PREFIX,
  RESOURCES_LINE,
  TAGGED_FIELDS,
} from './constants.ts';
import { SiwbError, type SiwbErrorType, type SiwbField } from './errors.ts';
import { checkAddressNetwork, checkField } from './fields.ts';
import type { BitcoinChainReference } from './networks.ts';
import type { SiwbMessage } from './types.ts';

/** "<domain> wants you to sign in with your <Namespace> account:" for a namespace other than Bitcoin. */
const OTHER_NAMESPACE_RE = / wants you to sign in with your ([^\n]+) account:$/;

function show(line: string | undefined): string {
  if (line === undefined) return 'the end of the message';
  return JSON.stringify(line.length > 60 ? `${line.slice(0, 60)}…` : line);
}

/**
 * Parses Sign in with Bitcoin text (the CAIP-122 message for the bip122 namespace) strictly:
 * every line in its place, each field in its own grammar (RFC 3986, RFC 3339, a Bitcoin address
 * that can sign in, the CAIP-2 reference of a Bitcoin network whose addresses the address is
 * one of), nothing after the last field. URI, Version, Chain ID, Nonce and Issued At are
 * required, as in EIP-4361. Throws `SiwbError` (never anything else) whose `type` names the
 * failed rule and whose `line` / `field` point at the offending part.
 */
export function parseSiwbMessage(text: string): SiwbMessage {
  const lines = messageLines(text, SiwbError);
  let index = 0;
  const fail = (type: SiwbErrorType, message: string, field: SiwbField, received?: unknown) =>
    new SiwbError(type, `line ${index + 1}: ${message}`, { field, line: index + 1, received });

  // Line 1: domain " wants you to sign in with your Bitcoin account:"
  const first = lines[0] as string;
  if (!first.endsWith(PREAMBLE_SUFFIX)) {
    const other = OTHER_NAMESPACE_RE.exec(first);
    if (other) {
      throw fail('WRONG_NAMESPACE', `this message asks for your ${other[1]} account, not a Bitcoin account`, 'message', other[1]);
    }
    throw fail('UNABLE_TO_PARSE', `expected "<domain>${PREAMBLE_SUFFIX}", found ${show(first)}`, 'domain', first);
  }
  const domain = first.slice(0, -PREAMBLE_SUFFIX.length);
  if (domain === '') throw fail('INVALID_DOMAIN', 'the domain is missing', 'domain', domain);
  checkField('domain', domain, 1);

  // Line 2: the address.
  index = 1;
  const address = lines[index];
  if (address === undefined || address === '') {
    throw fail('INVALID_ADDRESS', `expected the address, found ${show(address)}`, 'address', address);
  }
  checkField('address', address, 2);

  // LF [statement LF LF]: one empty line, then the statement and another empty line, or the URI.
  index = 2;
  if (lines[index] !== '') {
    throw fail('UNABLE_TO_PARSE', `expected an empty line after the address, found ${show(lines[index])}`, 'statement');
  }
  index = 3;
  const third = lines[index];
  if (third === '') {
    throw fail(
      'UNABLE_TO_PARSE',
      'expected the statement or "URI: …", found a second empty line (without a statement, SIWB has one empty line before the fields, not two as EIP-4361 has)',
      'statement',
    );
  }
  let statement: string | undefined;
  if (third !== undefined && !isFieldLine(third)) {
    statement = checkField('statement', third, index + 1);
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

  const values: Partial<Record<(typeof TAGGED_FIELDS)[number]['field'], string>> = {};
  for (const { label, field } of REQUIRED_FIELDS) {
    const line = lines[index];
    if (line === undefined || !line.startsWith(label)) {
      throw fail('UNABLE_TO_PARSE', `expected "${label}…", found ${show(line)}`, field, line);
    }
    values[field] = checkField(field, line.slice(label.length), index + 1);
    if (field === 'chainId') checkAddressNetwork(address, values.chainId as string, index + 1);
    index += 1;
  }
  const message: SiwbMessage = {
    domain,
    address,
    ...(statement === undefined ? {} : { statement }),
    uri: values.uri as string,
    version: '1',
    chainId: values.chainId as BitcoinChainReference,
    nonce: values.nonce as string,
    issuedAt: values.issuedAt as string,
  };
  for (const { label, field } of OPTIONAL_FIELDS) {
    const line = lines[index];
    if (line?.startsWith(label)) {
      message[field] = checkField(field, line.slice(label.length), index + 1);
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
      resources.push(checkField('resources', line.slice(RESOURCE_PREFIX.length), index + 1));
      index += 1;
    }
    message.resources = resources;
  }

  if (index < lines.length) {
    const line = lines[index] as string;
    const tagged = TAGGED_FIELDS.find(({ label }) => line.startsWith(label));
    const misplaced = tagged?.label.trim() ?? (line === RESOURCES_LINE ? RESOURCES_LINE : undefined);
    throw fail(
      'UNABLE_TO_PARSE',
      misplaced
        ? `"${misplaced}" is out of order or repeated (fields follow the order of EIP-4361 and CAIP-122, each at most once)`
        : `unexpected ${show(line)} after the last field`,
      tagged?.field ?? 'message',
      line,
    );
  }
  return message;
}
