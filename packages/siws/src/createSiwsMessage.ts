import { createCaip122Message } from '@signet/siwe/caip122';
import { SOLANA_NAMESPACE } from './namespace.ts';
import type { SiwsMessage } from './types.ts';

type Time = string | Date;

/** Fields to build a message from; timestamps may be `Date`s (formatted as ISO 8601 UTC). */
export type CreateSiwsMessageParameters = Omit<SiwsMessage, 'issuedAt' | 'expirationTime' | 'notBefore' | 'resources'> & {
  issuedAt?: Time;
  expirationTime?: Time;
  notBefore?: Time;
  resources?: readonly string[];
};

/**
 * Formats a Sign In With Solana message exactly as the wallet-standard reference
 * (`createSignInMessageText`) does, with every field checked against the parser's grammar:
 * what this returns always parses, and `createSiwsMessage(parseSiwsMessage(text))` returns
 * `text` unchanged. A field left out (undefined) has no line; an empty string is refused
 * rather than silently dropped.
 */
export function createSiwsMessage(parameters: CreateSiwsMessageParameters): string {
  return createCaip122Message(SOLANA_NAMESPACE, parameters);
}
