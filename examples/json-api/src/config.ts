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
  rpcSettings,
  type SettingEntry,
  SettingsError,
  secret,
  setting,
  settingEntries,
  signatureVerifiersSetting,
  text,
} from '@signet/settings';
import { BITCOIN_NETWORKS, type BitcoinNetwork } from '@signet/siwb';
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
  /** Bitcoin networks a Sign in with Bitcoin message may name (BITCOIN_NETWORKS; empty: none, the default). */
  bitcoinNetworks: BitcoinNetwork[];
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

const GROUP = 'Application B';

const schema = {
  PORT: setting(int(1, 65535, 3003), { group: GROUP, default: '`3003`', description: 'listen port' }),
  HOST: setting(listenHost('127.0.0.1'), {
    group: GROUP,
    default: '`127.0.0.1`',
    description:
      'listen address: loopback, so an example started on a laptop is not reachable from the network; `0.0.0.0` (or `::`) for every interface, behind a proxy',
  }),
  NODE_ENV: setting(oneOf(['development', 'production', 'test'] as const, 'development'), {
    group: GROUP,
    default: '`development`',
    description:
      '`development` (stacks in errors), `production` (no stacks, no stats, allow-list = `FRONTEND_DOMAIN` only), `test`',
  }),
  FRONTEND_DOMAIN: setting(text(), {
    group: GROUP,
    default: 'none (required in production)',
    description: "the front end's `host[:port]` (or origin): added to the domain allow-list, and the only origin CORS allows",
  }),
  REDIS_URL: setting(text(), {
    group: GROUP,
    default: 'none (memory)',
    description: 'keep nonces in Redis, shared by instances',
  }),
  TRUST_PROXY: setting(bool(), {
    group: GROUP,
    default: '`false`',
    description: "behind one proxy: the rate limit's client address is the last `X-Forwarded-For` entry (the proxy's)",
  }),
  CHAIN_IDS: setting(chainIds(), {
    group: GROUP,
    default: '`1` and every chain of `RPC_URLS`',
    description: 'chains a message may name',
  }),
  SOLANA_NETWORKS: setting(listOf(SOLANA_NETWORKS), {
    group: GROUP,
    default: 'none (off)',
    description: 'Solana clusters a Sign In With Solana message may name: `mainnet`, `devnet`, `testnet`',
  }),
  BITCOIN_NETWORKS: setting(listOf(BITCOIN_NETWORKS), {
    group: GROUP,
    default: 'none (off)',
    description:
      "Bitcoin networks a Sign in with Bitcoin message may name: `mainnet`, `testnet` (testnet3), `testnet4`, `signet` (its `Chain ID` is the network's CAIP-2 reference)",
  }),
  TOKEN_SECRET: setting(secret(32, { optional: true }), {
    group: GROUP,
    default: 'generated per process (required in production, 32+ characters)',
    description: 'signs the access tokens',
  }),
};

/** This app's settings with their documentation (npm run docs:settings renders them). */
export const settingsReference = (): SettingEntry[] =>
  settingEntries({ ...schema, ...rpcSettings(GROUP), SIGNATURE_VERIFIERS: signatureVerifiersSetting(GROUP) });

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
    bitcoinNetworks: s.BITCOIN_NETWORKS,
    tokenSecret: s.TOKEN_SECRET ?? randomBytes(32).toString('base64url'),
    frontendOrigins,
    rpcUrls,
    signatureVerifiers: readSignatureVerifiers(env, rpcUrls),
    redisUrl: s.REDIS_URL,
    trustProxy: s.TRUST_PROXY,
  };
}
