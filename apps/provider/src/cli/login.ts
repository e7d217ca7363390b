/**
 * `signet login`: a program (a script, a job, a service, an agent) that holds its own Ethereum or
 * Solana key signs in to a client it is registered as and prints the tokens (login/): one request
 * with the JWT bearer grant, or the interactive path with a redirect URI. Unlike the other
 * commands it is a client of a provider, anywhere: it reads no provider setting and opens no
 * storage. Keys and secrets never come from the command line (other users can read it): a file
 * or an environment variable.
 */
import { readFileSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CommandFailed, formatPairs, type Out, UsageError } from './command.ts';

export const LOGIN_USAGE = `usage: signet login --issuer <url> --client-id <id> [--redirect-uri <uri>] [options]
       signet login --refresh --issuer <url> --client-id <id> [options]

Signs in with a key this program holds and prints the client's tokens. Without --redirect-uri:
one request, the JWT bearer grant (RFC 7523; a client registered with it, e.g. by signet clients
add --agent). With --redirect-uri: as a person signs with a wallet (a fresh signature, the same
checks), through the authorization code flow with PKCE.

  --issuer <url>               the issuer, exactly as discovery names it (https; http only for
                               localhost)
  --client-id <id>             the client this program is registered as
  --redirect-uri <uri>         one of its registered redirect URIs (nothing needs to listen
                               there): the interactive sign-in
  --grant <jwt-bearer|authorization_code>
                               force one way (default: jwt-bearer without --redirect-uri,
                               authorization_code with it)
  --key-file <path>            the key: Ethereum, a private key in hex; with --solana, a 32-byte
                               seed or 64-byte secret key (hex, base58, or solana-keygen's JSON).
                               Without it: the SIGNET_LOGIN_KEY environment variable
  --solana                     sign in with a Solana key
  --chain-id <n>               Ethereum: the chain (default: the provider's first; with the JWT
                               bearer grant, 1)
  --network <cluster>          Solana: mainnet, devnet or testnet (default: the provider's first;
                               with the JWT bearer grant, mainnet)
  --scope <scopes>             default "openid"; add offline_access for a refresh token
  --client-secret-file <path>  a confidential client's secret (or SIGNET_CLIENT_SECRET)
  --refresh                    renew instead: the refresh token from --refresh-token-file <path>
                               or SIGNET_REFRESH_TOKEN; no key needed
  --json                       print JSON
  --allow-readable-files       use a key, secret or token file that group or others may read or
                               write, with a warning; without it such a file is refused (chmod 600)

Prints sub, id_token, access_token, refresh_token (when given), expires_in. A refusal exits 1
with the provider's reason (e.g. ACCESS_CONDITION_NOT_MET, invalid_client, invalid_grant).`;

const OPTIONS = {
  issuer: { type: 'string' },
  'client-id': { type: 'string' },
  'redirect-uri': { type: 'string' },
  grant: { type: 'string' },
  'key-file': { type: 'string' },
  solana: { type: 'boolean', default: false },
  'chain-id': { type: 'string' },
  network: { type: 'string' },
  scope: { type: 'string' },
  'client-secret-file': { type: 'string' },
  refresh: { type: 'boolean', default: false },
  'refresh-token-file': { type: 'string' },
  json: { type: 'boolean', default: false },
  'allow-readable-files': { type: 'boolean', default: false },
} as const;

type SecretFiles = { allowReadable: boolean; warn: (line: string) => void };

/**
 * A file holding a key or a secret must be the owner's alone, as ssh requires of a private key:
 * one that group or others may read (mode 0644, a shared directory, a volume mounted with a
 * default mode) has likely been read already. Refused, or with --allow-readable-files used with a
 * warning. Not checked where the system has no such modes (Windows).
 */
function checkFileMode(file: string, what: string, files: SecretFiles): void {
  if (process.platform === 'win32') return;
  let mode: number;
  try {
    mode = statSync(file).mode;
  } catch {
    return; // reading it says why, below
  }
  if ((mode & 0o077) === 0) return;
  const shown = `0${(mode & 0o777).toString(8)}`;
  const words = `${what} file ${file} is open to group or others (mode ${shown}): run chmod 600 ${file}`;
  if (!files.allowReadable) {
    throw new CommandFailed(`${words}, or pass --allow-readable-files to use it anyway`);
  }
  files.warn(`signet: warning: ${words}; used anyway (--allow-readable-files)`);
}

