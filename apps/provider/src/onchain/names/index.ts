/**
 * The ENS name, avatar and e-mail of a signer, resolved with viem on ENS_RPC_URL once per
 * sign-in and cached in storage (shared by replicas) for ENS_CACHE_TTL seconds, per address,
 * chain and kind of account (primary.ts: the name depends on the chain signed on, and contract
 * wallets never fall back to the mainnet name).
 *
 * One ENS_TIMEOUT_MS budget covers the whole lookup: every source, forward check, gateway call
 * (gateways.ts) and record. A slow or dead node, or a misbehaving gateway, never blocks or
 * fails a sign-in: the address is used. Reads that do not depend on each other go out together
 * in one JSON-RPC batch (the sources of the name; then the avatar and e-mail records), so an
 * uncached on-chain name costs two round trips to the node.
 *
 * Whoever owns a name chooses its records, so nothing here fetches a URL they chose, except
 * CCIP-read gateways through outbound.ts's rules: the avatar record is read with getEnsText
 * (not getEnsAvatar, which requests the URL and NFT metadata with the global fetch), and
 * becomes the `picture` claim only when it is an https URL on a public address (DNS is
 * consulted, the URL itself is never requested). NFT avatars (eip155:…/erc721:…), ipfs:// and
 * data: URLs are not used. The e-mail record is kept only when it looks like one address.
 */
import { ETH_CALL_GAS_CAP } from '@signet/siwe';
import {
  type Address,
  BaseError,
  createPublicClient,
  defineChain,
  type Hex,
  http,
  type PublicClient,
  type Transport,
  toHex,
} from 'viem';
import type { Logger } from '../../observability/logger.ts';
import { publicUrlProblem } from '../../outbound/public-fetch.ts';
import type { Store } from '../../storage/index.ts';
import { gatewayRequester } from './gateways.ts';
import { isNormalized } from './normalized.ts';
import { primaryName } from './primary.ts';

/** Mainnet's ENS Universal Resolver (as in viem's chain definition, without loading every chain). */
const MAINNET_UNIVERSAL_RESOLVER: Address = '0xeeeeeeee14d718c2b47d9923deab1335e144eeee';

/** The longest avatar URL accepted into the `picture` claim. */
const MAX_AVATAR_URL_LENGTH = 2048;
/** The longest e-mail address kept (RFC 5321's path limit). */
const MAX_EMAIL_LENGTH = 254;

export type EnsProfile = { name?: string; avatar?: string; email?: string };

/** Who signed: the chain they signed on, and whether the signer is a contract wallet. */
export type Signer = { chainId: number; contractWallet: boolean };

export type EnsResolver = {
  /** Never rejects: any failure gives `{}` (the address is the name). */
  resolve(address: Address, signer: Signer): Promise<EnsProfile>;
};

export type EnsOptions = {
  rpcUrl?: string;
  universalResolver?: Address;
  cacheTtlSeconds: number;
  timeoutMs: number;
  /** ENS_CCIP_READ: follow EIP-3668 offchain lookups through gateways (default on). */
  ccipRead?: boolean;
  store: Store;
  logger: Logger;
  /** ALLOW_PRIVATE_FETCH: accept avatar and gateway URLs on loopback/private addresses and http (development). */
  allowPrivate?: boolean;
  onLookup?: (outcome: 'cache-hit' | 'resolved' | 'not-found' | 'failed') => void;
  /** The fetch the RPC transport uses (tracing); the global fetch by default. */
  fetchFn?: typeof fetch;
};

const TIMEOUT = Symbol('timeout');

/** viem's errors carry the RPC URL (and any API key in its path): log only the short reason. */
const reasonOf = (error: unknown) =>
  error instanceof BaseError ? error.shortMessage : error instanceof Error ? error.message : String(error);

