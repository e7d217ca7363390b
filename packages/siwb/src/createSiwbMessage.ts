import { createCaip122Message } from '@signet/siwe/caip122';
import { BITCOIN_NAMESPACE } from './namespace.ts';
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

/**
 * Formats a Sign in with Bitcoin message, every field checked against the parser's grammar
 * (the address against the Chain ID's network too): what this returns always parses, and
 * `createSiwbMessage(parseSiwbMessage(text))` returns `text` unchanged. An optional field left
 * out (undefined) has no line; an empty statement or Request ID is refused rather than dropped.
 */
export function createSiwbMessage(parameters: CreateSiwbMessageParameters): string {
  const fields =
    typeof parameters === 'object' && parameters !== null ? { ...parameters, version: parameters.version ?? '1' } : parameters;
  return createCaip122Message(BITCOIN_NAMESPACE, fields);
}
