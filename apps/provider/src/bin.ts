/**
 * The `signet` executable: one command for operators, running the built JavaScript with plain
 * node (so signals reach the server process itself).
 *
 *   signet provider            start the provider (settings from the environment)
 *   signet clients …           manage registered clients
 *   signet keys …              list or rotate signing keys
 *   signet accounts …          list, show or delete Signet accounts
 *   signet storage …           migrate the PostgreSQL schema, copy between storages
 *   signet login …             a program signs in with its own key and prints tokens
 *   signet --help | --version  answer without loading anything else
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { holdBackRuntimeWarning } from './runtime/node-support.ts';

const USAGE = `usage: signet <command> [options]

commands:
  provider        start the OpenID Connect provider (settings from the environment)
  clients …       add, list or remove registered clients   (signet clients --help)
  keys …          list or rotate the signing keys          (signet keys --help)
  accounts …      list, show or delete Signet accounts     (signet accounts --help)
  storage …       migrate the PostgreSQL schema, copy between storages (signet storage --help)
  login           sign in with a key this program holds, print the tokens (signet login --help)

options:
  --help          this text (also: signet <command> --help)
  --version       the version of Signet`;

const PROVIDER_USAGE = `usage: signet provider

Starts the provider. Every setting comes from the environment (PORT, ISSUER, PROFILE,
STORAGE_URL, …; docs/configuration.md lists them all with their defaults). SIGTERM or SIGINT
stops it gracefully: /health/ready answers 503 at once while requests are still served for
SHUTDOWN_DRAIN_MS, then in-flight requests finish (up to SHUTDOWN_TIMEOUT_MS), storage is
closed, exit 0.`;

function version(): string {
  const manifest = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { version: string };
  return manifest.version;
}

export async function signetMain(argv: string[] = process.argv.slice(2)): Promise<void> {
  // oidc-provider's own line about Node 20 would land in every command's output: the provider
  // says it once in its log instead (runtime/node-support.ts).
  holdBackRuntimeWarning();
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    console.log(USAGE);
    process.exit(command === undefined ? 64 : 0);
  }
  if (command === '--version' || command === '-v') {
    console.log(version());
    process.exit(0);
  }
  if (command === 'provider') {
    if (rest.includes('--help') || rest.includes('-h')) {
      console.log(PROVIDER_USAGE);
      process.exit(0);
    }
    const { runProvider } = await import('./server.ts');
    await runProvider();
    return;
  }
  const { cliMain } = await import('./cli.ts');
  cliMain(argv);
}

if (import.meta.url === `file://${process.argv[1]}`) await signetMain();
