import { type Caip122ParseOptions, parseCaip122Message } from '@signet/siwe/caip122';
import { BITCOIN_NAMESPACE } from './namespace.ts';
import type { SiwbMessage } from './types.ts';

/** How `parseSiwbMessage` reads `Chain ID:` (`@signet/siwe/caip122`'s `Caip122ParseOptions`). */
export type ParseSiwbMessageOptions = Caip122ParseOptions;

/**
 * Parses Sign in with Bitcoin text (the CAIP-122 message for the bip122 namespace) strictly:
 * every line in its place, each field in its own grammar (RFC 3986, RFC 3339, a Bitcoin address
 * that can sign in, the CAIP-2 reference of a Bitcoin network whose addresses the address is
 * one of), nothing after the last field. URI, Version, Chain ID, Nonce and Issued At are
 * required, as in EIP-4361. Throws `SiwbError` (never anything else) whose `type` names the
 * failed rule and whose `line` / `field` point at the offending part.
 *
 * With `acceptCaip2ChainId`, `Chain ID:` may also be the whole CAIP-2 id
 * (`bip122:000000000019d6689c085ae165831e93`), as Reown AppKit writes it; the parsed `chainId`
 * is then the bare reference.
 */
export function parseSiwbMessage(text: string, options: ParseSiwbMessageOptions = {}): SiwbMessage {
  return parseCaip122Message(text, BITCOIN_NAMESPACE, options) as SiwbMessage;
}