/** A secret from its file (one line, trailing blanks dropped) or its environment variable. */
function secretFrom(
  file: string | undefined,
  variable: string,
  env: Record<string, string | undefined>,
  what: string,
  files: SecretFiles,
) {
  if (file !== undefined) {
    checkFileMode(file, what, files);
    try {
      return readFileSync(file, 'utf8').trim();
    } catch (error) {
      throw new CommandFailed(`${what}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  const value = env[variable]?.trim();
  return value === '' ? undefined : value;
}

export async function runLogin(
  argv: string[],
  env: Record<string, string | undefined>,
  out: Out,
  warn: Out = (line) => console.error(line),
): Promise<void> {
  let values: { [K in keyof typeof OPTIONS]?: string | boolean };
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError((error as Error).message, LOGIN_USAGE);
  }
  const text = (name: keyof typeof OPTIONS) => values[name] as string | undefined;
  for (const required of ['issuer', 'client-id'] as const) {
    if (!text(required)) throw new UsageError(`login needs --${required}`, LOGIN_USAGE);
  }
  const grant = text('grant');
  if (grant !== undefined && grant !== 'jwt-bearer' && grant !== 'authorization_code') {
    throw new UsageError('--grant must be jwt-bearer or authorization_code', LOGIN_USAGE);
  }
  if (grant === 'authorization_code' && !text('redirect-uri')) {
    throw new UsageError('login --grant authorization_code needs --redirect-uri', LOGIN_USAGE);
  }
  const chainId = text('chain-id') === undefined ? undefined : Number(text('chain-id'));
  if (chainId !== undefined && !(Number.isInteger(chainId) && chainId > 0)) {
    throw new UsageError('--chain-id must be a positive whole number', LOGIN_USAGE);
  }
  const network = text('network');
  if (network !== undefined && !['mainnet', 'devnet', 'testnet'].includes(network)) {
    throw new UsageError('--network must be mainnet, devnet or testnet', LOGIN_USAGE);
  }

  // Loaded here: help and command-line errors answer without loading openid-client or viem.
  const { ethereumKey, login, LoginError, refresh, solanaKey } = await import('../login/index.ts');
  const files: SecretFiles = { allowReadable: values['allow-readable-files'] === true, warn };
  const clientSecret = secretFrom(text('client-secret-file'), 'SIGNET_CLIENT_SECRET', env, 'the client secret', files);
  const client = { issuer: text('issuer') as string, clientId: text('client-id') as string, clientSecret };
  try {
    let result: Awaited<ReturnType<typeof login>>;
    if (values.refresh) {
      const refreshToken = secretFrom(text('refresh-token-file'), 'SIGNET_REFRESH_TOKEN', env, 'the refresh token', files);
      if (!refreshToken) throw new UsageError('login --refresh needs --refresh-token-file or SIGNET_REFRESH_TOKEN', LOGIN_USAGE);
      result = await refresh({ ...client, refreshToken });
    } else {
      const key = secretFrom(text('key-file'), 'SIGNET_LOGIN_KEY', env, 'the key', files);
      if (!key) throw new UsageError('login needs --key-file or SIGNET_LOGIN_KEY', LOGIN_USAGE);
      result = await login({
        ...client,
        redirectUri: text('redirect-uri'),
        grant: grant as 'jwt-bearer' | 'authorization_code' | undefined,
        signer: values.solana ? solanaKey(key) : ethereumKey(key),
        scope: text('scope'),
        chainId,
        solanaNetwork: network as never,
      });
    }
    const printed = { sub: result.sub, ...result.tokens };
    out(
      values.json
        ? JSON.stringify(printed, null, 2)
        : formatPairs([
            ['sub', printed.sub],
            ['id_token', printed.id_token],
            ['access_token', printed.access_token],
            ['refresh_token', printed.refresh_token],
            ['expires_in', printed.expires_in],
            ['scope', printed.scope],
          ]),
    );
  } catch (error) {
    if (error instanceof LoginError) throw new CommandFailed(`login refused: ${error.code}: ${error.message}`);
    throw error;
  }
}
