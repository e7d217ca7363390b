/**
 * `signet storage …`: the operator's commands about the storage itself (cli.ts at the source root registers them).
 *
 *   signet storage migrate                          bring the PostgreSQL schema to this build's version
 *   signet storage copy --from <url> --to <url>     move clients, accounts and keys (and, with --sessions,
 *                                                   sessions and tokens) between storages
 *
 * They open the storages they name themselves (STORAGE_URL for migrate; --from and --to for
 * copy), so cli.ts opens none for them. Heavy modules load only when a command runs.
 */

import type { Config } from '../config.ts';
import type { Command } from './command.ts';

type Helpers = {
  /** cli.ts's UsageError (exit 64). */
  usageError: (message: string, usage?: string) => Error;
  /** Settings for another STORAGE_URL, as the server would read them (throws SettingsError). */
  configFor: (storageUrl: string) => Config;
};

const MIGRATE_USAGE = `usage: signet storage migrate [--lock-timeout-ms N] [--json]

Brings the PostgreSQL schema named by STORAGE_URL (?schema=, default "signet") to the version this
build needs, as the provider does when it starts; run it before starting a new version when the
provider's database user may not change the schema, or behind a transaction-pooling PgBouncer.
Run it over a direct connection to PostgreSQL (or PgBouncer in session mode): it holds an advisory
lock for the whole migration. Several at once are safe: one migrates, the others find it done.

  --lock-timeout-ms N   how long to wait for another migration's lock (default 30000)
  --json                print JSON

SQLite and Redis need no migration step (their layout is made when they are opened).`;

const COPY_USAGE = `usage: signet storage copy --from <url> --to <url> [--sessions] [--force] [--json]

Copies a deployment's state from one storage to another: sqlite:<path>, redis://… (and the
Sentinel and Cluster forms) or postgres://…, any direction. STORAGE_PREFIX applies to Redis on
either side.

  --from <url>   the storage to read (not changed)
  --to <url>     the storage to write (a PostgreSQL schema is created if needed)
  --sessions     also sessions, grants, tokens and codes, so users stay signed in
                 (default: clients, accounts and keys only; users sign in again)
  --force        overwrite keys the target already holds with other values
  --json         print JSON

Copied: clients (each with its registration access token, logo and usage records), accounts
(with their wallets' links and names), and the key sets (signing keys, cookie keys, pairwise
salt). Each record keeps the time it had left. The report counts what was copied as you count it
(1 client) and the records under it (RECORDS: new, unchanged, overwritten). A re-run copies the
same again; a target holding other values under the same keys (a provider already started on it)
is refused unless --force. Stop the providers writing to the source first, or copy sessions again
after the switch.`;

/**
 * The copy's table: per part the things as a person counts them ("1 client"), then the records
 * read for them (a client is several: its registration access token, logo, usage record) and what
 * became of those records.
 */
async function copyReport(summary: import('../storage/copy.ts').CopySummary, sessions: boolean): Promise<string> {
  const { formatTable } = await import('./command.ts');
  const { COPY_ITEMS } = await import('../storage/copy.ts');
  const rows = Object.entries(summary).map(([part, tally]) => {
    const noun = COPY_ITEMS[part as keyof typeof COPY_ITEMS];
    return { part, what: `${tally.items} ${tally.items === 1 ? noun.one : noun.many}`, ...tally };
  });
  const table = formatTable(
    rows,
    [
      ['part', 'PART'],
      ['what', 'COPIED AS'],
      ['records', 'RECORDS'],
      ['copied', 'NEW'],
      ['unchanged', 'UNCHANGED'],
      ['overwritten', 'OVERWRITTEN'],
    ],
    'nothing to copy',
  );
  return sessions ? table : `${table}\n\nsessions, grants and tokens were not copied (--sessions copies them)`;
}

export function storageCommands({ usageError, configFor }: Helpers): Record<string, Command> {
  const storeFor = async (url: string, option: string, mustExist: boolean) => {
    let config: Config;
    try {
      config = configFor(url);
    } catch (error) {
      throw usageError(`${option}: ${(error as Error).message.replace(/^STORAGE_URL: /, '')}`, COPY_USAGE);
    }
    if (config.storage.kind === 'memory') throw usageError(`${option}: memory: holds nothing to copy`, COPY_USAGE);
    if (mustExist && config.storage.kind === 'sqlite') {
      const { existsSync } = await import('node:fs');
      if (!existsSync(config.storage.path)) throw usageError(`${option}: there is no SQLite database at ${config.storage.path}`);
    }
    const { createStore } = await import('../storage/index.ts');
    const store = await createStore(config, { warn: (m) => console.error(`signet: ${m}`) });
    await store.ping();
    return store;
  };

  return {
    'storage migrate': {
      summary: 'create or update the PostgreSQL schema (the provider also does it at start)',
      usage: MIGRATE_USAGE,
      ownStorage: true,
      options: { 'lock-timeout-ms': { type: 'string' }, json: { type: 'boolean', default: false } },
      check(values) {
        const timeout = values['lock-timeout-ms'];
        if (timeout !== undefined && !/^\d{1,7}$/.test(timeout as string))
          throw usageError('--lock-timeout-ms must be a whole number of milliseconds', MIGRATE_USAGE);
      },
      async run({ config, values, out }) {
        const json = values.json === true;
        if (config.storage.kind !== 'postgres') {
          const result = { storage: config.storage.kind, migrated: false };
          out(json ? JSON.stringify(result, null, 2) : `${config.storage.kind} storage needs no migration step`);
          return;
        }
        const { migratePostgresSchema } = await import('../storage/postgres/postgres.ts');
        const result = await migratePostgresSchema(config.storage.postgres, {
          lockTimeoutMs: values['lock-timeout-ms'] === undefined ? undefined : Number(values['lock-timeout-ms']),
        });
        if (json) out(JSON.stringify(result, null, 2));
        else if (result.applied.length === 0)
          out(`schema ${result.schema} at ${result.where} is up to date (version ${result.to})`);
        else
          out(
            [
              `schema ${result.schema} at ${result.where}: version ${result.from} → ${result.to}`,
              ...result.applied.map((m) => `  applied ${m}`),
            ].join('\n'),
          );
      },
    },
    'storage copy': {
      summary: 'copy clients, accounts and keys (--sessions: and sessions) to another storage',
      usage: COPY_USAGE,
      ownStorage: true,
      options: {
        from: { type: 'string' },
        to: { type: 'string' },
        sessions: { type: 'boolean', default: false },
        force: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
      },
      check(values) {
        if (typeof values.from !== 'string' || typeof values.to !== 'string')
          throw usageError('storage copy needs --from <url> and --to <url>', COPY_USAGE);
        if (values.from === values.to) throw usageError('--from and --to name the same storage', COPY_USAGE);
      },
      async run({ values, out }) {
        const { copyStorage, CopyConflictError } = await import('../storage/copy.ts');
        const from = await storeFor(values.from as string, '--from', true);
        try {
          const to = await storeFor(values.to as string, '--to', false);
          try {
            const summary = await copyStorage(from, to, {
              sessions: values.sessions === true,
              force: values.force === true,
            }).catch((error) => {
              throw error instanceof CopyConflictError ? usageError(error.message) : error;
            });
            if (values.json === true) out(JSON.stringify(summary, null, 2));
            else out(await copyReport(summary, values.sessions === true));
          } finally {
            await to.close();
          }
        } finally {
          await from.close();
        }
      },
    },
  };
}
