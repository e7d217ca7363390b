import { PREAMBLE_SUFFIX } from './constants.ts';
import { SiweError } from './errors.ts';
import { FIELD_CHECKS } from './fields.ts';
import type { SiweMessage } from './types.ts';

type Time = string | Date;

/** Fields to build a message from; timestamps may be `Date`s (formatted as ISO 8601 UTC). */
export type CreateSiweMessageParameters = Omit<SiweMessage, 'issuedAt' | 'expirationTime' | 'notBefore' | 'version'> & {
  version?: '1';
  issuedAt: Time;
  expirationTime?: Time;
  notBefore?: Time;
};

const timeText = (value: Time) =>
  value instanceof Date ? (Number.isNaN(value.getTime()) ? String(value) : value.toISOString()) : value;

/**
 * Formats an EIP-4361 message. Every field is checked with the same grammar the parser
 * uses, so what this returns always parses, and `createSiweMessage(parseSiweMessage(text))`
 * returns `text` unchanged — except that an empty statement, an empty request ID and an empty
 * resource list are left out rather than written as an empty line, an empty `Request ID: ` or a
 * bare `Resources:` (the grammar allows them, but a wallet shows them as blanks that say
 * nothing, and other formatters leave them out). The parser still reads such a text.
 */
export function createSiweMessage(parameters: CreateSiweMessageParameters): string {
  const { scheme, domain, address, uri, chainId, nonce } = parameters;
  // Empty optional parts are left out (see above): undefined from here on.
  const statement = parameters.statement === '' ? undefined : parameters.statement;
  const requestId = parameters.requestId === '' ? undefined : parameters.requestId;
  const resources = Array.isArray(parameters.resources) && parameters.resources.length === 0 ? undefined : parameters.resources;
  const version = parameters.version ?? '1';
  const issuedAt = parameters.issuedAt === undefined ? undefined : timeText(parameters.issuedAt);
  const expirationTime = parameters.expirationTime === undefined ? undefined : timeText(parameters.expirationTime);
  const notBefore = parameters.notBefore === undefined ? undefined : timeText(parameters.notBefore);

  const ensure = <K extends keyof typeof FIELD_CHECKS>(key: K, value: string | undefined, required = false) => {
    if (value === undefined) {
      if (required) throw FIELD_CHECKS[key].fail('');
      return;
    }
    if (typeof value !== 'string' || !FIELD_CHECKS[key].test(value)) throw FIELD_CHECKS[key].fail(String(value));
  };
  ensure('scheme', scheme);
  ensure('domain', domain, true);
  ensure('address', address, true);
  ensure('statement', statement);
  ensure('uri', uri, true);
  ensure('nonce', nonce, true);
  ensure('issuedAt', issuedAt, true);
  ensure('expirationTime', expirationTime);
  ensure('notBefore', notBefore);
  ensure('requestId', requestId);
  for (const resource of resources ?? []) ensure('resources', resource);
  if (version !== '1') {
    throw new SiweError('INVALID_MESSAGE_VERSION', `version must be 1, found ${JSON.stringify(version)}`, { field: 'version' });
  }
  if (typeof chainId !== 'number' || !Number.isSafeInteger(chainId) || chainId < 1) {
    throw new SiweError('INVALID_CHAIN_ID', `chain id must be a positive integer, found ${chainId}`, { field: 'chainId' });
  }

  const origin = scheme === undefined ? domain : `${scheme}://${domain}`;
  let text = `${origin}${PREAMBLE_SUFFIX}\n${address}\n\n${statement === undefined ? '' : `${statement}\n`}\n`;
  text += `URI: ${uri}\nVersion: ${version}\nChain ID: ${chainId}\nNonce: ${nonce}\nIssued At: ${issuedAt}`;
  if (expirationTime !== undefined) text += `\nExpiration Time: ${expirationTime}`;
  if (notBefore !== undefined) text += `\nNot Before: ${notBefore}`;
  if (requestId !== undefined) text += `\nRequest ID: ${requestId}`;
  if (resources !== undefined) text += `\nResources:${resources.map((r) => `\n- ${r}`).join('')}`;
  return text;
}
