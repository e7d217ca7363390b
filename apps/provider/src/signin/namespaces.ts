/**
 * The kinds of account a sign-in takes, by CAIP-2 namespace: `eip155` (Ethereum, EIP-4361)
 * always, `solana` (Sign In With Solana) when SOLANA_NETWORKS names a cluster, `bip122` (Sign in
 * with Bitcoin) when BITCOIN_NETWORKS names a network. A client may
 * restrict them (client metadata `account_namespaces`), and a gated client takes Ethereum
 * accounts only: its access conditions are holdings on Ethereum chains. The first line of a
 * signed message names its kind; a kind this sign-in does not take is refused before any check.
 */
import type { ClientFields } from '../clients/rules.ts';
import type { Config } from '../config.ts';
import { HttpError } from '../errors.ts';
import { accessConditionsOf, notEthereumReason } from '../onchain/access.ts';

export const ACCOUNT_NAMESPACES = ['eip155', 'solana', 'bip122'] as const;
export type AccountNamespace = (typeof ACCOUNT_NAMESPACES)[number];

const NAMES: Record<AccountNamespace, string> = { eip155: 'Ethereum', solana: 'Solana', bip122: 'Bitcoin' };

/** The setting that offers each namespace but Ethereum (always offered). */
const SETTINGS: Record<Exclude<AccountNamespace, 'eip155'>, string> = {
  solana: 'SOLANA_NETWORKS',
  bip122: 'BITCOIN_NETWORKS',
};

/** What offers the namespaces (BITCOIN_NETWORKS may be left out: Bitcoin is then off). */
type Offering = Pick<Config, 'solanaNetworks'> & Partial<Pick<Config, 'bitcoinNetworks'>>;

/** "Ethereum", "Ethereum or Solana", "Ethereum, Solana or Bitcoin": the kinds of account, for people. */
export function accountKinds(namespaces: readonly AccountNamespace[]): string {
  const names = namespaces.map((ns) => NAMES[ns]);
  return names.length > 2 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : names.join(' or ');
}

/**
 * The namespaces this provider offers: Ethereum always, Solana when SOLANA_NETWORKS names a
 * cluster, Bitcoin when BITCOIN_NETWORKS names a network.
 */
export const offeredNamespaces = (config: Offering): AccountNamespace[] => [
  'eip155',
  ...(config.solanaNetworks.length > 0 ? (['solana'] as const) : []),
  ...((config.bitcoinNetworks?.length ?? 0) > 0 ? (['bip122'] as const) : []),
];

const isNamespace = (value: unknown): value is AccountNamespace => (ACCOUNT_NAMESPACES as readonly unknown[]).includes(value);

/**
 * What is wrong with a client's `account_namespaces`, in words naming the field; undefined when
 * fine. It must be a non-empty list of known namespaces, each once; a gated client must allow
 * `eip155`. `offered` (given at registration and update only) refuses a namespace this provider
 * does not offer now; a client stored earlier is not judged again when the operator changes
 * SOLANA_NETWORKS or BITCOIN_NETWORKS: it gets no sign-in of that kind meanwhile.
 */
export function accountNamespacesProblem(
  value: unknown,
  metadata: { access_conditions?: unknown },
  offered?: readonly AccountNamespace[],
): string | undefined {
  if (!Array.isArray(value) || value.length === 0) {
    return `account_namespaces: must be a non-empty array of namespaces (${ACCOUNT_NAMESPACES.join(', ')})`;
  }
  for (const [index, namespace] of value.entries()) {
    if (!isNamespace(namespace)) {
      return `account_namespaces[${index}]: ${JSON.stringify(namespace)} is not a namespace Signet signs in (${ACCOUNT_NAMESPACES.join(', ')})`;
    }
    if (value.indexOf(namespace) !== index) return `account_namespaces[${index}]: ${namespace} is listed twice`;
    if (offered && !offered.includes(namespace)) {
      return `account_namespaces[${index}]: this provider does not offer ${NAMES[namespace]} accounts (${SETTINGS[namespace as keyof typeof SETTINGS]} is empty)`;
    }
  }
  if (metadata.access_conditions !== undefined && !value.includes('eip155')) {
    return 'account_namespaces: a client with access_conditions must allow eip155 (its conditions are holdings on Ethereum chains, which no other account can meet)';
  }
  return undefined;
}

