/**
 * Settings for every Signet app: a zod schema of environment variables, read once at start.
 * A bad value throws a SettingsError whose message starts with the variable's name, so a
 * misconfigured process stops at once and says what to fix.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { setting } from './reference.ts';

export {
  renderEnvExample,
  renderSettingsTables,
  replaceGenerated,
  type SettingDoc,
  type SettingEntry,
  setting,
  settingEntries,
} from './reference.ts';

export class SettingsError extends Error {
  override readonly name: string = 'SettingsError';
}

export type Env = Record<string, string | undefined>;

/** Trimmed text; empty counts as unset. */
export const text = () =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

export const textOr = (fallback: string) => text().transform((v) => v ?? fallback);

export const int = (min: number, max: number, fallback: number) =>
  text().transform((value, ctx) => {
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) {
      ctx.addIssue({ code: 'custom', message: `must be a whole number from ${min} to ${max}` });
      return z.NEVER;
    }
    return n;
  });

function parseBool(value: string, ctx: z.RefinementCtx): boolean {
  const v = value.toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  ctx.addIssue({ code: 'custom', message: 'must be true or false' });
  return z.NEVER;
}

export const bool = (fallback = false) =>
  text().transform((value, ctx) => (value === undefined ? fallback : parseBool(value, ctx)));

/** true or false when set; undefined when not (the caller picks a default that depends on other settings). */
export const optionalBool = () => text().transform((value, ctx) => (value === undefined ? undefined : parseBool(value, ctx)));

export const oneOf = <T extends string>(values: readonly T[], fallback: T) =>
  text().transform((value, ctx) => {
    const v = (value ?? fallback) as T;
    if (!values.includes(v)) {
      ctx.addIssue({ code: 'custom', message: `must be one of ${values.join(', ')}` });
      return z.NEVER;
    }
    return v;
  });

/**
 * A listen address (`HOST`): an IP address (`127.0.0.1`, `0.0.0.0`, `::`) or a host name. The
 * examples default to loopback, so a development server is not reachable from the network.
 */
export const listenHost = (fallback: string) =>
  text().transform((value, ctx) => {
    const v = value ?? fallback;
    if (!isIP(v) && !/^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(v)) {
      ctx.addIssue({ code: 'custom', message: 'must be an IP address (127.0.0.1, 0.0.0.0, ::) or a host name' });
      return z.NEVER;
    }
    return v;
  });

/** An absolute http(s) URL (as a string), optionally with a default. */
export const httpUrl = (fallback?: string) =>
  text().transform((value, ctx) => {
    const v = value ?? fallback;
    if (v === undefined) return undefined;
    try {
      const url = new URL(v);
      if (url.protocol === 'http:' || url.protocol === 'https:') return url.href;
    } catch {
      // reported below
    }
    ctx.addIssue({ code: 'custom', message: 'must be an absolute http(s) URL' });
    return z.NEVER;
  });

/**
 * The words of a value left as an example says it (`change-me-to-16-or-more-characters`,
 * `<your token>`, `replace_with_a_secret`, one character repeated): a template's placeholder that
 * happens to be long enough, which anyone who read the template knows.
 */
const PLACEHOLDER =
  /change[-_ .]?(me|this|it)|replace[-_ .]?(me|this|with)|placeholder|your[-_ .]?(own[-_ .]?)?(secret|token|key|password)|^<.*>$|^(secret|password|token|example)s?$/i;

/** Whether a secret is a template's placeholder rather than a value someone chose. */
export const isPlaceholderSecret = (value: string): boolean => PLACEHOLDER.test(value) || /^(.)\1*$/s.test(value);

/**
 * A secret of at least `minLength` characters; required unless `optional`. A template's
 * placeholder (isPlaceholderSecret) is refused, whatever its length.
 */
export const secret = (minLength: number, { optional = false } = {}) =>
  text().transform((value, ctx) => {
    if (value === undefined) {
      if (optional) return undefined;
      ctx.addIssue({ code: 'custom', message: `is required (a secret of ${minLength}+ characters)` });
      return z.NEVER;
    }
    if (value.length < minLength) {
      ctx.addIssue({ code: 'custom', message: `must be at least ${minLength} characters` });
      return z.NEVER;
    }
    if (isPlaceholderSecret(value)) {
      ctx.addIssue({
        code: 'custom',
        message: 'is still the example placeholder; set a random secret (e.g. openssl rand -base64 32)',
      });
      return z.NEVER;
    }
    return value;
  });

/** Comma-separated list of non-empty items. */
export const list = () =>
  text().transform((value) =>
    value === undefined
      ? []
      : value
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean),
  );

/**
 * A comma-separated list of values from `values` (`mainnet,devnet`), de-duplicated, in the order
 * given; unset or empty is `[]`. Any other value is refused, naming the allowed ones.
 */
