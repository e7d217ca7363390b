/**
 * `signet clients …`, `signet keys …`, `signet accounts …` and `signet storage …` (the groups in cli/): manage what
 * lives in the provider's storage, with the same settings as the server (STORAGE_URL, …). The CLI opens storage and nothing else:
 * it never builds the HTTP app, needs no built wallet page, and a command that only reads
 * (`clients list`, `keys list`) creates nothing, not even the SQLite file.
 *
 * Output is a readable table or key/value list; `--json` prints JSON for scripts.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { redactUrls, SettingsError } from '@signet/settings';
import { accountCommands } from './cli/accounts.ts';
import { clientCommands } from './cli/clients.ts';
import { type Command, type CommandContext, CommandFailed, type Out, UsageError } from './cli/command.ts';
import { keyCommands } from './cli/keys.ts';
import { storageCommands } from './cli/storage.ts';
import { loadConfig } from './config.ts';
import { createAuditLog } from './observability/audit.ts';

export { formatTable, UsageError } from './cli/command.ts';

// Storage code imports oidc-provider (which warns on Node 20 at import): help and command-line
// errors answer before any of it loads.
const storage = () => import('./storage/index.ts');

const COMMANDS: Record<string, Command> = {
  ...clientCommands,
  ...keyCommands,
  ...accountCommands,
  ...storageCommands({
    usageError: (message, usage) => new UsageError(message, usage),
    configFor: (storageUrl) => loadConfig({ ...process.env, LOG_LEVEL: 'warn', STORAGE_URL: storageUrl }),
  }),
};

const GROUPS = ['clients', 'keys', 'accounts', 'storage'] as const;

function groupUsage(group: string): string {
  const lines = Object.entries(COMMANDS)
    .filter(([name]) => name.startsWith(`${group} `))
    .map(([name, c]) => `  ${name.padEnd(16)} ${c.summary}`);
  return `usage: signet ${group} <command> [options]\n\n${lines.join('\n')}\n\nsignet ${group} <command> --help describes one. Settings come from the environment, as for the\nserver (STORAGE_URL, …).`;
}

export const USAGE = `usage: signet clients|keys|accounts|storage <command> [options]\n\n${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(16)} ${c.summary}`)
  .join(
    '\n',
  )}\n  ${'login'.padEnd(16)} sign in with a key this program holds and print the tokens (signet login --help)\n\nsignet <group> <command> --help describes one. Settings come from the environment (STORAGE_URL, …).`;

/**
 * Runs one CLI command. Returns the exit status for help and success; throws UsageError for a
 * bad command line and SettingsError for a bad setting.
 */
export async function runCli(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
  out: Out = console.log,
): Promise<number> {
  const [group, name, ...rest] = argv;
  const wantsHelp = argv.includes('--help') || argv.includes('-h');
  if (!group || group === 'help' || group === '--help' || group === '-h') {
    out(USAGE);
    return group ? 0 : 64;
  }
  // `signet login` is a client of a provider (login/): no settings, no storage.
  if (group === 'login') {
    if (wantsHelp) {
      out((await import('./cli/login.ts')).LOGIN_USAGE);
      return 0;
    }
    await (await import('./cli/login.ts')).runLogin(argv.slice(1), env, out);
    return 0;
  }
  if (!(GROUPS as readonly string[]).includes(group)) throw new UsageError(`unknown command: ${group}`, USAGE);
  const command = name === undefined || name.startsWith('-') ? undefined : COMMANDS[`${group} ${name}`];
  if (!command) {
    if (wantsHelp || name === undefined) {
      out(groupUsage(group));
      return wantsHelp ? 0 : 64;
    }
    throw new UsageError(`unknown command: ${group} ${name}`, groupUsage(group));
  }
  // Help never needs settings or storage.
  if (wantsHelp) {
    out(command.usage);
    return 0;
  }
  let parsed: { values: CommandContext['values']; positionals: string[] };
  try {
    parsed = parseArgs({ args: rest, options: command.options, allowPositionals: command.positionals === true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message, command.usage);
  }
  command.check?.(parsed.values, parsed.positionals);
  const config = loadConfig({ ...env, LOG_LEVEL: env.LOG_LEVEL ?? 'warn' });
  if (command.ownStorage) {
    const audit = createAuditLog('off');
    await command.run({ config, audit, store: undefined, values: parsed.values, positionals: parsed.positionals, out });
    return 0;
  }
  if (config.storage.kind === 'memory')
    throw new UsageError(
      'the CLI needs the storage a provider uses: set STORAGE_URL to sqlite:<path>, postgres://… or redis://… (memory: holds nothing between commands)',
    );
  const absent = config.storage.kind === 'sqlite' && !existsSync(config.storage.path);
  // Writing commands create the database, as the provider would on its first start.
  const store =
    absent && command.readOnly
      ? undefined
      : await (await storage()).createStore(config, { warn: (m) => console.error(`signet: ${m}`) });
  const audit = createAuditLog(command.readOnly ? 'off' : config.auditLog);
  try {
    if (store) {
      try {
        await store.ping();
      } catch (error) {
        throw new SettingsError(`STORAGE_URL: storage does not answer (${redactUrls((error as Error).message)})`);
      }
    }
    await command.run({ config, store, audit, values: parsed.values, positionals: parsed.positionals, out });
    return 0;
  } finally {
    await store?.close();
    await audit.close();
  }
}

/** Runs the CLI with process.argv and exits with its status: 64 for usage, 78 for settings. */
export function cliMain(argv = process.argv.slice(2)): void {
  runCli(argv).then(
    (code) => process.exit(code),
    (error) => {
      if (error instanceof UsageError) {
        console.error(`signet: ${error.message}`);
        if (error.usage) console.error(`\n${error.usage}`);
        process.exit(64);
      }
      if (error instanceof CommandFailed) {
        console.error(`signet: ${error.message}`);
        process.exit(1);
      }
      if (error instanceof SettingsError) {
        console.error(`signet: invalid setting: ${error.message}`);
        process.exit(78);
      }
      console.error(`signet: ${(error as Error).stack ?? error}`);
      process.exit(1);
    },
  );
}

if (import.meta.url === `file://${process.argv[1]}`) cliMain();
