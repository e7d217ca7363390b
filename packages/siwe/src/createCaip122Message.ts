import { checkCaip122Field } from './caip122Fields.ts';
import { type Caip122Message, type Caip122Namespace, TAGGED_FIELDS } from './caip122Namespace.ts';

type Time = string | Date;

/** Fields to write a message from; timestamps may be `Date`s (written as ISO 8601 UTC). */
export type CreateCaip122MessageParameters = Omit<Caip122Message, 'issuedAt' | 'expirationTime' | 'notBefore' | 'resources'> & {
  issuedAt?: Time;
  expirationTime?: Time;
  notBefore?: Time;
  resources?: readonly string[];
};

const timeText = (value: unknown) =>
  value instanceof Date ? (Number.isNaN(value.getTime()) ? String(value) : value.toISOString()) : value;

/**
 * Writes CAIP-122 text for the profile `ns`, every field checked against the parser's grammar
 * (the profile's address against its Chain ID too): what this returns always parses, and parsing
 * it gives back these fields. A field left out (undefined) has no line, unless the profile
 * requires it (then it is refused, typed); an empty statement or Request ID is refused rather
 * than silently dropped. One empty line between the address and the fields without a statement.
 */
export function createCaip122Message<T extends string>(
  ns: Caip122Namespace<T>,
  parameters: CreateCaip122MessageParameters,
): string {
  if (typeof parameters !== 'object' || parameters === null) {
    throw new ns.Failure('UNABLE_TO_PARSE', 'the message fields must be an object', { field: 'message' });
  }
  const values: Record<string, unknown> = parameters;
  const domain = checkCaip122Field(ns, 'domain', parameters.domain);
  const address = checkCaip122Field(ns, 'address', parameters.address);
  let text = `${domain} wants you to sign in with your ${ns.kind} account:\n${address}`;
  if (parameters.statement !== undefined) text += `\n\n${checkCaip122Field(ns, 'statement', parameters.statement)}`;
  const lines: string[] = [];
  for (const { label, field } of TAGGED_FIELDS) {
    const value = timeText(values[field]);
    if (value === undefined && !ns.required.includes(field)) continue;
    lines.push(`${label}${checkCaip122Field(ns, field, value)}`);
    if (field === 'chainId') ns.checkAddressOnChain?.(address, value as string);
  }
  if (parameters.resources !== undefined) {
    if (!Array.isArray(parameters.resources)) {
      throw new ns.Failure('INVALID_RESOURCE', 'resources must be an array of URIs', { field: 'resources' });
    }
    lines.push('Resources:', ...parameters.resources.map((resource) => `- ${checkCaip122Field(ns, 'resources', resource)}`));
  }
  return lines.length === 0 ? text : `${text}\n\n${lines.join('\n')}`;
}
