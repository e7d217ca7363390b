import { messageLines } from '@signet/siwe/caip122';
import { isFieldLine, PREAMBLE_SUFFIX, RESOURCE_PREFIX, RESOURCES_LINE, TAGGED_FIELDS } from './constants.ts';
import { SiwsError, type SiwsErrorType, type SiwsField } from './errors.ts';
import { checkField } from './fields.ts';
import type { SiwsChainId } from './networks.ts';
import type { SiwsMessage } from './types.ts';

/** "<domain> wants you to sign in with your <Namespace> account:" for a namespace other than Solana. */
const OTHER_NAMESPACE_RE = / wants you to sign in with your ([^\n]+) account:$/;

function show(line: string | undefined): string {
  if (line === undefined) return 'the end of the message';
  return JSON.stringify(line.length > 60 ? `${line.slice(0, 60)}…` : line);
}

/**
 * Parses Sign In With Solana text (the wallet-standard `solana:signIn` message) by the SIWS
 * ABNF, strictly: every line in its place, each field in its own grammar (RFC 3986, RFC 3339,
 * 32-byte base58 address, a Chain ID SIWS defines), nothing after the last field. Every field
 * but domain and address is optional, as in SIWS. Throws `SiwsError` (never anything else)
 * whose `type` names the failed rule and whose `line` / `field` point at the offending part.
 */
export function parseSiwsMessage(text: string): SiwsMessage {
  const lines = messageLines(text, SiwsError);
  let index = 0;
  const fail = (type: SiwsErrorType, message: string, field: SiwsField, received?: unknown) =>
    new SiwsError(type, `line ${index + 1}: ${message}`, { field, line: index + 1, received });

  // Line 1: domain " wants you to sign in with your Solana account:"
  const first = lines[0] as string;
  if (!first.endsWith(PREAMBLE_SUFFIX)) {
    const other = OTHER_NAMESPACE_RE.exec(first);
    if (other) {
      throw fail('WRONG_NAMESPACE', `this message asks for your ${other[1]} account, not a Solana account`, 'message', other[1]);
    }
    throw fail('UNABLE_TO_PARSE', `expected "<domain>${PREAMBLE_SUFFIX}", found ${show(first)}`, 'domain', first);
  }
  const domain = first.slice(0, -PREAMBLE_SUFFIX.length);
  if (domain === '') throw fail('INVALID_DOMAIN', 'the domain is missing', 'domain', domain);
  checkField('domain', domain, 1);

  // Line 2: the base58 address.
  index = 1;
  const address = lines[index];
  if (address === undefined || address === '') {
    throw fail('INVALID_ADDRESS', `expected the address, found ${show(address)}`, 'address', address);
  }
  checkField('address', address, 2);
  const message: SiwsMessage = { domain, address };
  index = 2;
  if (index === lines.length) return message; // the minimal message

  // [LF LF statement] [LF LF fields]: one empty line, then the statement or the first field.
  if (lines[index] !== '') {
    throw fail('UNABLE_TO_PARSE', `expected an empty line after the address, found ${show(lines[index])}`, 'statement');
  }
  index = 3;
  // Called with `index` just past the last line, which is empty.
  const endsEarly = () =>
    new SiwsError('UNABLE_TO_PARSE', `line ${index}: the message ends with an empty line`, { field: 'message', line: index });
  if (index === lines.length) throw endsEarly();
  const third = lines[index] as string;
  if (third === '') {
    throw fail(
      'UNABLE_TO_PARSE',
      'expected the statement or the first field, found a second empty line (without a statement, SIWS has one empty line before the fields, not two as EIP-4361 has)',
      'statement',
    );
  }
  if (!isFieldLine(third)) {
    message.statement = checkField('statement', third, index + 1);
    index = 4;
    if (index === lines.length) return message;
    if (lines[index] !== '') {
      throw fail(
        'UNABLE_TO_PARSE',
        `expected an empty line after the statement, found ${show(lines[index])} (statements are one line)`,
        'statement',
      );
    }
    index = 5;
    if (index === lines.length) throw endsEarly();
    if (!isFieldLine(lines[index] as string)) {
      throw fail(
        'UNABLE_TO_PARSE',
        `expected a field ("URI: …", "Version: …", …) after the statement, found ${show(lines[index])} (statements are one line)`,
        'statement',
      );
    }
  }

  for (const { label, field } of TAGGED_FIELDS) {
    const line = lines[index];
    if (line?.startsWith(label)) {
      const value = checkField(field, line.slice(label.length), index + 1);
      if (field === 'version') message.version = value as '1';
      else if (field === 'chainId') message.chainId = value as SiwsChainId;
      else message[field] = value;
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
        ? `"${misplaced}" is out of order or repeated (fields follow the order of the SIWS ABNF, each at most once)`
        : `unexpected ${show(line)} after the last field`,
      tagged?.field ?? 'message',
      line,
    );
  }
  return message;
}
