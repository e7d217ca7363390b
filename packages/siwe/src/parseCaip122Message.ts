/**
 * The one parser of CAIP-122 text, for every profile (namespace slot: `caip122Namespace.ts`).
 * Each part of the message is read by its own function, in order: the first line, the address,
 * the statement, the tagged fields, the resources, and nothing after them.
 */
import { type Caip122CheckedField, checkCaip122Field } from './caip122Fields.ts';
import {
  type Caip122ErrorType,
  type Caip122Field,
  type Caip122Message,
  type Caip122Namespace,
  type Caip122ParseOptions,
  isFieldLine,
  RESOURCES_LINE,
  TAGGED_FIELDS,
} from './caip122Namespace.ts';
import { messageLines } from './messageLines.ts';
import { MessageReader, show } from './messageReader.ts';

type Reader = MessageReader<Caip122ErrorType, Caip122Field>;

/** "<domain> wants you to sign in with your <Kind> account:" for another kind of account. */
const OTHER_KIND_RE = / wants you to sign in with your ([^\n]+) account:$/;

const check = <T extends string>(ns: Caip122Namespace<T>, r: Reader, field: Caip122CheckedField, value: string) =>
  checkCaip122Field(ns, field, value, { line: r.index + 1 });

/** Line 1: `<domain> wants you to sign in with your <Kind> account:`; the domain. */
function readPreamble<T extends string>(ns: Caip122Namespace<T>, r: Reader): string {
  const suffix = ` wants you to sign in with your ${ns.kind} account:`;
  const first = r.lines[0] as string;
  if (!first.endsWith(suffix)) {
    const other = OTHER_KIND_RE.exec(first);
    if (other) {
      throw r.fail(
        'WRONG_NAMESPACE',
        `this message asks for your ${other[1]} account, not a ${ns.kind} account`,
        'message',
        other[1],
      );
    }
    throw r.fail('UNABLE_TO_PARSE', `expected "<domain>${suffix}", found ${show(first)}`, 'domain', first);
  }
  const domain = first.slice(0, -suffix.length);
  if (domain === '') throw r.fail('INVALID_DOMAIN', 'the domain is missing', 'domain', domain);
  return check(ns, r, 'domain', domain);
}

/** Line 2: the address, in the profile's grammar. */
function readAddress<T extends string>(ns: Caip122Namespace<T>, r: Reader): string {
  r.index = 1;
  const address = r.line;
  if (address === undefined || address === '') {
    throw r.fail('INVALID_ADDRESS', `expected the address, found ${show(address)}`, 'address', address);
  }
  return check(ns, r, 'address', address);
}

/**
 * One empty line, then either the statement and one more empty line, or the first field. A
 * profile whose fields are all optional (SIWS) may end after the address or the statement: then
 * this returns false (nothing more to read).
 */
function readStatement<T extends string>(ns: Caip122Namespace<T>, r: Reader, message: Caip122Message): boolean {
  const optional = ns.required.length === 0;
  const endsEarly = () =>
    new ns.Failure('UNABLE_TO_PARSE', `line ${r.index}: the message ends with an empty line`, {
      field: 'message',
      line: r.index,
    });
  r.index = 2;
  if (r.done && optional) return false;
  if (r.line !== '')
    throw r.fail('UNABLE_TO_PARSE', `expected an empty line after the address, found ${show(r.line)}`, 'statement');
  r.index = 3;
  if (r.done && optional) throw endsEarly();
  const third = r.line;
  if (third === '') {
    const first = ns.required[0] === undefined ? 'the first field' : `"${TAGGED_FIELDS[0].label}…"`;
    throw r.fail(
      'UNABLE_TO_PARSE',
      `expected the statement or ${first}, found a second empty line (without a statement, ${ns.name} has one empty line before the fields, not two as EIP-4361 has)`,
      'statement',
    );
  }
  if (third === undefined || isFieldLine(third)) return true;
  message.statement = check(ns, r, 'statement', third);
  r.index = 4;
  if (r.done && optional) return false;
  r.endOfStatement('statement');
  if (r.done && optional) throw endsEarly();
  if (optional && !isFieldLine(r.line as string)) {
    throw r.fail(
      'UNABLE_TO_PARSE',
      `expected a field ("URI: …", "Version: …", …) after the statement, found ${show(r.line)} (statements are one line)`,
      'statement',
    );
  }
  return true;
}

/** The tagged lines in their order: each the profile requires must be there, the others may be. */
function readTaggedFields<T extends string>(
  ns: Caip122Namespace<T>,
  r: Reader,
  message: Caip122Message,
  options: Caip122ParseOptions,
) {
  for (const { label, field } of TAGGED_FIELDS) {
    const line = r.line;
    if (line?.startsWith(label)) {
      const value = checkCaip122Field(ns, field, line.slice(label.length), {
        line: r.index + 1,
        acceptCaip2ChainId: options.acceptCaip2ChainId,
      });
      (message as Record<string, unknown>)[field] = value;
      if (field === 'chainId') ns.checkAddressOnChain?.(message.address, value, r.index + 1);
      r.index += 1;
    } else if (ns.required.includes(field)) {
      throw r.fail('UNABLE_TO_PARSE', `expected "${label}…", found ${show(line)}`, field, line);
    }
  }
}

/** Nothing may follow the last field: say what is out of order, repeated or unknown. */
function rejectRest<T extends string>(ns: Caip122Namespace<T>, r: Reader) {
  if (r.done) return;
  const line = r.line as string;
  const tagged = TAGGED_FIELDS.find(({ label }) => line.startsWith(label));
  const misplaced = tagged?.label.trim() ?? (line === RESOURCES_LINE ? RESOURCES_LINE : undefined);
  throw r.fail(
    'UNABLE_TO_PARSE',
    misplaced
      ? `"${misplaced}" is out of order or repeated (fields follow the order of ${ns.order}, each at most once)`
      : `unexpected ${show(line)} after the last field`,
    tagged?.field ?? 'message',
    line,
  );
}

/**
 * Parses CAIP-122 text for the profile `ns`, strictly: every line in its place, each field in its
 * own grammar (RFC 3986, RFC 3339, the profile's addresses and chain ids), the fields the profile
 * requires present, nothing after the last field. Throws the profile's error (never anything
 * else) whose `type` names the failed rule and whose `line` / `field` point at the offending part.
 */
export function parseCaip122Message<T extends string>(
  text: unknown,
  ns: Caip122Namespace<T>,
  options: Caip122ParseOptions = {},
): Caip122Message {
  const r: Reader = new MessageReader<Caip122ErrorType, Caip122Field>(messageLines(text, ns.Failure), ns.Failure);
  const message: Caip122Message = { domain: readPreamble(ns, r), address: '' };
  message.address = readAddress(ns, r);
  if (!readStatement(ns, r, message)) return message;
  readTaggedFields(ns, r, message, options);
  const resources = r.resources((value, line) => checkCaip122Field(ns, 'resources', value, { line }));
  if (resources) message.resources = resources;
  rejectRest(ns, r);
  return message;
}
