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
        transport: http(url, { timeout: options.timeoutMs ?? 5000, retryCount: options.retryCount ?? 1 }),
      }) as PublicClient,
    );
  }
  return {
    chainIds: [...clients.keys()],
    get: (chainId) => clients.get(chainId),
  };
}

const isHttpUrl = (value: string) => {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
};

/**
 * Reads the RPC settings every app shares: `ETH_RPC_URL` (chain 1) and
 * `RPC_URLS` (`137=https://…,10=https://…`). Throws an Error naming the variable and the
 * bad entry; apps call it once at start.
 */
export function rpcUrlsFromSettings(settings: { ETH_RPC_URL?: string; RPC_URLS?: string }): Record<number, string> {
  const urls: Record<number, string> = {};
  const ethRpcUrl = settings.ETH_RPC_URL?.trim();
  if (ethRpcUrl) {
    if (!isHttpUrl(ethRpcUrl)) throw new Error(`ETH_RPC_URL must be an http(s) URL, got ${JSON.stringify(ethRpcUrl)}`);
    urls[1] = ethRpcUrl;
  }
  const list = settings.RPC_URLS?.trim();
  if (list) {
    for (const entry of list.split(',')) {
      const trimmed = entry.trim();
      if (trimmed === '') continue;
      const separator = trimmed.indexOf('=');
      const chainText = trimmed.slice(0, separator);
      const url = trimmed.slice(separator + 1).trim();
      if (separator === -1 || !/^[1-9][0-9]*$/.test(chainText.trim()) || !isHttpUrl(url)) {
        throw new Error(`RPC_URLS entry ${JSON.stringify(trimmed)} must look like <chainId>=<http(s) URL>`);
      }
      const chainId = Number(chainText.trim());
      if (chainId in urls) {
        throw new Error(`RPC_URLS sets chain ${chainId} again (ETH_RPC_URL already is chain 1; each chain once)`);
      }
      urls[chainId] = url;
    }
  }
  return urls;
}
