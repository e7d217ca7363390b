import { quote } from './signInError.ts';

/** CAIP-2: `namespace:reference`, the namespace 3-8 of `[-a-z0-9]`, the reference 1-32 of `[-_a-zA-Z0-9]`. */
const CAIP2_RE = /^([-a-z0-9]{3,8}):([-_a-zA-Z0-9]{1,32})$/;

export type Caip2Parts = { namespace: string; reference: string };

/** The two parts of a CAIP-2 chain id (`eip155:1` → eip155, 1), or undefined when `value` is not one. */
export function caip2Parts(value: string): Caip2Parts | undefined {
  const match = CAIP2_RE.exec(value);
  return match ? { namespace: match[1] as string, reference: match[2] as string } : undefined;
}

/**
 * A CAIP-2 form of a Chain ID read for `namespace`: the profile's spelling of the chain it names
 * (`read` turns a reference into it), or the sentence saying why it names none of the namespace's
 * chains. `bare` also reads a reference alone (Solana's genesis hash, as `clearChainIdNamespace`
 * writes it). Undefined when `value` has no CAIP-2 form at all (the profile's own error stands).
 */
export function readCaip2ChainId(
  value: string,
  namespace: { namespace: string; kind: string },
  read: (reference: string) => string | undefined,
  bare = false,
): { chainId: string } | { problem: string } | undefined {
  const parts = caip2Parts(value);
  if (parts === undefined) {
    const chainId = bare ? read(value) : undefined;
    return chainId === undefined ? undefined : { chainId };
  }
  if (parts.namespace !== namespace.namespace) {
    return {
      problem: `Chain ID ${quote(value)} names a chain of the ${parts.namespace} namespace, not of ${namespace.namespace} (${namespace.kind})`,
    };
  }
  const chainId = read(parts.reference);
  return chainId === undefined
    ? { problem: `Chain ID ${quote(value)} is not a ${namespace.kind} chain this sign-in knows` }
    : { chainId };
}