/** One e-mail address, nothing else (no display name, no list, no spaces or controls). */
export function usableEmail(value: string): string | undefined {
  if (value.length > MAX_EMAIL_LENGTH) return undefined;
  return /^[^\s@<>()[\]\\,;:"\p{C}]+@[^\s@<>()[\]\\,;:"\p{C}]+\.[^\s@<>()[\]\\,;:"\p{C}]+$/u.test(value) ? value : undefined;
}

/** Where a lookup's result is cached: per address, chain signed on and kind of account. */
export const cacheKeyOf = (address: Address, signer: Signer) =>
  `ens:${signer.chainId}:${signer.contractWallet ? 'contract' : 'account'}:${address.toLowerCase()}`;

/**
 * The gas cap of every eth_call Signet makes (`@signet/siwe`), on every call of a lookup: the
 * resolvers, the Universal Resolver's steps and CCIP-read callbacks are code others deployed.
 */
function withGasCap(transport: Transport): Transport {
  return (options) => {
    const inner = transport(options);
    const request = (async (args: { method: string; params?: unknown }) => {
      const params = args.params as [Record<string, unknown>, ...unknown[]] | undefined;
      if (args.method !== 'eth_call' || !params?.[0] || params[0].gas !== undefined) return inner.request(args as never);
      return inner.request({ ...args, params: [{ ...params[0], gas: toHex(ETH_CALL_GAS_CAP) }, ...params.slice(1)] } as never);
    }) as typeof inner.request;
    return { ...inner, request };
  };
}

/** A cached profile, under the same rule as a fresh one: a name that is not normalized is not a name. */
function fromCache(raw: string): EnsProfile {
  const cached = JSON.parse(raw) as EnsProfile;
  return cached.name && isNormalized(cached.name) ? cached : {};
}

export function createEnsResolver(options: EnsOptions): EnsResolver {
  const { rpcUrl, cacheTtlSeconds, timeoutMs, store, logger, onLookup, allowPrivate = false } = options;
  if (!rpcUrl) return { resolve: async () => ({}) };
  const chain = defineChain({
    id: 1,
    name: 'Ethereum',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    contracts: { ensUniversalResolver: { address: options.universalResolver ?? MAINNET_UNIVERSAL_RESOLVER } },
  });

  /** A client for one lookup: its own JSON-RPC batch, gateway-call count, deadline and abort signal. */
  const clientFor = (deadline: number, signal: AbortSignal) =>
    createPublicClient({
      chain,
      transport: withGasCap(
        http(rpcUrl, { timeout: timeoutMs, retryCount: 0, batch: true, fetchOptions: { signal }, fetchFn: options.fetchFn }),
      ),
      ccipRead: options.ccipRead === false ? false : { request: gatewayRequester({ allowPrivate, deadline, signal }) },
    }) as PublicClient;

  const avatarOf = async (name: string, record: string | null): Promise<string | undefined> => {
    if (!record) return undefined;
    const problem = record.length > MAX_AVATAR_URL_LENGTH ? 'too long' : await publicUrlProblem(record, { allowPrivate });
    if (problem) {
      logger.info({ name, reason: problem }, 'ENS avatar not used');
      return undefined;
    }
    return new URL(record).href;
  };

  /** A text record; a failure to read it (node, gateway) leaves it out. */
  const text = (client: PublicClient, name: string, key: string) =>
    client.getEnsText({ name, key }).catch((error: unknown) => {
      logger.debug({ reason: reasonOf(error), name, key }, 'ENS text record lookup failed');
      return null;
    });

  const lookup = async (address: Address, signer: Signer, client: PublicClient): Promise<EnsProfile> => {
    const { name, refused } = await primaryName(client, address as Hex, signer);
    if (refused) logger.info({ address, chainId: signer.chainId, ...refused }, 'ENS name not used; using the address');
    if (!name) return {};
    const [avatarRecord, emailRecord] = await Promise.all([text(client, name, 'avatar'), text(client, name, 'email')]);
    const avatar = await avatarOf(name, avatarRecord);
    const email = emailRecord ? usableEmail(emailRecord) : undefined;
    if (emailRecord && !email) logger.info({ name }, 'ENS e-mail record not used: not one e-mail address');
    return { name, ...(avatar ? { avatar } : {}), ...(email ? { email } : {}) };
  };

  return {
    async resolve(address, signer) {
      const cacheKey = cacheKeyOf(address, signer);
      try {
        const cached = await store.get(cacheKey);
        if (cached !== undefined) {
          onLookup?.('cache-hit');
          return fromCache(cached);
        }
      } catch (error) {
        logger.warn({ reason: reasonOf(error) }, 'ENS cache unavailable');
      }
      const abort = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      try {
        const result = await Promise.race([
          lookup(address, signer, clientFor(Date.now() + timeoutMs, abort.signal)),
          new Promise<typeof TIMEOUT>((resolve) => {
            timer = setTimeout(() => resolve(TIMEOUT), timeoutMs);
          }),
        ]);
        if (result === TIMEOUT) {
          onLookup?.('failed');
          logger.warn({ address, chainId: signer.chainId, timeoutMs }, 'ENS lookup timed out; using the address');
          return {};
        }
        onLookup?.(result.name ? 'resolved' : 'not-found');
        if (cacheTtlSeconds > 0) await store.set(cacheKey, JSON.stringify(result), cacheTtlSeconds).catch(() => {});
        return result;
      } catch (error) {
        onLookup?.('failed');
        logger.warn({ reason: reasonOf(error), address, chainId: signer.chainId }, 'ENS lookup failed; using the address');
        return {};
      } finally {
        clearTimeout(timer);
        // Whatever is still in flight (RPC calls, gateway calls) ends with the lookup.
        abort.abort();
      }
    },
  };
}
