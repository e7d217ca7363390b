/**
 * ENS name and avatar for an address, resolved with viem on ENS_RPC_URL. Resolved once per
 * sign-in and cached in storage (shared by replicas) for ENS_CACHE_TTL seconds. A slow or
 * dead node never blocks or fails a sign-in: after ENS_TIMEOUT_MS the address is used.
 *
 * Whoever owns a name chooses its records, so nothing here fetches a URL they chose: the
 * avatar text record is read with getEnsText (not getEnsAvatar, which requests the URL and NFT
 * metadata with the global fetch), and becomes the `picture` claim only when it is an https URL
 * on a public address (outbound.ts; DNS is consulted, the URL itself is never requested).
 * NFT avatars (eip155:…/erc721:…), ipfs:// and data: URLs are not used. CCIP-read (EIP-3668
 * offchain lookups, which make the client call gateway URLs from the resolver) is off.
 */
import { type Address, BaseError, createPublicClient, defineChain, http, type PublicClient } from 'viem';
import type { Logger } from './logger.ts';
import { publicUrlProblem } from './outbound.ts';
import type { Store } from './storage/index.ts';

/** Mainnet's ENS Universal Resolver (as in viem's chain definition, without loading every chain). */
const MAINNET_UNIVERSAL_RESOLVER: Address = '0xeeeeeeee14d718c2b47d9923deab1335e144eeee';

/** The longest avatar URL accepted into the `picture` claim. */
const MAX_AVATAR_URL_LENGTH = 2048;

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
  /** ALLOW_PRIVATE_FETCH: accept avatar URLs on loopback/private addresses and http (development). */
  allowPrivate?: boolean;
  onLookup?: (outcome: 'cache-hit' | 'resolved' | 'not-found' | 'failed') => void;
  /** The fetch the RPC transport uses (tracing); the global fetch by default. */
  fetchFn?: typeof fetch;
};

const TIMEOUT = Symbol('timeout');

/** viem's errors carry the RPC URL (and any API key in its path): log only the short reason. */
const reasonOf = (error: unknown) =>
  error instanceof BaseError ? error.shortMessage : error instanceof Error ? error.name : String(error);

export function createEnsResolver(options: EnsOptions): EnsResolver {
  const { rpcUrl, cacheTtlSeconds, timeoutMs, store, logger, onLookup } = options;
  if (!rpcUrl) return { resolve: async () => ({}) };
  const chain = defineChain({
    id: 1,
    name: 'Ethereum',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    contracts: { ensUniversalResolver: { address: options.universalResolver ?? MAINNET_UNIVERSAL_RESOLVER } },
  });
  const client = createPublicClient({
    chain,
    transport: http(rpcUrl, { timeout: timeoutMs, retryCount: 0, fetchFn: options.fetchFn }),
    ccipRead: false,
  }) as PublicClient;

  const avatarOf = async (name: string): Promise<string | undefined> => {
    const record = await client.getEnsText({ name, key: 'avatar' });
    if (!record) return undefined;
    const problem =
      record.length > MAX_AVATAR_URL_LENGTH ? 'too long' : await publicUrlProblem(record, { allowPrivate: options.allowPrivate });
    if (problem) {
      logger.info({ name, reason: problem }, 'ENS avatar not used');
      return undefined;
    }
    return new URL(record).href;
  };

  const lookup = async (address: Address): Promise<EnsProfile> => {
    const name = await client.getEnsName({ address });
    if (!name) return {};
    let avatar: string | undefined;
    try {
      avatar = await avatarOf(name);
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