export const listOf = <T extends string>(values: readonly T[]) =>
  list().transform((items, ctx) => {
    const unknown = items.find((item) => !(values as readonly string[]).includes(item));
    if (unknown !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `must be a comma-separated list of ${values.join(', ')} (${JSON.stringify(unknown)} is not one)`,
      });
      return z.NEVER;
    }
    return [...new Set(items as T[])];
  });

/** A comma-separated list of EIP-155 chain ids (`1,10,137`), de-duplicated; undefined when unset. */
export const chainIds = () =>
  text().transform((value, ctx) => {
    if (value === undefined) return undefined;
    const ids = value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (ids.length === 0 || !ids.every((id) => /^[1-9][0-9]*$/.test(id) && Number.isSafeInteger(Number(id)))) {
      ctx.addIssue({ code: 'custom', message: 'must be a comma-separated list of chain ids, e.g. 1,10,137' });
      return z.NEVER;
    }
    return [...new Set(ids.map(Number))];
  });

const isHttpUrl = (value: string) => {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
};

/** `RPC_URLS`: comma-separated `<chainId>=<http(s) URL>` entries → `{ chainId: url }` (each chain once). */
export const rpcUrlList = () =>
  text().transform((value, ctx) => {
    const urls: Record<number, string> = {};
    for (const entry of (value ?? '').split(',')) {
      const trimmed = entry.trim();
      if (trimmed === '') continue;
      const separator = trimmed.indexOf('=');
      const chainText = trimmed.slice(0, separator).trim();
      const url = trimmed.slice(separator + 1).trim();
      if (separator === -1 || !/^[1-9][0-9]*$/.test(chainText) || !isHttpUrl(url)) {
        ctx.addIssue({
          code: 'custom',
          message: `entry ${JSON.stringify(redactUrls(trimmed))} must look like <chainId>=<http(s) URL>`,
        });
        return z.NEVER;
      }
      const chainId = Number(chainText);
      if (chainId in urls) {
        ctx.addIssue({ code: 'custom', message: `sets chain ${chainId} again (each chain once)` });
        return z.NEVER;
      }
      urls[chainId] = url;
    }
    return urls;
  });

/** The settings every app reads for its RPC nodes: `ETH_RPC_URL` (chain 1) and `RPC_URLS` (more chains). */
export const RPC_SETTING_NAMES = ['ETH_RPC_URL', 'RPC_URLS', 'SIGNATURE_VERIFIERS'] as const;

/** `ETH_RPC_URL` and `RPC_URLS`, documented; `group` is the heading they are listed under. */
export const rpcSettings = (group: string) => ({
  ETH_RPC_URL: setting(
    text().transform((value, ctx) => {
      if (value !== undefined && !isHttpUrl(value)) {
        ctx.addIssue({ code: 'custom', message: 'must be an http(s) URL' });
        return z.NEVER;
      }
      return value;
    }),
    {
      group,
      default: 'none',
      description:
        'JSON-RPC endpoint of chain 1 (Ethereum mainnet): needed for contract wallets (EIP-1271, EIP-6492, ERC-8010) signed on chain 1, and for ENS names',
      example: 'https://eth.example/v2/<key>',
    },
  ),
  RPC_URLS: setting(rpcUrlList(), {
    group,
    default: 'none',
    description: 'JSON-RPC endpoints of more chains, as `<chainId>=<URL>` entries, comma-separated (each chain once)',
    example: '137=https://polygon.example,10=https://optimism.example',
  }),
});

/** chainId → RPC URL from `ETH_RPC_URL` and `RPC_URLS`; throws SettingsError naming the variable. */
export function readRpcUrls(env: Env): Record<number, string> {
  const s = readSettings(rpcSettings(''), env);
  const urls = { ...s.RPC_URLS };
  if (s.ETH_RPC_URL !== undefined) {
    if (1 in urls) throw new SettingsError('RPC_URLS: sets chain 1 again (ETH_RPC_URL already is chain 1; each chain once)');
    urls[1] = s.ETH_RPC_URL;
  }
  return urls;
}

/**
 * `SIGNATURE_VERIFIERS`: comma-separated `<chainId>=<contract address>` entries → `{ chainId:
 * address }`: a deployed ERC-6492 verifier per chain, for chains where a deployless `eth_call`
 * cannot run (zkSync Era and Abstract have theirs built in). Each chain once, and only chains
 * with an RPC node (`rpcUrls`).
 */
export function readSignatureVerifiers(env: Env, rpcUrls: Readonly<Record<number, string>>): Record<number, `0x${string}`> {
  const s = readSettings(
    {
      SIGNATURE_VERIFIERS: signatureVerifiersSchema(rpcUrls),
    },
    env,
  );
  return s.SIGNATURE_VERIFIERS;
}

