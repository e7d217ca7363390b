/**
 * The chain-independent subject (client metadata `subject_chain`).
 *
 * By default `sub` is the CAIP-10 account id `eip155:<chainId>:<address>` of the chain the user
 * signed on, so one key signing on chain 1 and on chain 8453 is two users to a relying party.
 * A client registered with `"subject_chain": "any"` gets `eip155:0:<address>` (CAIP-10's
 * chain-agnostic reference for EVM accounts) for externally owned accounts instead: a signature
 * that recovers to the address proves the private key, and that key controls the address on
 * every chain. A contract wallet (EIP-1271, EIP-6492) keeps its signed chain whatever the client
 * asks: the same address on two chains may be two different contracts with two owners (CREATE2
 * deployments, counterfactual wallets), so merging them would hand one owner's account to another.
 *
 * oidc-provider writes the session's account id as `sub` wherever a client receives one, with a
 * hook for pairwise clients only. So an EOA sign-in to such a client leaves a mark for its
 * address in storage (`subject:eoa:<address>`), and every place a subject leaves asks
 * `subjectFor` the same question: the claims of ID tokens, userinfo and logout tokens
 * (`clientSubjects` below), pairwise identifiers and the id_token_hint check (oidc.ts), and
 * introspection (middleware/introspection-subject.ts).
 */
import type { Provider } from 'oidc-provider';
import { getAddress } from 'viem';
import type { Store } from '../storage/index.ts';

export const SUBJECT_CHAINS = ['signed', 'any'] as const;
export type SubjectChain = (typeof SUBJECT_CHAINS)[number];

/** How long an EOA mark lasts: longer than any session, grant or token it can concern. */
const MARK_TTL_SECONDS = 30 * 24 * 3600;

const markKey = (address: string) => `subject:eoa:${address.toLowerCase()}`;

/** Why a `subject_chain` value is refused, or undefined (absent means "signed"). */
export function subjectChainProblem(value: unknown): string | undefined {
  if (value === undefined || (SUBJECT_CHAINS as readonly unknown[]).includes(value)) return undefined;
  return `subject_chain must be one of ${SUBJECT_CHAINS.map((v) => `"${v}"`).join(', ')}`;
}

export const chainIndependent = (client: object | undefined): boolean =>
  (client as { subject_chain?: unknown } | undefined)?.subject_chain === 'any';

/** After an EOA sign-in to a chain-independent client: its address may be named without a chain. */
export async function markExternallyOwned(store: Store, address: string): Promise<void> {
  await store.set(markKey(address), '1', MARK_TTL_SECONDS);
}

/**
 * The account id a client sees (before pairwise hashing): `eip155:0:<address>` for a
 * chain-independent client and an externally owned account, the signed account id otherwise.
 */
export async function subjectFor(store: Store, accountId: string, client: object | undefined): Promise<string> {
  if (!chainIndependent(client)) return accountId;
  const match = /^eip155:[1-9][0-9]*:(0x[0-9a-fA-F]{40})$/.exec(accountId);
  if (!match) return accountId;
  const address = match[1] as string;
  return (await store.get(markKey(address))) === undefined ? accountId : `eip155:0:${getAddress(address)}`;
}

/**
 * oidc-provider's `Claims#result` is where the claims of an ID token, a userinfo answer and a
 * logout token are cut to what one client receives (and where it hashes a pairwise client's
 * `sub`); a public client's `sub` is made its subject there too.
 */
export function clientSubjects(provider: Provider, subjectOf: (accountId: string, client: object) => Promise<string>): void {
  type Claims = { client: { subjectType?: string }; result(): Promise<Record<string, unknown>> };
  const prototype = (provider.Claims as unknown as { prototype: Claims }).prototype;
  const result = prototype.result;
  prototype.result = async function clientResult(this: Claims) {
    const claims = await result.call(this);
    if (typeof claims.sub === 'string' && this.client.subjectType !== 'pairwise') {
      claims.sub = await subjectOf(claims.sub, this.client);
    }
    return claims;
  };
}
