/** Application B's settings, read and validated once at start. */
import { bool, type Env, int, oneOf, readSettings, SettingsError, text } from '@signet/settings';
import { rpcUrlsFromSettings } from '@signet/siwe';

export { SettingsError };

export type JsonApiConfig = {
  port: number;
  environment: 'development' | 'production' | 'test';
  /** Domains (host:port) a message may name: local development values, plus FRONTEND_DOMAIN. */
  allowedDomains: string[];
  /** Origins allowed by CORS: FRONTEND_DOMAIN's only. */
  frontendOrigins: string[];
  rpcUrls: Record<number, string>;
  redisUrl?: string;
  trustProxy: boolean;
};

/** The local development hosts of the spec's allow-list (not used in production). */
export const LOCAL_DEVELOPMENT_DOMAINS = ['localhost:3000', 'localhost:3003', '127.0.0.1:3000', '127.0.0.1:3003'];

const schema = {
  PORT: int(1, 65535, 3003),
  NODE_ENV: oneOf(['development', 'production', 'test'] as const, 'development'),
  FRONTEND_DOMAIN: text(),
  REDIS_URL: text(),
  TRUST_PROXY: bool(),
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
  let rpcUrls: Record<number, string>;
  try {
    rpcUrls = rpcUrlsFromSettings({ ETH_RPC_URL: env.ETH_RPC_URL, RPC_URLS: env.RPC_URLS });
  } catch (error) {
    throw new SettingsError((error as Error).message.replace(/^(ETH_RPC_URL|RPC_URLS)/, '$1:'));
  }
  const local = s.NODE_ENV === 'production' ? [] : LOCAL_DEVELOPMENT_DOMAINS;
  const allowedDomains = [...new Set([...local, ...(frontendDomain ? [frontendDomain] : [])])];
  if (allowedDomains.length === 0)
    throw new SettingsError('FRONTEND_DOMAIN: is required in production (the only domain messages may name)');
  return {
    port: s.PORT,
    environment: s.NODE_ENV,
    allowedDomains,
    frontendOrigins,
    rpcUrls,
    redisUrl: s.REDIS_URL,
    trustProxy: s.TRUST_PROXY,
  };
}
