import { type Caip122ParseOptions, parseCaip122Message } from '@signet/siwe/caip122';
import { SOLANA_NAMESPACE } from './namespace.ts';
import type { SiwsMessage } from './types.ts';

/** How `parseSiwsMessage` reads `Chain ID:` (`@signet/siwe/caip122`'s `Caip122ParseOptions`). */
export type ParseSiwsMessageOptions = Caip122ParseOptions;

/**
 * Parses Sign In With Solana text (the wallet-standard `solana:signIn` message) by the SIWS
 * ABNF, strictly: every line in its place, each field in its own grammar (RFC 3986, RFC 3339,
 * 32-byte base58 address, a Chain ID SIWS defines), nothing after the last field. Every field
 * but domain and address is optional, as in SIWS. Throws `SiwsError` (never anything else)
 * whose `type` names the failed rule and whose `line` / `field` point at the offending part.
 *
 * With `acceptCaip2ChainId`, `Chain ID:` may also be a cluster's CAIP-2 id
 * (`solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp`) or its bare genesis-hash reference, as Reown
 * AppKit writes it; the parsed `chainId` is then the cluster's name (`mainnet`).
 */
export function parseSiwsMessage(text: string, options: ParseSiwsMessageOptions = {}): SiwsMessage {
  return parseCaip122Message(text, SOLANA_NAMESPACE, options) as SiwsMessage;
}
