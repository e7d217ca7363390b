/**
 * What the wallet page (and any outside client of the interaction contract) needs to build
 * the EIP-4361 message (or the Sign In With Solana or Sign in with Bitcoin one): exactly the values
 * the provider will check.
 */

import type { BitcoinNetwork } from '@signet/siwb/message';
import type { SolanaNetwork } from '@signet/siws/message';
import { passkeyRpId } from '../accounts/passkeys.ts';
import type { DocumentView } from '../clients/metadata-documents/index.ts';
import type { ClientFields } from '../clients/rules.ts';
import type { Config } from '../config.ts';
import { deviceVerificationUri, isDeviceInteraction } from '../device/paths.ts';
import { type AccessConditions, requirementsOf } from '../onchain/access.ts';
import { type EmailSources, emailSourcesOf } from '../relying-party/email.ts';
import { passkeySignInRefusal } from '../relying-party/passkey-sign-in.ts';
import { scopesSupportedBy, supportedScope } from '../relying-party/scopes.ts';
import { type AccountNamespace, namespacesFor } from './namespaces.ts';

/** Whether this sign-in may offer a passkey: passkeys on here, and a client that takes them. */
export const passkeysOffered = (
  config: Pick<Config, 'origin'> & Partial<Pick<Config, 'accountMaxPasskeys'>>,
  fields: ClientFields,
): boolean =>
  config.accountMaxPasskeys !== undefined &&
  passkeyRpId({ origin: config.origin, accountMaxPasskeys: config.accountMaxPasskeys }) !== undefined &&
  passkeySignInRefusal(fields) === undefined;

export type InteractionClient = {
  client_id: string;
  client_name?: string;
  logo_uri?: string;
  client_uri?: string;
  policy_uri?: string;
  tos_uri?: string;
};

export type InteractionDetails = {
  uid: string;
  nonce: string;
  domain: string;
  uri: string;
  statement?: string;
  /** The redirect URI; for a sign-in from another device, the verification URI (`<issuer origin>/device`). */
  resources: [string];
  /** host[:port] of the redirect URI: where the person lands after signing (the one thing about the client the provider knows for sure). */
  redirectHost: string;
  chainIds: number[];
  /**
   * The kinds of account (CAIP-2 namespaces) that may sign in here: `eip155` (Ethereum, an
   * EIP-4361 message) and, when the provider offers it and the client allows it, `solana` and
   * `bip122` (Bitcoin).
   */
  namespaces: AccountNamespace[];
  /** With `solana` in `namespaces`: the clusters a Sign In With Solana message may name (its `Chain ID`). */
  solanaNetworks?: SolanaNetwork[];
  /** With `bip122` in `namespaces`: the networks a Sign in with Bitcoin message may name (its `Chain ID` is the network's CAIP-2 reference). */
  bitcoinNetworks?: BitcoinNetwork[];
  /** The message's issuedAt must not be before this (the sign-in's start). */
  issuedAfter: string;
  expiresAt: string;
  /** The provider's clock when this was made, so a page can correct for a skewed local clock. */
  serverTime: string;
  client: InteractionClient;
  scopes: string[];
  /** "login" (no session) or "consent" (a session, but this client was not granted yet). */
  prompt: string;
  /**
   * A gated client's access conditions in plain words, one per condition (absent when the client
   * has none): shown before signing, so no one signs for a site they cannot enter.
   */
  requires?: string[];
  /** With `requires`: whether every condition ("all") or one of them ("any") must be met. */
  requiresMatch?: 'all' | 'any';
  /**
   * With the `email` scope, for a client that opted in: where its address comes from (the ENS
   * `email` record, and/or `<address>@syntheticDomain`). Absent: no email is shared.
   */
  email?: EmailSources;
  /** Present when the page may offer WalletConnect. */
  walletConnectProjectId?: string;
  /** True when the client knows people by their Signet account (`account_subject`): every wallet of the account signs in as one. */
  accountSubject?: true;
  /**
   * Present when the client is known by its Client ID Metadata Document (its `client_id` is an
   * https URL): `host` is that URL's host, who is asking (the one thing about it the provider
   * knows for sure); everything in `client` but `client_id` is what the document says of itself
   * (self-described). `loopbackOnly`: every redirect URI of the document is a loopback one (a
   * program on this computer, not a website).
   */
  metadataDocument?: DocumentView;
  /**
   * True when a passkey of the person's Signet account may sign in here instead of a wallet
   * (`GET` / `POST /interaction/<uid>/passkey`): an account client that takes them, on a provider
   * where passkeys are on (relying-party/passkey-sign-in.ts).
   */
  passkeys?: true;
};