/** The client's own restriction, or undefined when it has none (or, stored by hand, a malformed one). */
function clientNamespaces(fields: ClientFields): readonly AccountNamespace[] | undefined {
  const value = fields.account_namespaces;
  return Array.isArray(value) && value.every(isNamespace) ? value : undefined;
}

/**
 * The namespaces a sign-in to this client takes: those the provider offers, that the client
 * allows, and only `eip155` for a gated client.
 */
export function namespacesFor(config: Offering, fields: ClientFields): AccountNamespace[] {
  const allowed = clientNamespaces(fields) ?? ACCOUNT_NAMESPACES;
  const gated = fields.access_conditions !== undefined;
  return offeredNamespaces(config).filter((ns) => allowed.includes(ns) && (!gated || ns === 'eip155'));
}

/** The "<Namespace>" of "<domain> wants you to sign in with your <Namespace> account:". */
const FIRST_LINE_RE = / wants you to sign in with your ([^\n]+) account:$/;

/**
 * The namespace a signed message is for, from its first line: `solana` for "… with your Solana
 * account:", `bip122` for "… with your Bitcoin account:", `eip155` for Ethereum and for anything
 * unrecognisable (the EIP-4361 parser then says what is wrong, as before). Another namespace is
 * refused: WRONG_NAMESPACE.
 */
export function messageNamespace(message: string): AccountNamespace {
  const end = message.indexOf('\n');
  const named = FIRST_LINE_RE.exec(end === -1 ? message : message.slice(0, end))?.[1];
  if (named === undefined || named === 'Ethereum') return 'eip155';
  if (named === 'Solana') return 'solana';
  if (named === 'Bitcoin') return 'bip122';
  throw new HttpError(
    'WRONG_NAMESPACE',
    `the message asks for your ${named.length > 40 ? `${named.slice(0, 40)}…` : named} account; Signet signs in Ethereum, Solana and Bitcoin accounts`,
  );
}

/**
 * The namespace of a signed message, when this sign-in takes it; otherwise the refusal, saying
 * why: the provider does not offer it (NAMESPACE_NOT_ALLOWED), the client does not allow it
 * (NAMESPACE_NOT_ALLOWED), or the client is gated (ACCESS_CONDITION_NOT_MET: a Solana or Bitcoin
 * account cannot hold what it asks).
 */
export function acceptedNamespace(
  message: string,
  accepted: readonly AccountNamespace[],
  config: Offering,
  fields: ClientFields,
): AccountNamespace {
  const namespace = messageNamespace(message);
  assertNamespaceAccepted(namespace, accepted, config, fields);
  return namespace;
}

/**
 * Refuses a namespace this sign-in does not take, saying why (as `acceptedNamespace` does for a
 * message's): not offered, not allowed by the client, or a gated client. Also used by the agents'
 * JWT bearer grant (agents/), whose assertion names its namespace in `sub`.
 */
export function assertNamespaceAccepted(
  namespace: AccountNamespace,
  accepted: readonly AccountNamespace[],
  config: Offering,
  fields: ClientFields,
): void {
  if (accepted.includes(namespace)) return;
  if (!offeredNamespaces(config).includes(namespace)) {
    throw new HttpError(
      'NAMESPACE_NOT_ALLOWED',
      `this provider does not sign in ${NAMES[namespace]} accounts (it takes ${accountKinds(offeredNamespaces(config))} accounts)`,
    );
  }
  const allowed = clientNamespaces(fields);
  if (allowed && !allowed.includes(namespace)) {
    throw new HttpError(
      'NAMESPACE_NOT_ALLOWED',
      `this site takes ${accountKinds(allowed)} accounts only (its account_namespaces), not ${NAMES[namespace]} accounts`,
    );
  }
  const conditions = accessConditionsOf(fields);
  throw new HttpError(
    'ACCESS_CONDITION_NOT_MET',
    conditions ? notEthereumReason(conditions, NAMES[namespace]) : `this site does not take ${NAMES[namespace]} accounts`,
  );
}
