/** Application B's settings, read and validated once at start. */
import { randomBytes } from 'node:crypto';
import {
  bool,
  chainIds,
  type Env,
  int,
  listenHost,
  listOf,
  oneOf,
  readRpcUrls,
  readSettings,
  readSignatureVerifiers,
  SettingsError,
  secret,
  text,
} from '@signet/settings';
import { SOLANA_NETWORKS, type SolanaNetwork } from '@signet/siws';

export { SettingsError };

export type JsonApiConfig = {
  port: number;
  /** Listen address (HOST): loopback unless set, so a development server is not on the network. */
  host: string;
  environment: 'development' | 'production' | 'test';
  /** Domains (host:port) a message may name: local development values, plus FRONTEND_DOMAIN. */
  allowedDomains: string[];
  /** Origins allowed by CORS: FRONTEND_DOMAIN's only. */
  frontendOrigins: string[];
  rpcUrls: Record<number, string>;
  /** SIGNATURE_VERIFIERS: a deployed ERC-6492 verifier per chain (zkSync Era and Abstract built in). */
  signatureVerifiers: Record<number, `0x${string}`>;
  /** Chains a message may name (CHAIN_IDS; default 1 and the chains of RPC_URLS). */
  chainIds: number[];
  /** Solana clusters a Sign In With Solana message may name (SOLANA_NETWORKS; empty: none, the default). */
  solanaNetworks: SolanaNetwork[];
  /** Signs the access tokens /auth/verify returns (TOKEN_SECRET; generated per process outside production). */
  tokenSecret: string;
  redisUrl?: string;
  trustProxy: boolean;
};

/**
 * The local development hosts of the allow-list (not used in production): this API's own
 * host:port on loopback. Not the provider's (localhost:3000): a message signed for the
 * identity provider must never sign anyone in here.
 */
export const localDevelopmentDomains = (port: number) => [`localhost:${port}`, `127.0.0.1:${port}`];

const schema = {
  PORT: int(1, 65535, 3003),
  HOST: listenHost('127.0.0.1'),
  NODE_ENV: oneOf(['development', 'production', 'test'] as const, 'development'),
  FRONTEND_DOMAIN: text(),
  REDIS_URL: text(),
  TRUST_PROXY: bool(),
  CHAIN_IDS: chainIds(),
  SOLANA_NETWORKS: listOf(SOLANA_NETWORKS),
  TOKEN_SECRET: secret(32, { optional: true }),
};

export function loadJsonApiConfig(env: Env = process.env): JsonApiConfig {
  const s = readSettings(schema, env);
  let frontendDomain: string | undefined;
  let frontendOrigins: string[] = [];
  if (s.FRONTEND_DOMAIN) {
    // A host[:port] (https is assumed for the CORS origin) or a full origin.
    const withScheme = /^https?:\/\//.test(s.FRONTEND_DOMAIN) ? s.FRONTEND_DOMAIN : `https://${s.FRONTEND_DOMAIN}`;
    let url: URL;
    try {
      url = new URL(withScheme);
    } catch {
      throw new SettingsError(`FRONTEND_DOMAIN: must be a host[:port] or an origin (got ${JSON.stringify(s.FRONTEND_DOMAIN)})`);
    }
    if (url.pathname !== '/' || url.search || url.hash) {
      throw new SettingsError(
        `FRONTEND_DOMAIN: must be a host[:port] or an origin, without a path (got ${JSON.stringify(s.FRONTEND_DOMAIN)})`,
      );
    }
    frontendDomain = url.host;
    frontendOrigins = /^https?:\/\//.test(s.FRONTEND_DOMAIN) ? [url.origin] : [`https://${url.host}`, `http://${url.host}`];
  }
  if (s.REDIS_URL && !/^rediss?:\/\//.test(s.REDIS_URL))
    throw new SettingsError('REDIS_URL: must be a redis:// or rediss:// URL');
  const rpcUrls = readRpcUrls(env);
  const local = s.NODE_ENV === 'production' ? [] : localDevelopmentDomains(s.PORT);
  const allowedDomains = [...new Set([...local, ...(frontendDomain ? [frontendDomain] : [])])];
  if (allowedDomains.length === 0)
    throw new SettingsError('FRONTEND_DOMAIN: is required in production (the only domain messages may name)');
  if (s.NODE_ENV === 'production' && !s.TOKEN_SECRET) {
    throw new SettingsError('TOKEN_SECRET: is required in production (32+ characters; it signs the access tokens)');
  }
  return {
    port: s.PORT,
    host: s.HOST,
    environment: s.NODE_ENV,
    allowedDomains,
    chainIds: s.CHAIN_IDS ?? [...new Set([1, ...Object.keys(rpcUrls).map(Number)])],
    solanaNetworks: s.SOLANA_NETWORKS,
    tokenSecret: s.TOKEN_SECRET ?? randomBytes(32).toString('base64url'),
    frontendOrigins,
    rpcUrls,
    signatureVerifiers: readSignatureVerifiers(env, rpcUrls),
    redisUrl: s.REDIS_URL,
    trustProxy: s.TRUST_PROXY,
  };
}
