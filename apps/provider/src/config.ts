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
  SettingsError,
  secret,
  text,
} from '@signet/settings';
import { SOLANA_NETWORKS, type SolanaNetwork } from '@signet/siws/message';
import { z } from 'zod';
import type { AuditDestination } from './observability/audit.ts';
import { type LogFormat, resolveLogFormat } from './observability/logger.ts';
import { type PostgresTarget, PostgresUrlError, parsePostgresUrl } from './storage/postgres-url.ts';
import { parseRedisUrl, type RedisTarget, RedisUrlError } from './storage/redis-url.ts';

export type Profile = 'self-hosted' | 'hosted';

/** A setting that stops the start; the message begins with the variable's name. */

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

const schema = {
  PORT: int(1, 65535, 3000),
  HOST: text().transform((v) => v ?? '0.0.0.0'),
  ISSUER: optionalText.transform((value, ctx) => {
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
  PROFILE: oneOf<Profile>(['self-hosted', 'hosted'], 'self-hosted'),
  STORAGE_URL: optionalText.transform((value, ctx) => {
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
  STORAGE_PREFIX: optionalText.transform((v) => v ?? 'signet:'),
  // PostgreSQL: connections each process keeps open (its pool), and the bound on each statement
  // (the server's statement_timeout; waiting for a free connection is bounded by it too).
  STORAGE_POOL_SIZE: int(1, 1000, 10),
  STORAGE_STATEMENT_TIMEOUT_MS: int(100, 600_000, 5000),
  ENS_RPC_URL: httpUrl(),
  ENS_UNIVERSAL_RESOLVER: optionalText.transform((value, ctx) => {
    if (value === undefined) return undefined;
    if (!/^0x[0-9a-fA-F]{40}$/.test(value)) {
      ctx.addIssue({ code: 'custom', message: 'must be a 0x-prefixed contract address' });
      return z.NEVER;
    }
    return value as `0x${string}`;
  }),
  ENS_CACHE_TTL: int(0, 7 * 24 * 3600, 3600),
  ENS_TIMEOUT_MS: int(100, 60_000, 2000),
  ENS_CCIP_READ: bool(true),
  RPC_TIMEOUT_MS: int(100, 60_000, 5000),
  ACCESS_CACHE_SECONDS: int(0, 3600, 60),
  CHAIN_IDS: chainIds(),
  SOLANA_NETWORKS: listOf(SOLANA_NETWORKS),
  CLOCK_SKEW_SECONDS: int(0, 600, 60),
  CLIENTS_FILE: optionalText,
  COOKIE_KEYS: optionalText.transform((value, ctx) => {
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
  TRUST_PROXY: bool(),
  ALLOW_PRIVATE_FETCH: bool(),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
  LOG_FORMAT: oneOf(['auto', 'json', 'pretty'] as const, 'auto'),
  INTERACTION_BODY_LIMIT: int(1024, 1024 * 1024, 32 * 1024),
  SIWE_STATEMENT: optionalText.transform((value, ctx) => {
    if (value !== undefined && !/^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;= {}]*$/.test(value)) {
      ctx.addIssue({
        code: 'custom',
        message: "may only use letters, digits, spaces and -._~:/?#[]@!$&'()*+,;= (EIP-4361), plus {client} and {host}",
      });
      return z.NEVER;
    }
    return value;
  }),
  REGISTRATION_TOKEN: secret(16, { optional: true }),
  SHUTDOWN_TIMEOUT_MS: int(0, 120_000, 10_000),
  SHUTDOWN_DRAIN_MS: int(0, 60_000, 5_000),
  LEGAL_PRIVACY_FILE: optionalText,
  LEGAL_TERMS_FILE: optionalText,
  OPERATOR_NAME: optionalText,
  WALLETCONNECT_PROJECT_ID: optionalText,
  METRICS_TOKEN: secret(16, { optional: true }),
  RATE_LIMIT_WINDOW_SECONDS: int(1, 3600, 60),
  RATE_LIMIT_AUTHORIZATION: int(0, 1_000_000, 300),
  RATE_LIMIT_INTERACTION: int(0, 1_000_000, 120),
  RATE_LIMIT_REGISTRATION: int(0, 1_000_000, 60),
  RATE_LIMIT_TOKEN: int(0, 1_000_000, 600),
  RATE_LIMIT_FAIL_OPEN: bool(),
  LOGO_STORAGE_LIMIT: int(0, 2 ** 32, 64 * 1024 * 1024),
  CLIENT_UNUSED_EXPIRY_DAYS: int(0, 3650, 0),
  EMAIL_SCOPE: optionalBool(),
  STORAGE_ALLOW_EVICTION: bool(),
  // OpenTelemetry: the standard variables, checked here; the SDK reads them (and every other
  // OTEL_* it knows, such as OTEL_EXPORTER_OTLP_HEADERS) itself when tracing is on.
  OTEL_SDK_DISABLED: bool(),
  OTEL_TRACES_EXPORTER: optionalText.transform((value, ctx) => {
    if (value === undefined) return undefined;
    const exporters = value.split(',').map((v) => v.trim());
    const unknown = exporters.find((v) => !['otlp', 'console', 'none'].includes(v));
    if (unknown !== undefined) {
      ctx.addIssue({ code: 'custom', message: `must be otlp, console or none (comma-separated); ${unknown} is not shipped` });
      return z.NEVER;
    }
    return exporters.includes('none') ? [] : (exporters as ('otlp' | 'console')[]);
  }),
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl(),
  OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol,
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol,
  OTEL_SERVICE_NAME: optionalText,
  AUDIT_LOG: optionalText.transform((value): AuditDestination => {
    const v = value ?? 'off';
    return v === 'off' || v === 'stdout' || v === 'stderr' ? v : { file: v };
  }),
};

/** Every environment variable the provider reads (README and .env.example list each one). */
export const SETTING_NAMES: readonly string[] = [...Object.keys(schema), ...RPC_SETTING_NAMES];

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
  /** Requests per client address per window (0 = no limit). */
  rateLimits: {
    windowSeconds: number;
    authorization: number;
    interaction: number;
    registration: number;
    token: number;
    failOpen: boolean;
  };
  /** Bytes of client logos kept in storage, all clients together (0 = no logos are fetched). */
  logoStorageLimit: number;
  /** Days after which a dynamically registered client that never completed a sign-in is removed (0 = never). */
  clientUnusedExpiryDays: number;
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
    rateLimits: {
      windowSeconds: s.RATE_LIMIT_WINDOW_SECONDS,
      authorization: s.RATE_LIMIT_AUTHORIZATION,
      interaction: s.RATE_LIMIT_INTERACTION,
      registration: s.RATE_LIMIT_REGISTRATION,
      token: s.RATE_LIMIT_TOKEN,
      failOpen: s.RATE_LIMIT_FAIL_OPEN,
    },
    logoStorageLimit: s.LOGO_STORAGE_LIMIT,
    clientUnusedExpiryDays: s.CLIENT_UNUSED_EXPIRY_DAYS,
  };
}
