/**
 * The grammar of each field of a CAIP-122 message, shared by the parser and the formatter: the
 * fields every profile has (RFC 3986, RFC 3339, the nonce, the statement), and the profile's own
 * rules for its addresses and chain ids through the namespace slot.
 */
import { readCaip2ChainId } from './caip2ChainId.ts';
import type { Caip122ErrorType, Caip122Namespace, FieldProblem, TaggedField } from './caip122Namespace.ts';
import { isFieldLine } from './caip122Namespace.ts';
import {
  AUTHORITY_RE,
  AUTHORITY_WITH_USERINFO_RE,
  NONCE_RE,
  parseDateTime,
  REQUEST_ID_RE,
  STATEMENT_RE,
  URI_RE,
} from './grammar.ts';
import { quote } from './signInError.ts';

export type Caip122CheckedField = 'domain' | 'address' | 'statement' | TaggedField | 'resources';

type Rule = { type: Caip122ErrorType; problem(value: string, ns: Caip122Namespace<string>): FieldProblem<string> };

const timeRule = (label: string): Rule => ({
  type: 'INVALID_TIME_FORMAT',
  problem: (v) => (parseDateTime(v) !== undefined ? undefined : `${label} ${quote(v)} is not an RFC 3339 date-time`),
});

function domainProblem(v: string, ns: Caip122Namespace<string>): string | undefined {
  if (AUTHORITY_RE.test(v)) return undefined;
  if (v.includes('://')) return `domain ${quote(v)} has a scheme: a ${ns.name} domain is an RFC 3986 authority (host[:port])`;
  if (AUTHORITY_WITH_USERINFO_RE.test(v)) {
    return `domain ${quote(v)} carries userinfo (the part up to "@"): a sign-in domain is host[:port] alone`;
  }
  return `domain ${quote(v)} is not an RFC 3986 authority`;
}

function statementProblem(v: string, ns: Caip122Namespace<string>): string | undefined {
  if (v === '') return 'the statement is empty (leave it out instead)';
  if (!STATEMENT_RE.test(v)) {
    return `statement ${quote(v)} has characters ${ns.name} does not allow (printable ASCII only, one line: no line break, tab, control or non-ASCII character)`;
  }
  if (isFieldLine(v)) return `statement ${quote(v)} begins like a field line, so the message would read as that field`;
  return undefined;
}

/** Each field's rule: `problem` says what is wrong with a value, or undefined when it is fine. */
const RULES: Record<Caip122CheckedField, Rule> = {
  domain: { type: 'INVALID_DOMAIN', problem: domainProblem },
  address: { type: 'INVALID_ADDRESS', problem: (v, ns) => ns.addressProblem(v) },
  statement: { type: 'INVALID_STATEMENT', problem: statementProblem },
  uri: { type: 'INVALID_URI', problem: (v) => (URI_RE.test(v) ? undefined : `URI ${quote(v)} is not an RFC 3986 URI`) },
  version: { type: 'INVALID_MESSAGE_VERSION', problem: (v) => (v === '1' ? undefined : `version must be 1, found ${quote(v)}`) },
  chainId: { type: 'INVALID_CHAIN_ID', problem: (v, ns) => ns.chainIdProblem(v) },
  nonce: {
    type: 'INVALID_NONCE',
    problem: (v) => (NONCE_RE.test(v) ? undefined : `nonce ${quote(v)} is not 8 or more letters and digits`),
  },
  issuedAt: timeRule('Issued At'),
  expirationTime: timeRule('Expiration Time'),
  notBefore: timeRule('Not Before'),
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
};

/**
 * A Chain ID in one of the CAIP-2 forms `acceptCaip2ChainId` reads, as the profile spells that
 * chain; the profile's own problem stands for a value that has no such form.
 */
function caip2ChainId(value: string, ns: Caip122Namespace<string>): { chainId: string } | { problem: FieldProblem<string> } {
  const own = ns.chainIdProblem(value);
  if (own === undefined) return { chainId: value };
  return readCaip2ChainId(value, ns, (reference) => ns.chainOfReference(reference), true) ?? { problem: own };
}

/**
 * Checks one field's value against its grammar and returns it (a Chain ID read with
 * `acceptCaip2ChainId` as the profile spells it); throws the profile's typed error, with `line`
 * when the value came from a message's text. A value that is not a string fails too.
 */
export function checkCaip122Field<T extends string>(
  ns: Caip122Namespace<T>,
  field: Caip122CheckedField,
  value: unknown,
  options: { line?: number; acceptCaip2ChainId?: boolean } = {},
): string {
  const rule = RULES[field];
  const profile = ns as unknown as Caip122Namespace<string>;
  let checked = value as string;
  let problem: FieldProblem<string>;
  if (typeof value !== 'string') problem = `${field} must be a string`;
  else if (field === 'chainId' && options.acceptCaip2ChainId) {
    const read = caip2ChainId(value, profile);
    if ('chainId' in read) checked = read.chainId;
    else problem = read.problem;
  } else problem = rule.problem(value, profile);
  if (problem === undefined) return checked;
  const { type, text } = typeof problem === 'string' ? { type: rule.type, text: problem } : problem;
  const { line } = options;
  throw new ns.Failure(type as T, line === undefined ? text : `line ${line}: ${text}`, { field, line, received: value });
}
