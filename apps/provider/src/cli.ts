/**
 * `npm run signet -- <command>` (or the `signet` bin): manage what lives in the provider's
 * storage, with the same settings as the server (STORAGE_URL, …).
 *
 *   clients add --redirect-uri <uri> [--redirect-uri …] [--name <name>] [--secret]
 *               [--post-logout-redirect-uri <uri>] [--logo-uri <uri>] [--client-uri <uri>] [--id <client_id>]
 *   clients list
 *   clients remove <client_id>
 *   keys list
 *   keys rotate
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { listSigningKeys, RETIRED_KEY_RETENTION_MS, rotateSigningKeys } from './keys.ts';
import { createLogger } from './logger.ts';
import { createOidcAdapter } from './storage/index.ts';

const USAGE = `usage: signet <command>
  clients add --redirect-uri <uri> [--redirect-uri <uri> …] [--name <name>] [--secret]
              [--post-logout-redirect-uri <uri>] [--logo-uri <uri>] [--client-uri <uri>] [--id <client_id>]
  clients list
  clients remove <client_id>
  keys list
  keys rotate
Settings come from the environment, as for the server (STORAGE_URL, …).`;

export async function runCli(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
  out = console.log,
): Promise<number> {
  const [group, command, ...rest] = argv;
  if (!group || group === 'help' || group === '--help') {
    out(USAGE);
    return group ? 0 : 64;
  }
  // Help never needs settings or storage.
  if (argv.includes('--help') || argv.includes('-h')) {
    out(USAGE);
    return 0;
  }
  const config = loadConfig({ ...env, LOG_LEVEL: env.LOG_LEVEL ?? 'warn' });
  const app = await buildApp(config, { logger: createLogger(config.logLevel), keyRefreshMs: 0 });
  const { store } = app.services;
  const Clients = new (createOidcAdapter(store))('Client');
  try {
    if (group === 'clients' && command === 'add') {
      const { values } = parseArgs({
        args: rest,
        options: {
          'redirect-uri': { type: 'string', multiple: true },
          'post-logout-redirect-uri': { type: 'string', multiple: true },
          name: { type: 'string' },
          'logo-uri': { type: 'string' },
          'client-uri': { type: 'string' },
          secret: { type: 'boolean', default: false },
          id: { type: 'string' },
        },
      });
      if (!values['redirect-uri']?.length) throw new UsageError('clients add needs at least one --redirect-uri');
      const secret = values.secret ? randomBytes(48).toString('base64url') : undefined;
      const metadata = Object.fromEntries(
        Object.entries({
          client_id: values.id ?? randomUUID(),
          client_name: values.name,
          redirect_uris: values['redirect-uri'],
          post_logout_redirect_uris: values['post-logout-redirect-uri'],
          logo_uri: values['logo-uri'],
          client_uri: values['client-uri'],
          token_endpoint_auth_method: secret ? 'client_secret_basic' : 'none',
          client_secret: secret,
          client_id_issued_at: Math.floor(Date.now() / 1000),
        }).filter(([, v]) => v !== undefined),
      );
      if (await Clients.find(String(metadata.client_id))) throw new UsageError(`client ${metadata.client_id} already exists`);
      const provider = app.provider();
      let client: { metadata(): Record<string, unknown> };
      try {
        client = new (provider.Client as unknown as new (m: unknown) => { metadata(): Record<string, unknown> })(metadata);
      } catch (error) {
        throw new UsageError(
          `invalid client: ${(error as { error_description?: string }).error_description ?? (error as Error).message}`,
        );
      }
      await Clients.upsert(String(metadata.client_id), client.metadata());
      out(
        JSON.stringify(
          { client_id: metadata.client_id, ...(secret ? { client_secret: secret } : {}), redirect_uris: metadata.redirect_uris },
          null,
          2,
        ),
      );
      return 0;
    }
    if (group === 'clients' && command === 'list') {
      const ids = (await store.keys('oidc:Client:'))
        .filter((k) => !k.endsWith(':consumed'))
        .map((k) => k.slice('oidc:Client:'.length));
      const rows = [];
      for (const id of ids.sort()) {
        const m = (await Clients.find(id)) as Record<string, unknown> | undefined;
        if (m)
          rows.push({
            client_id: id,
            source: 'storage',
            client_name: m.client_name,
            redirect_uris: m.redirect_uris,
            auth: m.token_endpoint_auth_method,
          });
      }
      for (const m of config.staticClients) {
        rows.push({
          client_id: m.client_id,
          source: 'CLIENTS_FILE',
          client_name: m.client_name,
          redirect_uris: m.redirect_uris,
          auth: m.token_endpoint_auth_method,
        });
      }
      out(JSON.stringify(rows, null, 2));
      return 0;
    }
    if (group === 'clients' && command === 'remove') {
      const id = rest[0];
      if (!id) throw new UsageError('clients remove needs a client_id');
      if (config.staticClients.some((m) => m.client_id === id))
        throw new UsageError(`${id} comes from CLIENTS_FILE; remove it there`);
      if (!(await Clients.find(id))) throw new UsageError(`no client ${id} in storage`);
      await Clients.destroy(id);
      out(`removed ${id}`);
      return 0;
    }
    if (group === 'keys' && command === 'list') {
      const keys = await listSigningKeys(store);
      out(
        JSON.stringify(
          keys.map((k) => ({
            kid: k.kid,
            alg: k.alg,
            created: new Date(k.createdAt).toISOString(),
            status: k.retiredAt === undefined ? 'signing' : 'retired (published for verification)',
            ...(k.retiredAt === undefined
              ? {}
              : { unpublished_after: new Date(k.retiredAt + RETIRED_KEY_RETENTION_MS).toISOString() }),
          })),
          null,
          2,
        ),
      );
      return 0;
    }
    if (group === 'keys' && command === 'rotate') {
      const { added, retired, dropped } = await rotateSigningKeys(store);
      out(JSON.stringify({ signing: added.kid, retired, dropped }, null, 2));
      out('Running providers switch to the new key within 30 seconds.');
      return 0;
    }
    throw new UsageError(`unknown command: ${[group, command].filter(Boolean).join(' ')}`);
  } finally {
    await app.close();
  }
}

class UsageError extends Error {}

/** Runs the CLI with process.argv and exits with its status. */
export function cliMain(argv = process.argv.slice(2)): void {
  runCli(argv).then(
    (code) => process.exit(code),
    (error) => {
      if (error instanceof UsageError || error instanceof ConfigError) {
        console.error(`signet: ${error.message}`);
        if (error instanceof UsageError) console.error(USAGE);
        process.exit(error instanceof ConfigError ? 78 : 64);
      }
      console.error(error);
      process.exit(1);
    },
  );
}

if (import.meta.url === `file://${process.argv[1]}`) cliMain();
