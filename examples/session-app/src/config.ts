/** Application A's settings, read and validated once at start. */
import {
  bool,
  chainIds,
  type Env,
  int,
  listenHost,
  oneOf,
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

export { SettingsError };

export type SessionAppConfig = {
  port: number;
  /** Listen address (HOST): loopback unless set, so a development server is not on the network. */
  host: string;
  sessionSecret: string;
  /**
   * host[:port] messages must name. When EXPECTED_DOMAIN is unset: the request's Host header if
   * it is a loopback host (development), else `localhost:<PORT>`; never another Host value.
   */
  expectedDomain?: string;
  /** Chains a message may name (CHAIN_IDS; default 1 and the chains of RPC_URLS). */
  chainIds: number[];
  /** Keep issued nonces and ended sessions in this Redis (several instances); memory otherwise. */
  redisUrl?: string;
  rpcUrls: Record<number, string>;
  /** SIGNATURE_VERIFIERS: a deployed ERC-6492 verifier per chain (zkSync Era and Abstract built in). */
  signatureVerifiers: Record<number, `0x${string}`>;
  production: boolean;
  trustProxy: boolean;
  /** Requests per client address: nonces per minute, verifications per 15 minutes. */
  rateLimits: { nonce: number; verify: number };
};

const GROUP = 'Application A';

const schema = {
  PORT: setting(int(1, 65535, 3002), { group: GROUP, default: '`3002`', description: 'listen port' }),
  HOST: setting(listenHost('127.0.0.1'), {
    group: GROUP,
    default: '`127.0.0.1`',
    description:
      'listen address: loopback, so an example started on a laptop is not reachable from the network; `0.0.0.0` (or `::`) for every interface, behind a proxy',
  }),
  SESSION_SECRET: setting(secret(32), {
    group: GROUP,
    default: 'required',
    description: '32+ characters; encrypts the session cookie (start is refused otherwise)',
  }),
  EXPECTED_DOMAIN: setting(text(), {
    group: GROUP,
    default: 'a loopback `Host` header, else `localhost:<PORT>` (development only; required in production)',
    description: 'the `host[:port]` messages must name',
  }),
  CHAIN_IDS: setting(chainIds(), {
    group: GROUP,
    default: '`1` and every chain of `RPC_URLS`',
    description: 'chains a message may name (`CHAIN_NOT_ALLOWED` otherwise)',
  }),
  REDIS_URL: setting(text(), {
    group: GROUP,
    default: 'none (memory)',
    description: 'keep issued nonces and ended sessions in Redis, shared by several instances',
  }),
  NODE_ENV: setting(oneOf(['development', 'production', 'test'] as const, 'development'), {
    group: GROUP,
    default: '`development`',
    description: '`production` makes the cookie Secure',
  }),
  TRUST_PROXY: setting(bool(), {
    group: GROUP,
    default: '`false`',
    description: "behind one proxy: the client address is the last `X-Forwarded-For` entry (the proxy's)",
  }),
  RATE_LIMIT_NONCE: setting(int(1, 1_000_000, 60), {
    group: GROUP,
    default: '`60`',
    description: '`GET /api/nonce` per client address per minute',
  }),
  RATE_LIMIT_VERIFY: setting(int(1, 1_000_000, 50), {
    group: GROUP,
    default: '`50`',
    description:
      '`POST /api/verify` per client address per 15 minutes (the spec recommends 5 for a public deployment: set `RATE_LIMIT_VERIFY=5`)',
  }),
};

/** This app's settings with their documentation (npm run docs:settings renders them). */
export const settingsReference = (): SettingEntry[] =>
  settingEntries({ ...schema, ...rpcSettings(GROUP), SIGNATURE_VERIFIERS: signatureVerifiersSetting(GROUP) });

export function loadSessionAppConfig(env: Env = process.env): SessionAppConfig {
  const s = readSettings(schema, env);
  if (s.NODE_ENV === 'production' && !s.EXPECTED_DOMAIN) {
    // The Host header is the client's to set: in production the domain must be configured.
    throw new SettingsError('EXPECTED_DOMAIN: is required in production (the host[:port] messages must name)');
  }
  if (s.EXPECTED_DOMAIN && /[\s/]/.test(s.EXPECTED_DOMAIN)) {
    throw new SettingsError(
      `EXPECTED_DOMAIN: must be host[:port], like app.example.com (got ${JSON.stringify(s.EXPECTED_DOMAIN)})`,
    );
  }
  const rpcUrls = readRpcUrls(env);
  return {
    port: s.PORT,
    host: s.HOST,
    sessionSecret: s.SESSION_SECRET as string,
    expectedDomain: s.EXPECTED_DOMAIN,
    rpcUrls,
    signatureVerifiers: readSignatureVerifiers(env, rpcUrls),
    chainIds: s.CHAIN_IDS ?? [...new Set([1, ...Object.keys(rpcUrls).map(Number)])],
    redisUrl: s.REDIS_URL,
    production: s.NODE_ENV === 'production',
    trustProxy: s.TRUST_PROXY,
    rateLimits: { nonce: s.RATE_LIMIT_NONCE, verify: s.RATE_LIMIT_VERIFY },
  };
}
