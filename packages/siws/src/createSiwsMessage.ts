import { PREAMBLE_SUFFIX, TAGGED_FIELDS, type TaggedField } from './constants.ts';
import { SiwsError } from './errors.ts';
import { checkField } from './fields.ts';
import type { SiwsMessage } from './types.ts';

type Time = string | Date;

/** Fields to build a message from; timestamps may be `Date`s (formatted as ISO 8601 UTC). */
export type CreateSiwsMessageParameters = Omit<SiwsMessage, 'issuedAt' | 'expirationTime' | 'notBefore' | 'resources'> & {
  issuedAt?: Time;
  expirationTime?: Time;
  notBefore?: Time;
  resources?: readonly string[];
};

const timeText = (value: Time | undefined) =>
  value instanceof Date ? (Number.isNaN(value.getTime()) ? String(value) : value.toISOString()) : value;

/**
 * Formats a Sign In With Solana message exactly as the wallet-standard reference
 * (`createSignInMessageText`) does, with every field checked against the parser's grammar:
 * what this returns always parses, and `createSiwsMessage(parseSiwsMessage(text))` returns
 * `text` unchanged. A field left out (undefined) has no line; an empty string is refused
 * rather than silently dropped.
 */
export function createSiwsMessage(parameters: CreateSiwsMessageParameters): string {
  const values: Partial<Record<TaggedField, unknown>> = {
    ...parameters,
    issuedAt: timeText(parameters.issuedAt),
    expirationTime: timeText(parameters.expirationTime),
    notBefore: timeText(parameters.notBefore),
  };
  checkField('domain', parameters.domain);
  checkField('address', parameters.address);
  let text = `${parameters.domain}${PREAMBLE_SUFFIX}\n${parameters.address}`;
  if (parameters.statement !== undefined) text += `\n\n${checkField('statement', parameters.statement)}`;

  const lines: string[] = [];
  for (const { label, field } of TAGGED_FIELDS) {
    const value = values[field];
    if (value !== undefined) lines.push(`${label}${checkField(field, value)}`);
  }
  if (parameters.resources !== undefined) {
    if (!Array.isArray(parameters.resources)) {
      throw new SiwsError('INVALID_RESOURCE', 'resources must be an array of URIs', { field: 'resources' });
    }
    lines.push('Resources:', ...parameters.resources.map((resource) => `- ${checkField('resources', resource)}`));
  }
  if (lines.length > 0) text += `\n\n${lines.join('\n')}`;
  return text;
}
