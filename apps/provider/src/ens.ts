/**
 * ENS name and avatar for an address, resolved with viem on ENS_RPC_URL. Resolved once per
 * sign-in and cached in storage (shared by replicas) for ENS_CACHE_TTL seconds. A slow or
 * dead node never blocks or fails a sign-in: after ENS_TIMEOUT_MS the address is used.
 */
import { type Address, BaseError, createPublicClient, defineChain, http, type PublicClient } from 'viem';
import { mainnet } from 'viem/chains';
import type { Logger } from './logger.ts';
import type { Store } from './storage/index.ts';

export type EnsProfile = { name?: string; avatar?: string };

export type EnsResolver = {
  resolve(address: Address): Promise<EnsProfile>;
};

export type EnsOptions = {
  rpcUrl?: string;
  universalResolver?: Address;
  cacheTtlSeconds: number;
  timeoutMs: number;
  store: Store;
  logger: Logger;
  onLookup?: (outcome: 'cache-hit' | 'resolved' | 'not-found' | 'failed') => void;
};

const TIMEOUT = Symbol('timeout');

/** viem's errors carry the RPC URL (and any API key in its path): log only the short reason. */
const reasonOf = (error: unknown) =>
  error instanceof BaseError ? error.shortMessage : error instanceof Error ? error.name : String(error);

export function createEnsResolver(options: EnsOptions): EnsResolver {
  const { rpcUrl, cacheTtlSeconds, timeoutMs, store, logger, onLookup } = options;
  if (!rpcUrl) return { resolve: async () => ({}) };
  const chain = defineChain({
    ...mainnet,
    rpcUrls: { default: { http: [rpcUrl] } },
    contracts: {
      ...mainnet.contracts,
      ensUniversalResolver: { address: options.universalResolver ?? mainnet.contracts.ensUniversalResolver.address },
    },
  });
  const client = createPublicClient({ chain, transport: http(rpcUrl, { timeout: timeoutMs, retryCount: 0 }) }) as PublicClient;

  const lookup = async (address: Address): Promise<EnsProfile> => {
    const name = await client.getEnsName({ address });
    if (!name) return {};
    let avatar: string | null = null;
    try {
      avatar = await client.getEnsAvatar({ name });
    } catch (error) {
      logger.debug({ reason: reasonOf(error), name }, 'ENS avatar lookup failed');
    }
    return avatar ? { name, avatar } : { name };
  };

  return {
    async resolve(address) {
      const cacheKey = `ens:${address.toLowerCase()}`;
      try {
        const cached = await store.get(cacheKey);
        if (cached !== undefined) {
          onLookup?.('cache-hit');
          return JSON.parse(cached) as EnsProfile;
        }
      } catch (error) {
        logger.warn({ reason: reasonOf(error) }, 'ENS cache unavailable');
      }
      let timer: NodeJS.Timeout | undefined;
      try {
        const result = await Promise.race([
          lookup(address),
          new Promise<typeof TIMEOUT>((resolve) => {
            timer = setTimeout(() => resolve(TIMEOUT), timeoutMs);
          }),
        ]);
        if (result === TIMEOUT) {
          onLookup?.('failed');
          logger.warn({ address, timeoutMs }, 'ENS lookup timed out; using the address');
          return {};
        }
        onLookup?.(result.name ? 'resolved' : 'not-found');
        if (cacheTtlSeconds > 0) await store.set(cacheKey, JSON.stringify(result), cacheTtlSeconds).catch(() => {});
        return result;
      } catch (error) {
        onLookup?.('failed');
        logger.warn({ reason: reasonOf(error), address }, 'ENS lookup failed; using the address');
        return {};
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
