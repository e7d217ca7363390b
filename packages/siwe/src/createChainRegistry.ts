import { type Address, createPublicClient, defineChain, http, type PublicClient } from 'viem';
import { KNOWN_CHAINS, KNOWN_SIGNATURE_VERIFIERS } from './knownChains.ts';

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
  /**
   * chainId → address of a deployed ERC-6492 verifier (`isValidSig`), used instead of a
   * deployless `eth_call` for wallets that are not deployed yet. Added to (and overriding) the
   * known ones: zkSync Era (324), Abstract (2741) and their testnets, where a deployless call
   * cannot run.
   */
  signatureVerifiers?: Readonly<Record<number, Address>>;
  /** The fetch a chain's transport uses (default: the global fetch), e.g. one that records traces. */
  fetchFor?: (chainId: number) => typeof fetch | undefined;
};

/** Builds one client per chain; no network traffic until a client is used. */
export function createChainRegistry(
  rpcUrls: Readonly<Record<number, string>>,
  options: ChainRegistryOptions = {},
): ChainRegistry {
  const verifiers = { ...KNOWN_SIGNATURE_VERIFIERS, ...options.signatureVerifiers };
  const clients = new Map<number, PublicClient>();
  for (const [key, url] of Object.entries(rpcUrls)) {
    const chainId = Number(key);
    const verifier = verifiers[chainId];
    const multicall3 = KNOWN_CHAINS[chainId]?.multicall3;
    const chain = defineChain({
      id: chainId,
      name: `chain ${chainId}`,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [url] } },
      contracts: {
        ...(verifier ? { erc6492Verifier: { address: verifier } } : {}),
        ...(multicall3 ? { multicall3: { address: multicall3 } } : {}),
      },
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