const hostOf = (uri: string) => {
  try {
    return new URL(uri).host;
  } catch {
    return uri;
  }
};

/** The SIWE nonce of an interaction: the lowercase hex of the UTF-8 bytes of its uid. */
export const nonceOf = (uid: string) => Buffer.from(uid, 'utf8').toString('hex');

const STATEMENT_UNSAFE = /[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;= ]/g;

/** The statements made lately, by configuration and client name (a few per client: bounded). */
const statements = new WeakMap<object, Map<string | undefined, string>>();

/** A statement that satisfies EIP-4361's grammar whatever characters the client name has. */
export function statementFor(config: Pick<Config, 'statement' | 'domain'>, clientName: string | undefined): string {
  let made = statements.get(config);
  if (!made) {
    made = new Map();
    statements.set(config, made);
  }
  let statement = made.get(clientName);
  if (statement === undefined) {
    statement = composeStatement(config, clientName);
    if (made.size >= 1000) made.clear();
    made.set(clientName, statement);
  }
  return statement;
}

function composeStatement(config: Pick<Config, 'statement' | 'domain'>, clientName: string | undefined): string {
  const name = (clientName ?? '').replace(STATEMENT_UNSAFE, '').replace(/\s+/g, ' ').trim().slice(0, 60);
  const template = config.statement ?? (name ? 'Sign in to {client} with {host}.' : 'Sign in with {host}.');
  return template
    .replaceAll('{client}', name || 'this site')
    .replaceAll('{host}', config.domain)
    .replace(STATEMENT_UNSAFE, '');
}

export function clientView(clientId: string, m: ClientFields): InteractionClient {
  const pick = (key: keyof ClientFields) => (typeof m[key] === 'string' ? (m[key] as string) : undefined);
  return Object.fromEntries(
    Object.entries({
      client_id: clientId,
      client_name: pick('client_name'),
      logo_uri: pick('logo_uri'),
      client_uri: pick('client_uri'),
      policy_uri: pick('policy_uri'),
      tos_uri: pick('tos_uri'),
    }).filter(([, v]) => v !== undefined),
  ) as InteractionClient;
}

export function buildDetails(
  config: Pick<
    Config,
    'domain' | 'origin' | 'chainIds' | 'solanaNetworks' | 'statement' | 'walletConnectProjectId' | 'profile' | 'emailScope'
  > &
    Partial<Pick<Config, 'bitcoinNetworks' | 'accountMaxPasskeys'>>,
  interaction: {
    uid: string;
    iat: number;
    exp: number;
    params: Record<string, unknown>;
    prompt: { name: string };
    deviceCode?: string;
  },
  client: InteractionClient,
  conditions?: AccessConditions,
  fields: ClientFields = {},
  document?: DocumentView,
): InteractionDetails {
  const namespaces = namespacesFor(config, fields);
  // Values the profile does not support are dropped here as at registration and refresh.
  const scope = supportedScope(interaction.params.scope, scopesSupportedBy(config)) ?? 'openid';
  const scopes = scope.split(' ').filter(Boolean);
  const email = scopes.includes('email') ? emailSourcesOf(fields) : undefined;
  // A sign-in from another device has no redirect URI: its message names the verification URI.
  const resource = isDeviceInteraction(interaction) ? deviceVerificationUri(config) : String(interaction.params.redirect_uri);
  return {
    uid: interaction.uid,
    nonce: nonceOf(interaction.uid),
    domain: config.domain,
    uri: config.origin,
    // A document's name is its own say: the message names the host that served it instead.
    statement: statementFor(config, document ? document.host : client.client_name),
    resources: [resource],
    redirectHost: hostOf(resource),
    chainIds: config.chainIds,
    namespaces,
    ...(namespaces.includes('solana') ? { solanaNetworks: config.solanaNetworks } : {}),
    ...(namespaces.includes('bip122') ? { bitcoinNetworks: config.bitcoinNetworks } : {}),
    issuedAfter: new Date(interaction.iat * 1000).toISOString(),
    expiresAt: new Date(interaction.exp * 1000).toISOString(),
    serverTime: new Date().toISOString(),
    client,
    scopes,
    prompt: interaction.prompt.name,
    ...(email ? { email } : {}),
    ...(conditions ? { requires: requirementsOf(conditions), requiresMatch: conditions.match } : {}),
    ...(config.walletConnectProjectId ? { walletConnectProjectId: config.walletConnectProjectId } : {}),
    ...(fields.account_subject === true ? { accountSubject: true as const } : {}),
    ...(document ? { metadataDocument: document } : {}),
    ...(passkeysOffered(config, fields) ? { passkeys: true as const } : {}),
  };
}