/** `SIGNATURE_VERIFIERS`, documented, for a list of settings (its chains are checked against `rpcUrls`). */
export const signatureVerifiersSetting = (group: string, rpcUrls: Readonly<Record<number, string>> = {}) =>
  setting(signatureVerifiersSchema(rpcUrls), {
    group,
    default: "zkSync Era (324), Abstract (2741) and their testnets (300, 11124): viem's addresses",
    description:
      'a deployed ERC-6492 verifier per chain, `<chainId>=<contract address>` entries (added to, and overriding, the built-in ones; each chain needs an RPC node): for chains where a deployless `eth_call` cannot run, so a wallet that is not deployed yet can be checked there',
    example: '324=0x…,2741=0x…',
  });

function signatureVerifiersSchema(rpcUrls: Readonly<Record<number, string>>) {
  return text().transform((value, ctx) => {
    const verifiers: Record<number, `0x${string}`> = {};
    for (const entry of (value ?? '').split(',')) {
      const trimmed = entry.trim();
      if (trimmed === '') continue;
      const match = /^([1-9][0-9]*)\s*=\s*(0x[0-9a-fA-F]{40})$/.exec(trimmed);
      if (!match) {
        ctx.addIssue({
          code: 'custom',
          message: `entry ${JSON.stringify(trimmed)} must look like <chainId>=<0x contract address>`,
        });
        return z.NEVER;
      }
      const chainId = Number(match[1]);
      if (chainId in verifiers) {
        ctx.addIssue({ code: 'custom', message: `sets chain ${chainId} again (each chain once)` });
        return z.NEVER;
      }
      if (!(chainId in rpcUrls)) {
        ctx.addIssue({ code: 'custom', message: `chain ${chainId} has no RPC node (ETH_RPC_URL / RPC_URLS)` });
        return z.NEVER;
      }
      verifiers[chainId] = match[2] as `0x${string}`;
    }
    return verifiers;
  });
}

/**
 * The start of every Signet server: reads its settings (a SettingsError prints
 * `<name>: invalid setting: <message>` and exits 78, EX_CONFIG), starts it, and on SIGTERM or
 * SIGINT stops it and exits 0.
 */
export async function runServer<C>(
  name: string,
  load: () => C,
  start: (config: C) => Promise<{ stop(): Promise<void> | void }> | { stop(): Promise<void> | void },
): Promise<void> {
  let config: C;
  try {
    config = load();
  } catch (error) {
    if (error instanceof SettingsError) {
      console.error(`${name}: invalid setting: ${error.message}`);
      process.exit(78);
    }
    throw error;
  }
  const running = await start(config);
  const stop = () => {
    Promise.resolve(running.stop()).then(
      () => process.exit(0),
      (error) => {
        console.error(`${name}: could not stop cleanly: ${(error as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/** A URL in a setting: its scheme, then everything up to a space, a comma, a quote or a bracket. */
const URL_IN_TEXT = /([a-z][a-z0-9+.-]*):\/\/([^\s,"'()<>]*)/gi;

/**
 * `text` with every URL in it cut to its scheme and host (and port): `redis://h:6379`, never the
 * user, password, path or query, where API keys and passwords live (`https://rpc.example/v2/<key>`,
 * `?sentinel_password=…`). The host is what follows the last `@`, so a password holding `/`, `?`
 * or `#` is cut too; a URL whose host cannot be told becomes `scheme://…`.
 */
export function redactUrls(text: string, only?: (url: string) => boolean): string {
  return text.replace(URL_IN_TEXT, (match, scheme: string, rest: string) => {
    if (only && !only(match)) return match;
    const afterUser = rest.slice(rest.lastIndexOf('@') + 1);
    const host = /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(:\d{1,5})?(?=$|[/?#])/i.exec(afterUser)?.[0];
    return `${scheme}://${host ?? '…'}`;
  });
}

/** Parses `env` with the schema; throws SettingsError naming the first bad variable. */
export function readSettings<S extends z.ZodRawShape>(shape: S, env: Env): z.output<z.ZodObject<S>> {
  const result = z.object(shape).safeParse(env);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const variable = String(issue?.path[0] ?? 'settings');
  const got = env[variable];
  // Never echo a secret: not a secret setting's value, and of a URL only its scheme and host, in
  // the value and where the message quotes it (the message's own examples stay as written).
  const secret = /SECRET|KEY|TOKEN|PASSWORD/i.test(variable);
  const shown = got === undefined || secret ? '' : ` (got ${JSON.stringify(redactUrls(got))})`;
  const message = redactUrls(issue?.message ?? 'invalid', (url) => got?.includes(url) === true);
  throw new SettingsError(`${variable}: ${message}${shown}`);
}
