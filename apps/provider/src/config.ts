/**
 * Every setting of the provider, read from the environment and validated here, once, at
 * start. A bad value throws a SettingsError naming the variable; nothing else in the provider
 * reads `process.env`.
 */
import { readFileSync } from 'node:fs';
import {
  bool,
  chainIds,
  type Env,
  httpUrl,
  int,
  isPlaceholderSecret,
  listOf,
  oneOf,
  optionalBool,
  RPC_SETTING_NAMES,
  readRpcUrls,
  readSettings,
  readSignatureVerifiers,
  rpcSettings,
  type SettingEntry,
  SettingsError,
  secret,
  setting,
  settingEntries,
  signatureVerifiersSetting,
  text,
} from '@signet/settings';
import { BITCOIN_NETWORKS, type BitcoinNetwork } from '@signet/siwb/message';
import { SOLANA_NETWORKS, type SolanaNetwork } from '@signet/siws/message';
import { z } from 'zod';
import { type PostgresTarget, PostgresUrlError, parsePostgresUrl } from './storage/postgres/postgres-url.ts';
import { parseRedisUrl, type RedisTarget, RedisUrlError } from './storage/redis/redis-url.ts';

/** Where audit events go (AUDIT_LOG): observability/audit.ts writes them. */
export type AuditDestination = 'off' | 'stdout' | 'stderr' | { file: string };

/** How log lines are written (LOG_FORMAT after `auto` is resolved): observability/logger.ts. */
export type LogFormat = 'json' | 'pretty';

/**
 * LOG_FORMAT=auto: readable, coloured lines when stdout is a terminal outside production (a
 * developer watching), JSON otherwise (a process manager or log collector reading).
 */
export function resolveLogFormat(
  setting: 'auto' | LogFormat,
  isTerminal = process.stdout.isTTY === true,
  nodeEnv = process.env.NODE_ENV,
): LogFormat {
  if (setting !== 'auto') return setting;
  return isTerminal && nodeEnv !== 'production' ? 'pretty' : 'json';
}

export type Profile = 'self-hosted' | 'hosted';

const optionalText = text();

function parseHttpUrl(value: string): URL | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

const otlpProtocol = optionalText.transform((value, ctx) => {
  if (value === undefined || value === 'http/protobuf' || value === 'http/json') return value;
  ctx.addIssue({ code: 'custom', message: 'must be http/protobuf or http/json (grpc is not shipped)' });
  return z.NEVER;
});

/**
 * The resources (RFC 8707) tokens may be asked for: `any` (`*`: any https URL, and http on a
 * loopback host), exact URLs, and prefixes ending in `/`. Matching is in relying-party/resources.ts.
 */
export type ResourcePolicy = { any: boolean; exact: string[]; prefixes: string[] };
const ANY_RESOURCE: ResourcePolicy = { any: true, exact: [], prefixes: [] };
const NO_RESOURCE: ResourcePolicy = { any: false, exact: [], prefixes: [] };

/** RESOURCE_INDICATORS as a policy, or why it is not one. */
function parseResourcePolicy(value: string): ResourcePolicy | string {
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  if (items.length === 1 && items[0] === 'none') return NO_RESOURCE;
  const policy: ResourcePolicy = { any: false, exact: [], prefixes: [] };
  for (const item of items) {
    if (item === '*') {
      policy.any = true;
      continue;
    }
    const url = parseHttpUrl(item);
    if (!url || item.includes('#') || url.username || url.password) {
      return `${JSON.stringify(item)} is not an absolute http(s) URL without a fragment or credentials (or *, or none alone)`;
    }
    (item.endsWith('/') ? policy.prefixes : policy.exact).push(item);
  }
  return policy;
}

/** The headings settings are listed under (docs/configuration.md, .env.example), in order. */
const LISTEN = 'Where it listens and who it is';
const STORAGE = 'Storage';
const CHAINS = 'Chains: contract wallets and ENS';
const SOLANA = 'Sign in with Solana';
const BITCOIN = 'Sign in with Bitcoin';
const CLIENTS = 'Clients and sign-in';
const RATE = 'Rate limits';
const RP = 'Relying parties';
const LEGAL = 'Legal texts';
const OPS = 'Operations';
const OTEL = 'Traces (OpenTelemetry)';
export const SETTING_GROUPS = [LISTEN, STORAGE, CHAINS, SOLANA, BITCOIN, CLIENTS, RATE, RP, LEGAL, OPS, OTEL];

