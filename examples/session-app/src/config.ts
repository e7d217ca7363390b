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
  SettingsError,
  secret,
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

const schema = {
  PORT: int(1, 65535, 3002),
  HOST: listenHost('127.0.0.1'),
  SESSION_SECRET: secret(32),
  EXPECTED_DOMAIN: text(),
  CHAIN_IDS: chainIds(),
  REDIS_URL: text(),
  NODE_ENV: oneOf(['development', 'production', 'test'] as const, 'development'),
  TRUST_PROXY: bool(),
  RATE_LIMIT_NONCE: int(1, 1_000_000, 60),
  RATE_LIMIT_VERIFY: int(1, 1_000_000, 50),
};

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
