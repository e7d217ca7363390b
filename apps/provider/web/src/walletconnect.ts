/**
 * WalletConnect v2, loaded as its own chunk only when the person picks it (and only offered
 * when the provider has a WALLETCONNECT_PROJECT_ID). It pairs with a phone wallet through a
 * QR code and returns an EIP-1193 provider for the same sign-in steps as an injected wallet.
 */
import { UniversalProvider } from '@walletconnect/universal-provider';
import { renderSVG } from 'uqr';

type Eip1193 = { request(args: { method: string; params?: unknown[] }): Promise<unknown> };

/** How long to wait for the relay and the phone before giving up with a message. */
const CONNECT_TIMEOUT_MS = 10_000;

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} did not answer in time`)), CONNECT_TIMEOUT_MS)),
  ]);
}

export async function connectWalletConnect(options: {
  projectId: string;
  chainIds: number[];
  showQr(svg: string, uri: string): void;
  hideQr(): void;
}): Promise<Eip1193> {
  const provider = await withTimeout(
    UniversalProvider.init({
      projectId: options.projectId,
      metadata: {
        name: 'Signet',
        description: 'Sign in with Ethereum',
        url: location.origin,
        icons: [],
      },
    }),
    'the WalletConnect relay',
  );
  provider.on('display_uri', (uri: string) => options.showQr(renderSVG(uri), uri));
  const chains = options.chainIds.map((id) => `eip155:${id}`);
  try {
    await withTimeout(
      provider.connect({
        optionalNamespaces: {
          eip155: {
            chains,
            methods: ['personal_sign', 'eth_chainId', 'eth_requestAccounts', 'wallet_switchEthereumChain'],
            events: ['accountsChanged', 'chainChanged'],
          },
        },
      }),
      'WalletConnect',
    );
  } catch (error) {
    // Stop the relay's reconnection attempts before reporting.
    provider.abortPairingAttempt();
    await provider.client?.core?.relayer?.transportClose?.().catch(() => {});
    throw error;
  } finally {
    options.hideQr();
  }
  const chainOf = () => {
    const account = provider.session?.namespaces.eip155?.accounts[0];
    return account ? account.split(':').slice(0, 2).join(':') : chains[0];
  };
  return {
    async request({ method, params }) {
      if (method === 'eth_requestAccounts') {
        return (provider.session?.namespaces.eip155?.accounts ?? []).map((account) => account.split(':')[2]);
      }
      if (method === 'eth_chainId') return `0x${Number(chainOf()?.split(':')[1] ?? 1).toString(16)}`;
      return provider.request({ method, params }, chainOf());
    },
  };
}