const schema = {
  PORT: setting(int(1, 65535, 3000), { group: LISTEN, default: '`3000`', description: 'listen port' }),
  HOST: setting(
    text().transform((v) => v ?? '0.0.0.0'),
    { group: LISTEN, default: '`0.0.0.0`', description: 'listen address' },
  ),
  ISSUER: setting(
    optionalText.transform((value, ctx) => {
      const url = parseHttpUrl(value ?? 'http://localhost:3000');
      if (!url || url.search || url.hash || url.username || url.password || url.pathname !== '/') {
        ctx.addIssue({
          code: 'custom',
          message: 'must be an http(s) origin such as https://login.example.com (no path, query or credentials)',
        });
        return z.NEVER;
      }
      return url;
    }),
    {
      group: LISTEN,
      default: '`http://localhost:3000`',
      description:
        'public origin (no path); issuer, endpoint URLs and the SIWE domain (host[:port]) and URI (origin) derive from it',
      example: 'https://id.example.com',
      env: { value: 'http://localhost:3000', set: true },
    },
  ),
  PROFILE: setting(oneOf<Profile>(['self-hosted', 'hosted'], 'self-hosted'), {
    group: LISTEN,
    default: '`self-hosted`',
    description: '`self-hosted` (short paths) or `hosted` (long paths, secrets at registration)',
  }),
  STORAGE_URL: setting(
    optionalText.transform((value, ctx) => {
      const raw = value ?? 'sqlite:./data/signet.db';
      if (raw === 'memory:') return { kind: 'memory' as const };
      if (raw.startsWith('sqlite:')) {
        const path = raw.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
        if (path === '') {
          ctx.addIssue({ code: 'custom', message: 'sqlite: needs a file path, e.g. sqlite:./data/signet.db' });
          return z.NEVER;
        }
        return { kind: 'sqlite' as const, path };
      }
      if (/^rediss?(\+(sentinel|cluster))?:\/\//.test(raw)) {
        try {
          return { kind: 'redis' as const, url: raw, redis: parseRedisUrl(raw) };
        } catch (error) {
          if (!(error instanceof RedisUrlError)) throw error;
          ctx.addIssue({ code: 'custom', message: error.message });
          return z.NEVER;
        }
      }
      if (/^postgres(ql)?:\/\//.test(raw)) {
        try {
          return { kind: 'postgres' as const, url: raw, postgres: parsePostgresUrl(raw) };
        } catch (error) {
          if (!(error instanceof PostgresUrlError)) throw error;
          ctx.addIssue({ code: 'custom', message: error.message });
          return z.NEVER;
        }
      }
      ctx.addIssue({
        code: 'custom',
        message:
          'must be sqlite:<path>, redis://…, rediss://…, redis+sentinel://…, redis+cluster://…, postgres://… (postgresql://…) or memory:',
      });
      return z.NEVER;
    }),
    {
      group: STORAGE,
      default: '`sqlite:./data/signet.db`',
      description:
        '`sqlite:<path>` (one file, created on first start), `postgres://[user[:password]@]host[:port]/database[?sslmode=…&schema=…]` or `postgresql://…` (PostgreSQL: the provider creates and migrates its schema; replicas share it), `redis://…` / `rediss://…` (one Redis, shared by replicas), `redis+sentinel://[user:password@]host:port[,host:port…]/<primary name>` (a Sentinel group; sentinels with their own credentials: `?sentinel_username=…&sentinel_password=…`), `redis+cluster://[user:password@]host:port[,host:port…]` (a Redis Cluster; `rediss+sentinel://`, `rediss+cluster://` for TLS; see [Operating Signet](operating.md#redis-that-survives-a-node)), or `memory:` (tests only; warns at start; expired entries swept every minute)',
      example: 'postgres://signet:<password>@db.internal:5432/signet?sslmode=verify-full',
      env: {
        value: 'sqlite:./data/signet.db',
        note: [
          'sqlite:<path> (one machine), postgres://… or redis://… (replicas share it), memory: (tests only)',
          'PostgreSQL:     postgres://user:password@host:5432/database?sslmode=verify-full&schema=signet',
          'Redis Sentinel: redis+sentinel://host:26379,host:26379,host:26379/<primary name>',
          'Redis Cluster:  redis+cluster://host:6379,host:6379,host:6379   (rediss+… for TLS)',
        ],
      },
    },
  ),
  STORAGE_PREFIX: setting(
    optionalText.transform((v) => v ?? 'signet:'),
    { group: STORAGE, default: '`signet:`', description: 'key prefix in Redis, so several deployments can share one' },
  ),
  // PostgreSQL: connections each process keeps open (its pool), and the bound on each statement
  // (the server's statement_timeout; waiting for a free connection is bounded by it too).
  STORAGE_POOL_SIZE: setting(int(1, 1000, 10), {
    group: STORAGE,
    default: '`10`',
    description:
      "PostgreSQL: connections each provider process keeps open at most. Replicas × pool size must stay below the server's `max_connections` (less what else connects)",
  }),
  STORAGE_STATEMENT_TIMEOUT_MS: setting(int(100, 600_000, 5000), {
    group: STORAGE,
    default: '`5000`',
    description:
      "PostgreSQL: the server's `statement_timeout` on each connection; the provider also stops waiting for an answer a second later (a frozen server or network), and for a free pooled connection after this long. A request that meets any of them answers 503",
  }),
  STORAGE_ALLOW_EVICTION: setting(bool(), {
    group: STORAGE,
    default: '`false`',
    description:
      'start on a Redis whose `maxmemory-policy` is not `noeviction` (a shared cache), with a warning instead of refusing: such a Redis may delete sessions, clients and the markers that make each code usable once',
  }),
  CHAIN_IDS: setting(chainIds(), {
    group: CHAINS,
    default: '`1` and every chain of `RPC_URLS`',
    description: 'chains a user may sign in with (`chainIds` in the interaction details)',
    example: '1,10,8453',
  }),
  RPC_TIMEOUT_MS: setting(int(100, 60_000, 5000), {
    group: CHAINS,
    default: '`5000`',
    description: "bound on each contract-wallet RPC call (one retry), and on a gated client's holdings check",
  }),
  ACCESS_CACHE_SECONDS: setting(int(0, 3600, 60), {
    group: CHAINS,
    default: '`60`',
    description:
      'how long a met [access condition](relying-parties.md#gate-a-client-only-holders-may-sign-in) is remembered per account and client, in each process (`0`: check every sign-in and refresh)',
  }),
  ENS_RPC_URL: setting(httpUrl(), {
    group: CHAINS,
    default: '`ETH_RPC_URL`',
    description: 'where ENS names and avatars are resolved (no ENS when neither is set)',
    example: 'https://eth.example/v2/<key>',
  }),
  ENS_UNIVERSAL_RESOLVER: setting(
    optionalText.transform((value, ctx) => {
      if (value === undefined) return undefined;
      if (!/^0x[0-9a-fA-F]{40}$/.test(value)) {
        ctx.addIssue({ code: 'custom', message: 'must be a 0x-prefixed contract address' });
        return z.NEVER;
      }
      return value as `0x${string}`;
    }),
    {
      group: CHAINS,
      default: "viem's mainnet address",
      description: 'ENS Universal Resolver contract, for networks other than mainnet',
    },
  ),
  ENS_CACHE_TTL: setting(int(0, 7 * 24 * 3600, 3600), {
    group: CHAINS,
    default: '`3600`',
    description: 'seconds an ENS lookup is cached (in storage, shared by replicas), per address and chain signed on',
  }),
  ENS_TIMEOUT_MS: setting(int(100, 60_000, 2000), {
    group: CHAINS,
    default: '`2000`',
    description:
      'one budget for a whole name lookup (every source, forward check, CCIP-read gateway call and record): a lookup slower than this is abandoned and the address is used',
  }),
  ENS_CCIP_READ: setting(bool(true), {
    group: CHAINS,
    default: '`true`',
    description:
      'follow CCIP-read (EIP-3668) gateways for off-chain and L2 names, within the [limits on gateways](relying-parties.md#ens-names); `false`: a sign-in gets what on-chain resolution gives, and names that need a gateway resolve to the address',
  }),
  SOLANA_NETWORKS: setting(listOf(SOLANA_NETWORKS), {
    group: SOLANA,
    default: 'none (off)',
    description:
      'Sign in with Solana: the clusters a user may sign in with, a comma list of `mainnet`, `devnet`, `testnet` (`solanaNetworks` in the interaction details); empty turns Solana off. Ed25519 is checked offline: it needs no RPC node ([Sign in with Solana](wallets.md#sign-in-with-solana))',
  }),
  BITCOIN_NETWORKS: setting(listOf(BITCOIN_NETWORKS), {
    group: BITCOIN,
    default: 'none (off)',
    description:
      'Sign in with Bitcoin: the networks a user may sign in with, a comma list of `mainnet`, `testnet` (testnet3), `testnet4`, `signet` (`bitcoinNetworks` in the interaction details); empty turns Bitcoin off. BIP-322 and BIP-137 signatures are checked offline: it needs no Bitcoin node ([Sign in with Bitcoin](wallets.md#sign-in-with-bitcoin))',
  }),
  CLIENTS_FILE: setting(optionalText, {
    group: CLIENTS,
    default: 'none',
    description:
      'JSON array of pre-registered clients (client metadata with `client_id`, and `client_secret` for confidential clients); each is validated at start',
    example: '/etc/signet/clients.json',
  }),
  REGISTRATION_TOKEN: setting(secret(16, { optional: true }), {
    group: CLIENTS,
    default: 'none (open registration)',
    description: 'when set (16+ characters), `POST /reg` needs `Authorization: Bearer <token>`',
  }),
  COOKIE_KEYS: setting(
    optionalText.transform((value, ctx) => {
      if (value === undefined) return undefined;
      const keys = value.split(',').map((s) => s.trim());
      if (keys.some((k) => k.length < 32)) {
        ctx.addIssue({ code: 'custom', message: 'must be comma-separated secrets of 32+ characters each (newest first)' });
        return z.NEVER;
      }
      if (keys.some(isPlaceholderSecret)) {
        ctx.addIssue({
          code: 'custom',
          message: 'holds an example placeholder; set random secrets (e.g. openssl rand -base64 32)',
        });
        return z.NEVER;
      }
      return keys;
    }),
    {
      group: CLIENTS,
      default: 'generated once, kept in storage',
      description: "comma-separated secrets (32+ characters, newest first) that sign the provider's cookies",
      example: '<32+ random characters>,<the previous key>',
    },
  ),
  SIWE_STATEMENT: setting(
    optionalText.transform((value, ctx) => {
      if (value !== undefined && !/^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;= {}]*$/.test(value)) {
        ctx.addIssue({
          code: 'custom',
          message: "may only use letters, digits, spaces and -._~:/?#[]@!$&'()*+,;= (EIP-4361), plus {client} and {host}",
        });
        return z.NEVER;
      }
      return value;
    }),
    {
      group: CLIENTS,
      default: '`Sign in to {client} with {host}.`',
      description: 'the statement of the message; `{client}` and `{host}` are replaced; EIP-4361 characters only',
    },
  ),
  CLOCK_SKEW_SECONDS: setting(int(0, 600, 60), {
    group: CLIENTS,
    default: '`60`',
    description: "tolerance for a wallet's clock on `issuedAt` / `notBefore`",
  }),
  WALLETCONNECT_PROJECT_ID: setting(optionalText, {
    group: CLIENTS,
    default: 'none',
    description: 'a WalletConnect Cloud project id: the sign-in page then offers WalletConnect (read at run time, no rebuild)',
    example: '<project id from cloud.reown.com>',
  }),
  INTERACTION_BODY_LIMIT: setting(int(1024, 1024 * 1024, 32 * 1024), {
    group: CLIENTS,
    default: '`32768`',
    description: 'bytes accepted at `POST /interaction/<uid>` (413 beyond); the message itself may have 10,000 characters',
  }),
  LOGO_STORAGE_LIMIT: setting(int(0, 2 ** 32, 64 * 1024 * 1024), {
    group: CLIENTS,
    default: '`67108864` (64 MiB)',
    description:
      "bytes of client logos kept in storage, every client's together; a logo beyond it is not stored (the page draws an initial; a `warn` line says so); `0`: no logo is fetched",
  }),
  ACCOUNT_MAX_WALLETS: setting(int(1, 100, 10), {
    group: CLIENTS,
    default: '`10`',
    description:
      'the most wallets one Signet account may hold ([accounts](wallets.md#accounts-one-person-many-wallets)): a link beyond it is refused with 409 `TOO_MANY_WALLETS`',
  }),
  ACCOUNT_MAX_PASSKEYS: setting(int(0, 100, 10), {
    group: CLIENTS,
    default: '`10`',
    description:
      "the most passkeys one Signet account may hold ([passkeys](wallets.md#passkeys-sign-in-when-the-wallet-is-not-at-hand)): one more is refused with 409 `TOO_MANY_PASSKEYS`; `0` turns passkeys off (they are off anyway when the issuer's host is an IP address: WebAuthn needs a domain name)",
  }),
  CLIENT_UNUSED_EXPIRY_DAYS: setting(int(0, 3650, 0), {
    group: CLIENTS,
    default: '`0` (off)',
    description:
      'remove dynamically registered clients that were registered this many days ago and never completed a sign-in (checked at start and every hour; see `signet clients prune`)',
  }),
  RATE_LIMIT_WINDOW_SECONDS: setting(int(1, 3600, 60), {
    group: RATE,
    default: '`60`',
    description: 'window of the rate limits below',
  }),
  RATE_LIMIT_AUTHORIZATION: setting(int(0, 1_000_000, 300), {
    group: RATE,
    default: '`300`',
    description:
      'authorization requests (`GET`/`POST /auth`, hosted `/authorize`, and pushed requests `POST /request`) per client address per window (0 = off): each one creates a sign-in or a pushed request in storage',
  }),
  RATE_LIMIT_INTERACTION: setting(int(0, 1_000_000, 120), {
    group: RATE,
    default: '`120`',
    description: 'sign-in attempts (`POST /interaction/<uid>`) per client address per window (0 = off)',
  }),
  RATE_LIMIT_REGISTRATION: setting(int(0, 1_000_000, 60), {
    group: RATE,
    default: '`60`',
    description:
      'registrations and client management calls (`GET`/`PUT`/`DELETE /reg/<id>`, hosted `/client/<id>`) per client address per window (0 = off)',
  }),
  RATE_LIMIT_TOKEN: setting(int(0, 1_000_000, 600), {
    group: RATE,
    default: '`600`',
    description: 'token requests per client address per window (0 = off)',
  }),
  RATE_LIMIT_DEVICE: setting(int(0, 1_000_000, 10), {
    group: RATE,
    default: '`10`',
    description:
      'user codes entered at `/device` (typed, from a `verification_uri_complete` link, or confirmed) per client address per window (0 = off). Beyond it, and always: 5 wrong codes lock an address out for 15 minutes, and one code may be entered 10 times ([device sign-in](security.md#sign-in-from-another-device))',
  }),
  RATE_LIMIT_FAIL_OPEN: setting(bool(), {
    group: RATE,
    default: '`false`',
    description: 'when the rate-limit counters cannot be reached: refuse with 503 (default) or let requests through',
  }),
  EMAIL_SCOPE: setting(optionalBool(), {
    group: RP,
    default: '`true` on self-hosted, `false` on hosted',
    description:
      'the `email` scope and its claims `email`, `email_verified` (supported and advertised); on hosted, `true` adds them to the published `scopes_supported` / `claims_supported`. A client still receives an address only when it opted in ([email](relying-parties.md#an-email-for-relying-parties-that-need-one))',
  }),
  ADVERTISE_WALLETS_SCOPE: setting(optionalBool(), {
    group: RP,
    default: '`true` on self-hosted, `false` on hosted',
    description:
      'advertise the `wallets` scope and the `wallet`, `wallets` claims of account clients in discovery (`scopes_supported`, `claims_supported`). They work for account clients either way; on hosted, `false` keeps discovery exactly the published table ([accounts](relying-parties.md#accounts-one-subject-for-every-wallet-of-a-person))',
  }),
  CLIENT_ID_METADATA_DOCUMENTS: setting(optionalBool(), {
    group: RP,
    default: '`true` on self-hosted, `false` on hosted',
    description:
      'accept an `https://` URL as `client_id`: the provider fetches that [Client ID Metadata Document](relying-parties.md#clients-that-identify-themselves-by-a-url-client-id-metadata-documents) (how MCP clients such as Claude, ChatGPT and VS Code identify themselves) through its outbound rule (public addresses only unless `ALLOW_PRIVATE_FETCH`, 5 KB, 3 s, no redirects), keeps it as its HTTP caching says (30 s to 24 h) and a refusal as long. Discovery then says `client_id_metadata_document_supported` and lists `none` and `private_key_jwt` in `token_endpoint_auth_methods_supported` (on hosted too, beside the published table)',
  }),
  JWT_BEARER_GRANT: setting(bool(true), {
    group: RP,
    default: '`true`',
    description:
      'the JWT bearer grant (RFC 7523) for [agents](relying-parties.md#agents-sign-in-with-their-own-wallet-key-the-jwt-bearer-grant): a client registered with `urn:ietf:params:oauth:grant-type:jwt-bearer` in `grant_types` gets tokens at the token endpoint for an assertion signed by a wallet key (`ES256K` for an Ethereum key, `EdDSA` for a Solana key), one request, no browser; advertised in `grant_types_supported`. `false`: the grant is unknown (`unsupported_grant_type`) and a client cannot register it',
  }),
  RESOURCE_INDICATORS: setting(
    optionalText.transform((value, ctx) => {
      if (value === undefined) return undefined;
      const policy = parseResourcePolicy(value);
      if (typeof policy === 'string') {
        ctx.addIssue({ code: 'custom', message: policy });
        return z.NEVER;
      }
      return policy;
    }),
    {
      group: RP,
      default: '`*` on self-hosted, `none` on hosted',
      description:
        'which resources a client may ask tokens for with RFC 8707 `resource` ([resource indicators](relying-parties.md#access-tokens-for-an-api-or-an-mcp-server-resource-indicators)): a comma list of exact URLs and prefixes ending in `/`; `*`: any `https://` URL and `http://` on a loopback host; `none`: every `resource` is refused (`invalid_target`). A token asked for a resource is a JWT (RFC 9068, `typ: at+jwt`) whose `aud` is that resource; without `resource`, tokens are as before',
      example: 'https://mcp.example.com/,https://api.example.com/v1',
    },
  ),
  REFRESH_REUSE_GRACE_SECONDS: setting(int(0, 300, 60), {
    group: RP,
    default: '`60`',
    description:
      'how long a rotated refresh token presented again answers the same successor pair (a client that lost the response keeps its session); after it, a reuse ends the whole grant. Revocation, logout and wallet removal end it inside the window too. `0`: every reuse ends the grant ([refresh tokens](relying-parties.md#refresh-tokens-rotation-and-a-lost-response))',
  }),
  LEGAL_PRIVACY_FILE: setting(optionalText, {
    group: LEGAL,
    default: 'built-in text',
    description:
      'the privacy policy served at `/legal/privacy` (advertised as `op_policy_uri`): a `.html` file is used as HTML, any other as plain text',
    example: '/etc/signet/privacy.html',
  }),
  LEGAL_TERMS_FILE: setting(optionalText, {
    group: LEGAL,
    default: 'built-in text',
    description:
      'the terms of use served at `/legal/terms` (advertised as `op_tos_uri`): a `.html` file is used as HTML, any other as plain text',
  }),
  OPERATOR_NAME: setting(optionalText, {
    group: LEGAL,
    default: '`the operator of <host>`',
    description: 'who runs this instance, named in the built-in legal texts',
  }),
  TRUST_PROXY: setting(bool(), {
    group: OPS,
    default: '`false`',
    description:
      'behind one reverse proxy: trust its `X-Forwarded-Proto` (https detection) and take the client address (rate limits) from the last `X-Forwarded-For` entry, the one that proxy appended; never trusted otherwise',
  }),
  ALLOW_PRIVATE_FETCH: setting(bool(), {
    group: OPS,
    default: '`false`',
    description:
      'development only: let the provider fetch client `jwks_uri` / `sector_identifier_uri` documents, logos and CCIP-read gateways from loopback and private addresses (and gateways over `http`), and accept such (or `http`) ENS avatar URLs (all refused by default: SSRF protection, one list of special-use ranges for every outbound request)',
  }),
  METRICS_TOKEN: setting(secret(16, { optional: true }), {
    group: OPS,
    default: 'none (open)',
    description: 'when set (16+ characters), `GET /metrics` needs `Authorization: Bearer <token>`',
  }),
  LOG_LEVEL: setting(oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'), {
    group: OPS,
    default: '`info`',
    description:
      '`fatal`, `error`, `warn`, `info`, `debug`, `trace`, `silent` (JSON logs with pino; secrets and signatures redacted)',
  }),
  LOG_FORMAT: setting(oneOf(['auto', 'json', 'pretty'] as const, 'auto'), {
    group: OPS,
    default: '`auto`',
    description:
      "`json`, `pretty` (readable, coloured lines via pino-pretty), or `auto`: pretty when stdout is a terminal and `NODE_ENV` is not `production`, JSON otherwise. Every request logs one access line: request id (`X-Request-Id`, also sent back; a proxy's own id is kept only with `TRUST_PROXY`), method, route, path without the query string, status, latency in ms, client address. `/health` and `/metrics` log at `debug`. Codes, tokens, client secrets, signatures and cookies never appear",
  }),
  AUDIT_LOG: setting(
    optionalText.transform((value): AuditDestination => {
      const v = value ?? 'off';
      return v === 'off' || v === 'stdout' || v === 'stderr' ? v : { file: v };
    }),
    {
      group: OPS,
      default: '`off`',
      description:
        'where [audit events](operating.md#audit-events) go, as JSON lines: `off`, `stdout`, `stderr`, or a file path (appended to; its directory is created)',
      example: '/var/log/signet/audit.jsonl',
    },
  ),
  SHUTDOWN_TIMEOUT_MS: setting(int(0, 120_000, 10_000), {
    group: OPS,
    default: '`10000`',
    description: 'on SIGTERM, how long in-flight requests may take before connections are closed',
  }),
  SHUTDOWN_DRAIN_MS: setting(int(0, 60_000, 5_000), {
    group: OPS,
    default: '`5000`',
    description:
      'on SIGTERM, how long the provider keeps serving with `/health/ready` answering 503 (so a load balancer stops sending traffic first) before it stops accepting connections; `0`: stop at once',
  }),
  OTEL_TRACES_EXPORTER: setting(
    optionalText.transform((value, ctx) => {
      if (value === undefined) return undefined;
      const exporters = value.split(',').map((v) => v.trim());
      const unknown = exporters.find((v) => !['otlp', 'console', 'none'].includes(v));
      if (unknown !== undefined) {
        ctx.addIssue({ code: 'custom', message: `must be otlp, console or none (comma-separated); ${unknown} is not shipped` });
        return z.NEVER;
      }
      return exporters.includes('none') ? [] : (exporters as ('otlp' | 'console')[]);
    }),
    {
      group: OTEL,
      default: 'none (tracing off)',
      description:
        '`otlp` (and/or `console`, comma-separated) turns [OpenTelemetry traces](operating.md#traces) on; `none` keeps them off. Unset, tracing is on only when an OTLP endpoint below is set',
    },
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: setting(httpUrl(), {
    group: OTEL,
    default: "none (the SDK's `http://localhost:4318` once on)",
    description: 'the collector; setting it turns tracing on (the SDK appends `/v1/traces`)',
    example: 'http://otel-collector:4318',
  }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: setting(httpUrl(), {
    group: OTEL,
    default: 'none',
    description:
      'the collector for traces only, used as given (overrides `OTEL_EXPORTER_OTLP_ENDPOINT`); setting it turns tracing on',
  }),
  OTEL_EXPORTER_OTLP_PROTOCOL: setting(otlpProtocol, {
    group: OTEL,
    default: '`http/protobuf`',
    description: '`http/protobuf` or `http/json` (`grpc` is not shipped and stops the start)',
  }),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: setting(otlpProtocol, {
    group: OTEL,
    default: '`OTEL_EXPORTER_OTLP_PROTOCOL`',
    description: 'the protocol for traces only: `http/protobuf` or `http/json`',
  }),
  OTEL_SERVICE_NAME: setting(optionalText, {
    group: OTEL,
    default: '`signet-provider`',
    description: 'the `service.name` of every span (`OTEL_RESOURCE_ATTRIBUTES` adds more)',
  }),
  // OpenTelemetry: the standard variables, checked here; the SDK reads them (and every other
  // OTEL_* it knows, such as OTEL_EXPORTER_OTLP_HEADERS) itself when tracing is on.
  OTEL_SDK_DISABLED: setting(bool(), {
    group: OTEL,
    default: '`false`',
    description: '`true`: no tracing, whatever the other `OTEL_*` say',
  }),
};

/** Every environment variable the provider reads (docs/configuration.md and .env.example list each one). */
export const SETTING_NAMES: readonly string[] = [...Object.keys(schema), ...RPC_SETTING_NAMES];

/**
 * Every setting with its documentation, by group: what docs/configuration.md and .env.example are
 * made from (npm run docs:settings). The RPC settings are read by @signet/settings (readRpcUrls).
 */
export function settingsReference(): SettingEntry[] {
  const entries = settingEntries({ ...rpcSettings(CHAINS), SIGNATURE_VERIFIERS: signatureVerifiersSetting(CHAINS), ...schema });
  return SETTING_GROUPS.flatMap((group) => entries.filter((entry) => entry.doc.group === group));
}

/** An operator-supplied legal text: HTML (trusted, from the operator's file) or plain text. */
export type LegalText = { format: 'html' | 'text'; content: string };

function readLegalFile(variable: string, path: string | undefined): LegalText | undefined {
  if (path === undefined) return undefined;
  try {
    const content = readFileSync(path, 'utf8');
    return { format: /\.html?$/i.test(path) ? 'html' : 'text', content };
  } catch (error) {
    throw new SettingsError(`${variable}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? error})`);
  }
}

export type Config = {
  port: number;
  host: string;
  /** The public base URL, without trailing slash (the hosted profile's issuer adds one). */
  baseUrl: string;
  /** The `iss` value: baseUrl, or baseUrl + "/" for the hosted profile. */
  issuer: string;
  /** host[:port] of the issuer: the SIWE domain. */
  domain: string;
  /** Origin of the issuer: the SIWE URI's required origin. */
  origin: string;
  profile: Profile;
  /** Redis: `url` as given (it may hold a password: never log it) and the shape it names. */
  storage:
    | { kind: 'memory' }
    | { kind: 'sqlite'; path: string }
    | { kind: 'redis'; url: string; redis: RedisTarget }
    | { kind: 'postgres'; url: string; postgres: PostgresTarget };
  storagePrefix: string;
  /** PostgreSQL: connections in each process's pool (STORAGE_POOL_SIZE). */
  storagePoolSize: number;
  /** PostgreSQL: bound on each statement and on the wait for a pooled connection, ms (STORAGE_STATEMENT_TIMEOUT_MS). */
  storageStatementTimeoutMs: number;
  /** Start (with a warning) on a Redis whose maxmemory-policy may evict keys: a shared cache the operator accepts. */
  storageAllowEviction: boolean;
  rpcUrls: Record<number, string>;
  /** SIGNATURE_VERIFIERS: a deployed ERC-6492 verifier per chain (zkSync Era and Abstract built in). */
  signatureVerifiers: Record<number, `0x${string}`>;
  rpcTimeoutMs: number;
  /** How long a met access condition is remembered per account and client (s; 0 = always ask). */
  accessCacheSeconds: number;
  ens: {
    rpcUrl?: string;
    universalResolver?: `0x${string}`;
    cacheTtlSeconds: number;
    timeoutMs: number;
    /** Follow EIP-3668 offchain lookups (CCIP-read gateways) for off-chain and L2 names. */
    ccipRead: boolean;
  };
  chainIds: number[];
  /** SOLANA_NETWORKS: the Solana clusters a user may sign in with (Sign In With Solana); empty = off. */
  solanaNetworks: SolanaNetwork[];
  /** BITCOIN_NETWORKS: the Bitcoin networks a user may sign in with (Sign in with Bitcoin); empty = off. */
  bitcoinNetworks: BitcoinNetwork[];
  clockSkewSeconds: number;
  clientsFile?: string;
  staticClients: Record<string, unknown>[];
  cookieKeys?: string[];
  trustProxy: boolean;
  /** Let oidc-provider fetch client jwks_uri / sector_identifier_uri on private and loopback addresses. */
  allowPrivateFetch: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** json, or pretty (LOG_FORMAT=auto: pretty on a terminal outside production). */
  logFormat: LogFormat;
  interactionBodyLimit: number;
  statement?: string;
  registrationToken?: string;
  shutdownTimeoutMs: number;
  /** On SIGTERM, how long readiness answers 503 while requests are still served, before closing. */
  shutdownDrainMs: number;
  /** Where audit events go (AUDIT_LOG): off, stdout, stderr or a file. */
  auditLog: AuditDestination;
  /**
   * OpenTelemetry traces: off unless OTEL_TRACES_EXPORTER names an exporter or an OTLP endpoint
   * is set (and OTEL_SDK_DISABLED is not true). The SDK reads the endpoint, headers and the rest.
   */
  tracing: TracingSettings;
  /** When set, GET /metrics needs `Authorization: Bearer <token>`. */
  metricsToken?: string;
  /** WalletConnect Cloud project id: when set, the page offers WalletConnect (read at run time). */
  walletConnectProjectId?: string;
  /** Texts of /legal/privacy and /legal/terms (read at start), and who operates this instance. */
  legal: { privacy?: LegalText; terms?: LegalText; operator: string };
  /** The `email` scope and claims (EMAIL_SCOPE; default: on for self-hosted, off for hosted). */
  emailScope: boolean;
  /** The `wallets` scope and the `wallet`, `wallets` claims in discovery (ADVERTISE_WALLETS_SCOPE; default: on for self-hosted, off for hosted). */
  advertiseWalletsScope: boolean;
  /** CLIENT_ID_METADATA_DOCUMENTS: an https URL as client_id names its metadata document (default: on for self-hosted, off for hosted). */
  clientIdMetadataDocuments: boolean;
  /** JWT_BEARER_GRANT: agents' RFC 7523 assertions signed by their wallet key at the token endpoint (agents/; default on). */
  jwtBearerGrant: boolean;
  /** RESOURCE_INDICATORS: the resources (RFC 8707) tokens may be asked for (default: any on self-hosted, none on hosted). */
  resourceIndicators: ResourcePolicy;
  /** REFRESH_REUSE_GRACE_SECONDS: a rotated refresh token presented again within it answers the same successor pair (0 = never). */
  refreshReuseGraceSeconds: number;
  /** Requests per client address per window (0 = no limit). */
  rateLimits: {
    windowSeconds: number;
    authorization: number;
    interaction: number;
    registration: number;
    token: number;
    /** User codes entered at /device per address per window (device/entry.ts). */
    device: number;
    failOpen: boolean;
  };
  /** Bytes of client logos kept in storage, all clients together (0 = no logos are fetched). */
  logoStorageLimit: number;
  /** Days after which a dynamically registered client that never completed a sign-in is removed (0 = never). */
  clientUnusedExpiryDays: number;
  /** ACCOUNT_MAX_WALLETS: the most wallets one account may hold. */
  accountMaxWallets: number;
  /** ACCOUNT_MAX_PASSKEYS: the most passkeys one account may hold (0: passkeys off). */
  accountMaxPasskeys: number;
};

function readClientsFile(path: string): Record<string, unknown>[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new SettingsError(`CLIENTS_FILE: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? error})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new SettingsError(`CLIENTS_FILE: ${path} is not valid JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(parsed)) throw new SettingsError(`CLIENTS_FILE: ${path} must hold a JSON array of client metadata objects`);
  parsed.forEach((entry, index) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw new SettingsError(`CLIENTS_FILE: entry ${index} must be an object`);
    }
    if (typeof (entry as { client_id?: unknown }).client_id !== 'string') {
      throw new SettingsError(`CLIENTS_FILE: entry ${index} has no client_id`);
    }
  });
  const ids = parsed.map((entry) => (entry as { client_id: string }).client_id);
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (duplicate) throw new SettingsError(`CLIENTS_FILE: client_id ${duplicate} appears twice`);
  return parsed as Record<string, unknown>[];
}

