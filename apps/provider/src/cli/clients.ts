/**
 * `signet clients …`: register, list, remove and prune the clients in storage, each checked
 * exactly as registration checks it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import type { Config } from '../config.ts';
import { PROFILES } from '../deployment/profiles.ts';
import { clientSummary } from '../observability/audit.ts';
import { createLogger } from '../observability/logger.ts';
import type { Store } from '../storage/index.ts';
import { type Command, formatPairs, formatTable, JSON_OPTION, osUser, print, UsageError } from './command.ts';

// Storage and client code import oidc-provider (which warns on Node 20 at import): help and
// command-line errors answer before any of it loads.
const storage = () => import('../storage/index.ts');

const storedClientIds = async (store: Store) => (await storage()).listModelIds(store, 'Client');

/**
 * Checks client metadata exactly as registration does, with an oidc-provider instance that
 * signs nothing: an ephemeral key, no cookies, no routes. Returns the normalised metadata.
 */
async function validateClient(config: Config, store: Store, metadata: Record<string, unknown>) {
  // Loaded here: oidc-provider is the heaviest import, and only this command needs it.
  const { createProvider } = await import('../oidc/provider.ts');
  const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  const provider = createProvider({
    config: { ...config, staticClients: [] },
    store,
    logger: createLogger('silent'),
    jwks: { keys: [{ ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig' }] },
    cookieKeys: [randomBytes(32).toString('base64url')],
    pairwiseSalt: randomBytes(32).toString('base64url'),
    pageHeaders: () => {},
  });
  const Client = provider.Client as unknown as new (m: unknown) => { metadata(): Record<string, unknown> };
  const { assertMetadataBounds } = await import('../clients/metadata.ts');
  try {
    assertMetadataBounds(metadata);
    return new Client(metadata).metadata();
  } catch (error) {
    throw new UsageError(
      `invalid client: ${(error as { error_description?: string }).error_description ?? (error as Error).message}`,
    );
  }
}

const usageOf = (name: string) => clientCommands[name]?.usage;

const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * The grants of a client: the code flow with redirect URIs; `--device` adds the device_code grant
 * (RFC 8628), `--agent` the JWT bearer grant (RFC 7523, agents/), each with refresh tokens; without
 * redirect URIs only those, and no response types.
 */
function grantsOf(
  withRedirects: boolean,
  device: boolean,
  agent: boolean,
): { grant_types?: string[]; response_types?: string[] } {
  if (!device && !agent) return {};
  const extra = [...(device ? [DEVICE_CODE_GRANT] : []), ...(agent ? [JWT_BEARER_GRANT] : [])];
  return withRedirects
    ? { grant_types: ['authorization_code', 'refresh_token', ...extra] }
    : { grant_types: [...extra, 'refresh_token'], response_types: [] };
}

export const clientCommands: Record<string, Command> = {
  'clients add': {
    summary: 'register a client in storage (validated as a registration would be)',
    usage: `usage: signet clients add --redirect-uri <uri> [options]
       signet clients add --device [options]
       signet clients add --agent [options]

  --redirect-uri <uri>              a redirect URI (repeat for more; at least one, unless --device
                                    or --agent)
  --device                          also sign in from another device (RFC 8628, the device_code
                                    grant, with refresh tokens); without --redirect-uri, only that
  --agent                           also sign in as an agent with its own wallet key (RFC 7523, the
                                    JWT bearer grant, with refresh tokens; docs/relying-parties.md,
                                    "Agents"); without --redirect-uri, only that
  --post-logout-redirect-uri <uri>  where logout may return (repeatable)
  --name <name>                     client_name, shown on the wallet page
  --logo-uri <uri>                  logo_uri (fetched and served by the provider)
  --client-uri <uri>                client_uri, the client's home page
  --secret                          a confidential client: generate a client secret
                                    (client_secret_basic); without it a public client (none)
  --id <client_id>                  choose the client_id (default: a random UUID)
  --access-conditions <json>        only holders may sign in, e.g.
                                    '{"match":"all","conditions":[{"type":"erc721",
                                    "chainId":1,"contract":"0x…"}]}'
                                    (docs/relying-parties.md, "Gate a client")
  --ens-email                       with scope email, release the ENS email text record (unverified)
  --synthetic-email-domain <domain> with scope email, <address>@<domain> (unverified;
                                    docs/relying-parties.md, "email")
  --subject-chain <signed|any>      any: one sub for an EOA on every chain
                                    (docs/relying-parties.md, "Chain-independent subject")
  --account-subject                 sub is the person's Signet account, the same whichever of
                                    their wallets signs; adds the wallet claim and the wallets
                                    scope (docs/relying-parties.md, "Accounts")
  --account-namespaces <list>       the kinds of account that may sign in, a comma list of
                                    eip155, solana, bip122 (Bitcoin) (docs/relying-parties.md,
                                    "Register a client")
  --passkey-sign-in <on|off>        with --account-subject: whether a passkey of the person's
                                    account may sign in (default: on, off for a client with
                                    access conditions or account namespaces;
                                    docs/relying-parties.md, "Passkey sign-ins")
  --json                            print JSON

The client secret is printed once and never again: store it now.`,
    options: {
      'redirect-uri': { type: 'string', multiple: true },
      'post-logout-redirect-uri': { type: 'string', multiple: true },
      name: { type: 'string' },
      'logo-uri': { type: 'string' },
      'client-uri': { type: 'string' },
      secret: { type: 'boolean', default: false },
      id: { type: 'string' },
      'access-conditions': { type: 'string' },
      'ens-email': { type: 'boolean', default: false },
      'synthetic-email-domain': { type: 'string' },
      'subject-chain': { type: 'string' },
      'account-namespaces': { type: 'string' },
      'account-subject': { type: 'boolean', default: false },
      'passkey-sign-in': { type: 'string' },
      device: { type: 'boolean', default: false },
      agent: { type: 'boolean', default: false },
      ...JSON_OPTION,
    },
    check(values) {
      if (!(values['redirect-uri'] as string[] | undefined)?.length && values.device !== true && values.agent !== true)
        throw new UsageError('clients add needs at least one --redirect-uri (or --device, or --agent)', usageOf('clients add'));
      // An https URL as client_id names a Client ID Metadata Document: never a stored client's id.
      if (typeof values.id === 'string' && /^https:\/\//i.test(values.id))
        throw new UsageError(
          '--id may not be an https URL: such a client_id names a Client ID Metadata Document (CLIENTS_FILE may hold such an operator client)',
          usageOf('clients add'),
        );
      if (values['access-conditions'] !== undefined) {
        try {
          JSON.parse(values['access-conditions'] as string);
        } catch (error) {
          throw new UsageError(`--access-conditions is not JSON (${(error as Error).message})`, usageOf('clients add'));
        }
      }
      if (values['passkey-sign-in'] !== undefined && !['on', 'off'].includes(values['passkey-sign-in'] as string))
        throw new UsageError('--passkey-sign-in takes on or off', usageOf('clients add'));
    },
    async run({ config, store, audit, values, out }) {
      if (!store) throw new Error('no storage');
      const redirectUris = (values['redirect-uri'] as string[] | undefined) ?? [];
      // A device client (RFC 8628), an agent's (RFC 7523): their grants and refresh tokens, beside the code flow when it has redirect URIs.
      const device = grantsOf(redirectUris.length > 0, values.device === true, values.agent === true);
      const secret = values.secret ? randomBytes(48).toString('base64url') : undefined;
      const clientId = (values.id as string | undefined) ?? randomUUID();
      const metadata = Object.fromEntries(
        Object.entries({
          client_id: clientId,
          client_name: values.name,
          redirect_uris: redirectUris.length > 0 ? redirectUris : undefined,
          ...device,
          post_logout_redirect_uris: values['post-logout-redirect-uri'],
          logo_uri: values['logo-uri'],
          client_uri: values['client-uri'],
          access_conditions:
            values['access-conditions'] === undefined ? undefined : JSON.parse(values['access-conditions'] as string),
          ens_email: values['ens-email'] === true ? true : undefined,
          synthetic_email_domain: values['synthetic-email-domain'],
          subject_chain: values['subject-chain'],
          account_subject: values['account-subject'] === true ? true : undefined,
          passkey_sign_in: values['passkey-sign-in'] === undefined ? undefined : values['passkey-sign-in'] === 'on',
          account_namespaces:
            values['account-namespaces'] === undefined
              ? undefined
              : (values['account-namespaces'] as string).split(',').map((namespace) => namespace.trim()),
          token_endpoint_auth_method: secret ? 'client_secret_basic' : 'none',
          client_secret: secret,
          client_id_issued_at: Math.floor(Date.now() / 1000),
        }).filter(([, v]) => v !== undefined),
      );
      const Clients = new ((await storage()).createOidcAdapter(store))('Client');
      if (config.staticClients.some((m) => m.client_id === clientId) || (await Clients.find(clientId)))
        throw new UsageError(`client ${clientId} already exists`);
      if (metadata.account_namespaces !== undefined) {
        // As at registration: only the kinds of account this provider offers now (SOLANA_NETWORKS, BITCOIN_NETWORKS).
        const { accountNamespacesProblem, offeredNamespaces } = await import('../signin/namespaces.ts');
        const problem = accountNamespacesProblem(metadata.account_namespaces, metadata, offeredNamespaces(config));
        if (problem) throw new UsageError(`invalid client: ${problem}`);
      }
      const validated = await validateClient(config, store, metadata);
      await Clients.upsert(clientId, validated);
      audit.write('client.registered', { client_id: clientId, actor: 'cli', os_user: osUser(), ...clientSummary(validated) });
      // The operator's own client: used from the start (never expired), and its logo fetched now.
      await (await import('../clients/usage.ts')).markUsed(store, clientId, 'operator');
      const logo = await (await import('../clients/logos.ts')).refreshClientLogo(
        {
          store,
          logger: { info: () => {}, warn: (_fields, message) => console.error(`signet: ${message}`) },
          allowPrivate: config.allowPrivateFetch,
          limitBytes: config.logoStorageLimit,
        },
        clientId,
        metadata.logo_uri as string | undefined,
      );
      if (logo === 'failed')
        console.error(`signet: the logo at ${String(metadata.logo_uri)} could not be fetched; the page draws an initial`);
      const result = {
        client_id: clientId,
        ...(secret ? { client_secret: secret } : {}),
        redirect_uris: redirectUris,
        ...(device.grant_types ? { grant_types: device.grant_types } : {}),
      };
      print(out, values.json === true, result, () =>
        [
          formatPairs([
            ['client_id', clientId],
            ['client_secret', secret],
            ['auth', metadata.token_endpoint_auth_method],
            ['redirect_uris', redirectUris.length > 0 ? redirectUris : undefined],
            ['grant_types', device.grant_types],
          ]),
          ...(secret ? ['', 'The client secret is shown once: store it now.'] : []),
        ].join('\n'),
      );
    },
  },
  'clients list': {
    summary: 'list the clients in storage and in CLIENTS_FILE',
    usage: `usage: signet clients list [--json]

Lists registered clients (storage) and static ones (CLIENTS_FILE). Secrets are never shown.
USED says why a client counts as used: sign-in (one completed), operator (added with the CLI or
CLIENTS_FILE), before-tracking (stored before this was recorded), or never.`,
    readOnly: true,
    options: { ...JSON_OPTION },
    async run({ config, store, values, out }) {
      const rows: Record<string, unknown>[] = [];
      if (store) {
        const Clients = new ((await storage()).createOidcAdapter(store))('Client');
        const ids = await storedClientIds(store);
        const uses = await (await import('../clients/usage.ts')).readUses(store, ids);
        for (const [i, id] of ids.entries()) {
          const m = (await Clients.find(id)) as Record<string, unknown> | undefined;
          if (m)
            rows.push({
              client_id: id,
              source: 'storage',
              client_name: m.client_name,
              redirect_uris: m.redirect_uris,
              auth: m.token_endpoint_auth_method,
              used: uses[i]?.by ?? 'never',
            });
        }
      }
      const { withAuthMethodDefault } = await import('../clients/rules.ts');
      const profileDefault = PROFILES[config.profile].defaultClientAuthMethod;
      for (const m of config.staticClients) {
        rows.push({
          client_id: m.client_id,
          source: 'CLIENTS_FILE',
          client_name: m.client_name,
          redirect_uris: m.redirect_uris,
          auth: withAuthMethodDefault(m, profileDefault).token_endpoint_auth_method,
          used: 'operator',
        });
      }
      print(out, values.json === true, rows, () =>
        formatTable(
          rows,
          [
            ['client_id', 'CLIENT_ID'],
            ['source', 'SOURCE'],
            ['auth', 'AUTH'],
            ['used', 'USED'],
            ['client_name', 'NAME'],
            ['redirect_uris', 'REDIRECT_URIS'],
          ],
          'no clients',
        ),
      );
    },
  },
  'clients remove': {
    summary: 'remove a client from storage',
    usage: `usage: signet clients remove <client_id> [--json]

Removes a registered client. Clients from CLIENTS_FILE are removed by editing that file.`,
    options: { ...JSON_OPTION },
    positionals: true,
    check(_values, positionals) {
      if (positionals.length !== 1) throw new UsageError('clients remove needs one client_id', usageOf('clients remove'));
    },
    async run({ config, store, audit, values, positionals, out }) {
      if (!store) throw new Error('no storage');
      const id = positionals[0] as string;
      if (config.staticClients.some((m) => m.client_id === id))
        throw new UsageError(`${id} comes from CLIENTS_FILE; remove it there`);
      const Clients = new ((await storage()).createOidcAdapter(store))('Client');
      if (!(await Clients.find(id))) throw new UsageError(`no client ${id} in storage`);
      // With its registration access tokens, logo and usage record.
      await (await import('../clients/lifecycle.ts')).forgetClient(store, id);
      audit.write('client.deleted', { client_id: id, actor: 'cli', os_user: osUser() });
      print(out, values.json === true, { removed: id }, () => `removed ${id}`);
    },
  },
  'clients prune': {
    summary: 'list, then remove, dynamically registered clients never used for a sign-in',
    usage: `usage: signet clients prune [--days N] [--dry-run] [--json]

Removes the dynamically registered clients that were registered more than N days ago and never
completed a sign-in, with their registration access tokens and logos. Clients added with the CLI
or in CLIENTS_FILE, and clients stored before usage was recorded, are never removed.

  --days N     age in days (default: CLIENT_UNUSED_EXPIRY_DAYS; one of the two is needed)
  --dry-run    list them, remove nothing
  --json       print JSON

With CLIENT_UNUSED_EXPIRY_DAYS set, the provider itself does this every hour.`,
    options: { days: { type: 'string' }, 'dry-run': { type: 'boolean', default: false }, ...JSON_OPTION },
    check(values) {
      if (values.days !== undefined && !/^[1-9][0-9]{0,3}$/.test(values.days as string))
        throw new UsageError('--days must be a whole number from 1 to 9999', usageOf('clients prune'));
    },
    async run({ config, store, values, out }) {
      if (!store) throw new Error('no storage');
      const days = values.days === undefined ? config.clientUnusedExpiryDays : Number(values.days);
      if (days === 0) throw new UsageError('clients prune needs --days N (CLIENT_UNUSED_EXPIRY_DAYS is not set)');
      const dryRun = values['dry-run'] === true;
      const clients = await (await import('../clients/expiry.ts')).pruneUnusedClients(store, days, { dryRun });
      print(out, values.json === true, { days, dry_run: dryRun, [dryRun ? 'would_remove' : 'removed']: clients }, () =>
        [
          formatTable(
            clients,
            [
              ['client_id', 'CLIENT_ID'],
              ['registered_at', 'REGISTERED'],
              ['client_name', 'NAME'],
              ['redirect_uris', 'REDIRECT_URIS'],
            ],
            `no dynamically registered client has gone unused for ${days} days`,
          ),
          ...(clients.length ? ['', `${dryRun ? 'would remove' : 'removed'} ${clients.length} client(s)`] : []),
        ].join('\n'),
      );
    },
  },
};
