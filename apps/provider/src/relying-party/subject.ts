/**
 * The chain-independent subject (client metadata `subject_chain`).
 *
 * By default `sub` is the CAIP-10 account id `eip155:<chainId>:<address>` of the chain the user
 * signed on, so one key signing on chain 1 and on chain 8453 is two users to a relying party.
 * A client registered with `"subject_chain": "any"` gets `eip155:0:<address>` (CAIP-10's
 * chain-agnostic reference for EVM accounts) for a sign-in whose signature recovered to the
 * address: it proves the private key, and that key controls the address on every chain. A
 * signature checked by the address's code (EIP-1271, EIP-6492, ERC-8010: a contract wallet, or an
 * EIP-7702-delegated account) keeps its signed chain whatever the client asks: the same address on
 * two chains may run two different pieces of code accepting two different keys, so merging them
 * would hand one person's subject to another.
 *
 * The decision is made per sign-in, from the sign-in record of the grant the subject is given
 * under (its `method`), never per address: the address signing as a plain account on one chain
 * says nothing of who its code on another chain lets sign.
 *
 * oidc-provider writes the session's account id as `sub` wherever a client receives one, with a
 * hook for pairwise clients only. So every place a subject leaves asks `subjectFor` with the
 * grant in hand (grantIdOf): the claims of ID tokens, userinfo and logout tokens
 * (`clientSubjects` below), pairwise identifiers and the id_token_hint check (oidc.ts), and
 * introspection (middleware/introspection-subject.ts).
 */

import { toChecksumAddress as getAddress } from '@signet/siwe/offline';
import { type KoaContextWithOIDC, Provider } from 'oidc-provider';
import { loadSignIn } from '../records/sign-ins.ts';
import type { Store } from '../storage/index.ts';
import { accountSubject } from './account-subject.ts';

export const SUBJECT_CHAINS = ['signed', 'any'] as const;
export type SubjectChain = (typeof SUBJECT_CHAINS)[number];

/** The subject a client is given for an account, under the grant the request concerns. */
export type SubjectOf = (accountId: string, client: object, ctx: KoaContextWithOIDC | undefined) => Promise<string>;

/** Why a `subject_chain` value is refused, or undefined (absent means "signed"). */
export function subjectChainProblem(value: unknown): string | undefined {
  if (value === undefined || (SUBJECT_CHAINS as readonly unknown[]).includes(value)) return undefined;
  return `subject_chain must be one of ${SUBJECT_CHAINS.map((v) => `"${v}"`).join(', ')}`;
}

export const chainIndependent = (client: object | undefined): boolean =>
  (client as { subject_chain?: unknown } | undefined)?.subject_chain === 'any';

type GrantBound = { grantId?: string } | undefined;

/**
 * The grant a request is about, for `client`: the token it carries or redeems (userinfo,
 * introspection, the token endpoint), the grant oidc-provider loaded, the grant a sign-in has just
 * made, or the one this browser's session holds for the client (authorization, logout). Without a
 * context of its own (a logout token), the request's context oidc-provider keeps (Provider.ctx).
 */
export function grantIdOf(ctx: KoaContextWithOIDC | undefined, client?: object): string | undefined {
  const oidc = (ctx ?? (Provider as unknown as { ctx?: KoaContextWithOIDC }).ctx)?.oidc;
  if (!oidc) return undefined;
  const entities = oidc.entities as Record<string, GrantBound> & { Grant?: { jti?: string } };
  const clientId = (client as { clientId?: string } | undefined)?.clientId;
  return (
    entities.AccessToken?.grantId ??
    entities.RefreshToken?.grantId ??
    entities.AuthorizationCode?.grantId ??
    entities.DeviceCode?.grantId ??
    entities.Grant?.jti ??
    (oidc.result as { consent?: { grantId?: string } } | undefined)?.consent?.grantId ??
    (clientId ? oidc.session?.grantIdFor(clientId) : undefined)
  );
}

/**
 * The account id a client sees (before pairwise hashing): `eip155:0:<address>` for a
 * chain-independent client when the grant's sign-in recovered the signature to that address;
 * the signed account id otherwise (another kind of signature, another account, no record).
 */
export async function subjectFor(
  store: Store,
  accountId: string,
  client: object | undefined,
  grantId: string | undefined,
): Promise<string> {
  // An account client knows the person by the Signet account the signing wallet belonged to
  // (relying-party/account-subject.ts); it overrides subject_chain.
  if (accountSubject(client)) return (await loadSignIn(store, grantId))?.account ?? accountId;
  if (!chainIndependent(client)) return accountId;
  const match = /^eip155:[1-9][0-9]*:(0x[0-9a-fA-F]{40})$/.exec(accountId);
  if (!match) return accountId;
  const record = await loadSignIn(store, grantId);
  return record?.accountId === accountId && record.method === 'eoa' ? `eip155:0:${getAddress(match[1] as string)}` : accountId;
}

/**
 * oidc-provider's `Claims#result` is where the claims of an ID token, a userinfo answer and a
 * logout token are cut to what one client receives (and where it hashes a pairwise client's
 * `sub`); a public client's `sub` is made its subject there too.
 */
export function clientSubjects(provider: Provider, subjectOf: SubjectOf): void {
  type Claims = { client: { subjectType?: string }; ctx?: KoaContextWithOIDC; result(): Promise<Record<string, unknown>> };
  const prototype = (provider.Claims as unknown as { prototype: Claims }).prototype;
  const result = prototype.result;
  prototype.result = async function clientResult(this: Claims) {
    const claims = await result.call(this);
    if (typeof claims.sub === 'string' && this.client.subjectType !== 'pairwise') {
      claims.sub = await subjectOf(claims.sub, this.client, this.ctx);
    }
    return claims;
  };
}