export type TracingSettings =
  | { enabled: false }
  | { enabled: true; exporters: ('otlp' | 'console')[]; protocol: 'http/protobuf' | 'http/json'; serviceName: string };

function tracingSettings(s: {
  OTEL_SDK_DISABLED: boolean;
  OTEL_TRACES_EXPORTER: ('otlp' | 'console')[] | undefined;
  OTEL_EXPORTER_OTLP_ENDPOINT: string | undefined;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: string | undefined;
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' | 'http/json' | undefined;
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' | 'http/json' | undefined;
  OTEL_SERVICE_NAME: string | undefined;
}): TracingSettings {
  const endpoint = s.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? s.OTEL_EXPORTER_OTLP_ENDPOINT;
  const exporters = s.OTEL_TRACES_EXPORTER ?? (endpoint ? ['otlp' as const] : []);
  if (s.OTEL_SDK_DISABLED || exporters.length === 0) return { enabled: false };
  return {
    enabled: true,
    exporters,
    protocol: s.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? s.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf',
    serviceName: s.OTEL_SERVICE_NAME ?? 'signet-provider',
  };
}

/** Reads and validates the settings; throws SettingsError naming the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const s = readSettings(schema, env);
  const rpcUrls = readRpcUrls(env);

  const base = s.ISSUER.href.replace(/\/+$/, '');
  const allowedChains = s.CHAIN_IDS ?? [...new Set([1, ...Object.keys(rpcUrls).map(Number)])];
  return {
    port: s.PORT,
    host: s.HOST,
    baseUrl: base,
    issuer: s.PROFILE === 'hosted' ? `${base}/` : base,
    domain: s.ISSUER.host,
    origin: s.ISSUER.origin,
    profile: s.PROFILE,
    storage: s.STORAGE_URL,
    storagePrefix: s.STORAGE_PREFIX,
    storagePoolSize: s.STORAGE_POOL_SIZE,
    storageStatementTimeoutMs: s.STORAGE_STATEMENT_TIMEOUT_MS,
    storageAllowEviction: s.STORAGE_ALLOW_EVICTION,
    rpcUrls,
    signatureVerifiers: readSignatureVerifiers(env, rpcUrls),
    rpcTimeoutMs: s.RPC_TIMEOUT_MS,
    accessCacheSeconds: s.ACCESS_CACHE_SECONDS,
    ens: {
      rpcUrl: s.ENS_RPC_URL ?? rpcUrls[1],
      universalResolver: s.ENS_UNIVERSAL_RESOLVER,
      cacheTtlSeconds: s.ENS_CACHE_TTL,
      timeoutMs: s.ENS_TIMEOUT_MS,
      ccipRead: s.ENS_CCIP_READ,
    },
    chainIds: allowedChains,
    solanaNetworks: s.SOLANA_NETWORKS,
    bitcoinNetworks: s.BITCOIN_NETWORKS,
    clockSkewSeconds: s.CLOCK_SKEW_SECONDS,
    clientsFile: s.CLIENTS_FILE,
    staticClients: s.CLIENTS_FILE ? readClientsFile(s.CLIENTS_FILE) : [],
    cookieKeys: s.COOKIE_KEYS,
    trustProxy: s.TRUST_PROXY,
    allowPrivateFetch: s.ALLOW_PRIVATE_FETCH,
    logLevel: s.LOG_LEVEL,
    logFormat: resolveLogFormat(s.LOG_FORMAT, process.stdout.isTTY === true, env.NODE_ENV),
    interactionBodyLimit: s.INTERACTION_BODY_LIMIT,
    statement: s.SIWE_STATEMENT,
    registrationToken: s.REGISTRATION_TOKEN,
    shutdownTimeoutMs: s.SHUTDOWN_TIMEOUT_MS,
    shutdownDrainMs: s.SHUTDOWN_DRAIN_MS,
    auditLog: s.AUDIT_LOG,
    tracing: tracingSettings(s),
    walletConnectProjectId: s.WALLETCONNECT_PROJECT_ID,
    metricsToken: s.METRICS_TOKEN,
    legal: {
      privacy: readLegalFile('LEGAL_PRIVACY_FILE', s.LEGAL_PRIVACY_FILE),
      terms: readLegalFile('LEGAL_TERMS_FILE', s.LEGAL_TERMS_FILE),
      operator: s.OPERATOR_NAME ?? `the operator of ${s.ISSUER.host}`,
    },
    emailScope: s.EMAIL_SCOPE ?? s.PROFILE === 'self-hosted',
    advertiseWalletsScope: s.ADVERTISE_WALLETS_SCOPE ?? s.PROFILE === 'self-hosted',
    clientIdMetadataDocuments: s.CLIENT_ID_METADATA_DOCUMENTS ?? s.PROFILE === 'self-hosted',
    jwtBearerGrant: s.JWT_BEARER_GRANT,
    resourceIndicators: s.RESOURCE_INDICATORS ?? (s.PROFILE === 'self-hosted' ? ANY_RESOURCE : NO_RESOURCE),
    refreshReuseGraceSeconds: s.REFRESH_REUSE_GRACE_SECONDS,
    rateLimits: {
      windowSeconds: s.RATE_LIMIT_WINDOW_SECONDS,
      authorization: s.RATE_LIMIT_AUTHORIZATION,
      interaction: s.RATE_LIMIT_INTERACTION,
      registration: s.RATE_LIMIT_REGISTRATION,
      token: s.RATE_LIMIT_TOKEN,
      device: s.RATE_LIMIT_DEVICE,
      failOpen: s.RATE_LIMIT_FAIL_OPEN,
    },
    logoStorageLimit: s.LOGO_STORAGE_LIMIT,
    clientUnusedExpiryDays: s.CLIENT_UNUSED_EXPIRY_DAYS,
    accountMaxWallets: s.ACCOUNT_MAX_WALLETS,
    accountMaxPasskeys: s.ACCOUNT_MAX_PASSKEYS,
  };
}
