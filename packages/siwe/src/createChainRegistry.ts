import { createPublicClient, defineChain, http, type PublicClient } from 'viem';

/** chainId → a JSON-RPC client for that chain. Shared by every app that verifies messages. */
export type ChainRegistry = {
  readonly chainIds: readonly number[];
  get(chainId: number): PublicClient | undefined;
};

export type ChainRegistryOptions = {
  /** Per-request timeout in ms (default 5000): a slow node fails fast instead of hanging a sign-in. */
  timeoutMs?: number;
  /** Retries after a failed request (default 1). */
  retryCount?: number;
  /** The fetch a chain's transport uses (default: the global fetch), e.g. one that records traces. */
  fetchFor?: (chainId: number) => typeof fetch | undefined;
};

/** Builds one client per chain; no network traffic until a client is used. */
export function createChainRegistry(
  rpcUrls: Readonly<Record<number, string>>,
  options: ChainRegistryOptions = {},
): ChainRegistry {
  const clients = new Map<number, PublicClient>();
  for (const [key, url] of Object.entries(rpcUrls)) {
    const chainId = Number(key);
    const chain = defineChain({
      id: chainId,
      name: `chain ${chainId}`,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [url] } },
    });
    clients.set(
      chainId,
      createPublicClient({
        chain,
        transport: http(url, {
          timeout: options.timeoutMs ?? 5000,
          retryCount: options.retryCount ?? 1,
          fetchFn: options.fetchFor?.(chainId),
        }),
      }) as PublicClient,
    );
  }
  return {
    chainIds: [...clients.keys()],
    get: (chainId) => clients.get(chainId),
  };
}
