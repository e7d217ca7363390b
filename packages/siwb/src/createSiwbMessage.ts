import { OPTIONAL_FIELDS, PREAMBLE_SUFFIX, REQUIRED_FIELDS, type TaggedField } from './constants.ts';
import { SiwbError } from './errors.ts';
import { checkAddressNetwork, checkField } from './fields.ts';
import type { SiwbMessage } from './types.ts';

type Time = string | Date;

/** Fields to build a message from; timestamps may be `Date`s (formatted as ISO 8601 UTC); the version defaults to 1. */
export type CreateSiwbMessageParameters = Omit<
  SiwbMessage,
  'version' | 'issuedAt' | 'expirationTime' | 'notBefore' | 'resources'
> & {
  version?: '1';
  issuedAt: Time;
  expirationTime?: Time;
  notBefore?: Time;
  resources?: readonly string[];
};

const timeText = (value: Time | undefined) =>
  value instanceof Date ? (Number.isNaN(value.getTime()) ? String(value) : value.toISOString()) : value;

/**
 * Formats a Sign in with Bitcoin message, every field checked against the parser's grammar
 * (the address against the Chain ID's network too): what this returns always parses, and
 * `createSiwbMessage(parseSiwbMessage(text))` returns `text` unchanged. An optional field left
 * out (undefined) has no line; an empty statement or Request ID is refused rather than dropped.
 */
export function createSiwbMessage(parameters: CreateSiwbMessageParameters): string {
  if (typeof parameters !== 'object' || parameters === null) {
    throw new SiwbError('UNABLE_TO_PARSE', 'the message fields must be an object', { field: 'message' });
  }
  const values: Partial<Record<TaggedField, unknown>> = {
    ...parameters,
    version: parameters.version ?? '1',
    issuedAt: timeText(parameters.issuedAt),
    expirationTime: timeText(parameters.expirationTime),
    notBefore: timeText(parameters.notBefore),
  };
  checkField('domain', parameters.domain);
  checkField('address', parameters.address);
  let text = `${parameters.domain}${PREAMBLE_SUFFIX}\n${parameters.address}\n\n`;
  if (parameters.statement !== undefined) text += `${checkField('statement', parameters.statement)}\n\n`;

  const lines: string[] = [];
  for (const { label, field } of REQUIRED_FIELDS) lines.push(`${label}${checkField(field, values[field])}`);
  checkAddressNetwork(parameters.address, values.chainId as string);
  for (const { label, field } of OPTIONAL_FIELDS) {
    const value = values[field];
    if (value !== undefined) lines.push(`${label}${checkField(field, value)}`);
  }
  if (parameters.resources !== undefined) {
    if (!Array.isArray(parameters.resources)) {
      throw new SiwbError('INVALID_RESOURCE', 'resources must be an array of URIs', { field: 'resources' });
    }
    lines.push('Resources:', ...parameters.resources.map((resource) => `- ${checkField('resources', resource)}`));
  }
  return text + lines.join('\n');
}
