/**
 * The wallet sign-in page's script. It finds the browser wallets (EIP-6963, else the legacy
 * window.ethereum), asks the chosen one for an account, builds the EIP-4361 message from the
 * interaction details exactly as the provider will check them, asks for a personal_sign
 * signature, and posts message + signature with the page's form (the provider answers 303
 * onward, or this page again with the error).
 */
import { getAddress } from 'viem/utils';
import { messageFromDetails } from '../../src/interaction/contract.ts';
import type { InteractionDetails } from '../../src/interaction/details.ts';

/** The interaction details the server embeds in the page (the JSON of GET /interaction/<uid>). */
type Details = InteractionDetails;

type Eip1193Provider = {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
};

type WalletChoice = { id: string; name: string; icon?: string; provider: Eip1193Provider };

type ProviderError = { code?: number; message?: string };

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T | null;

const details = JSON.parse($('interaction-details')?.textContent ?? '{}') as Details;
const status = $('status');
const walletsSection = $('wallets');
const clientName = details.client?.client_name ?? 'the site';
// How far this browser's clock is from the provider's, so issuedAt is in the provider's time.
const clockOffset = details.serverTime ? Date.parse(details.serverTime) - Date.now() : 0;

const CHAIN_NAMES: Record<number, string> = {
  1: 'Ethereum',
  10: 'OP Mainnet',
  137: 'Polygon',
  8453: 'Base',
  42161: 'Arbitrum One',
  11155111: 'Sepolia',
};
const chainName = (id: number) => CHAIN_NAMES[id] ?? `chain ${id}`;

function say(text: string, kind: 'info' | 'error' | 'busy' = 'info', action?: { label: string; run: () => void }) {
  if (!status) return;
  status.className = `status ${kind}`;
  status.textContent = text;
  if (action) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = action.label;
    button.addEventListener('click', action.run);
    status.append(' ', button);
  }
}

function explain(error: unknown): string {
  const { code, message } = (error ?? {}) as ProviderError;
  if (code === 4001) return 'You declined the request in your wallet. Nothing was signed.';
  if (code === 4100) return 'Your wallet did not allow this site to ask for your account. Unlock it and try again.';
  if (code === -32002) return 'Your wallet already has a request open. Finish or close it in the wallet, then try again.';
  return `Your wallet reported a problem: ${message ?? String(error)}`;
}

function setBusy(busy: boolean) {
  for (const button of walletsSection?.querySelectorAll('button') ?? []) (button as HTMLButtonElement).disabled = busy;
  walletsSection?.setAttribute('aria-busy', String(busy));
}

async function ensureAllowedChain(provider: Eip1193Provider): Promise<number | undefined> {
  const chainId = Number.parseInt(String(await provider.request({ method: 'eth_chainId' })), 16);
  if (details.chainIds.includes(chainId)) return chainId;
  const target = details.chainIds[0] as number;
  try {
    await provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: `0x${target.toString(16)}` }] });
    const switched = Number.parseInt(String(await provider.request({ method: 'eth_chainId' })), 16);
    if (details.chainIds.includes(switched)) return switched;
  } catch (error) {
    if ((error as ProviderError).code === 4001) {
      say(
        `Your wallet is on ${chainName(chainId)}, which ${clientName} does not accept. Switch to ${details.chainIds.map(chainName).join(' or ')} and try again.`,
        'error',
      );
      return undefined;
    }
  }
  say(
    `Your wallet is on ${chainName(chainId)}. Signet accepts ${details.chainIds.map(chainName).join(', ')}: switch networks in your wallet, then try again.`,
    'error',
  );
  return undefined;
}

async function signIn(wallet: WalletChoice) {
  setBusy(true);
  try {
    say(`Asking ${wallet.name} for your account…`, 'busy');
    const accounts = (await wallet.provider.request({ method: 'eth_requestAccounts' })) as string[];
    if (!accounts?.[0]) throw new Error('the wallet returned no account');
    const address = getAddress(accounts[0]);
    const chainId = await ensureAllowedChain(wallet.provider);
    if (chainId === undefined) return;

    const message = messageFromDetails(details, { address, chainId, now: Date.now() + clockOffset });
    const preview = $('message-preview');
    const text = $('message-text');
    if (preview && text) {
      text.textContent = message;
      preview.hidden = false;
    }
    say(`Check the message in ${wallet.name} and sign it.`, 'busy');
    const signature = (await wallet.provider.request({ method: 'personal_sign', params: [toHex(message), address] })) as string;

    say('Verifying your signature…', 'busy');
    const form = $('signin') as HTMLFormElement | null;
    ($('field-message') as HTMLInputElement).value = message;
    ($('field-signature') as HTMLInputElement).value = signature;
    form?.submit();
  } catch (error) {
    say(explain(error), 'error', { label: 'Try again', run: () => signIn(wallet) });
  } finally {
    setBusy(false);
  }
}

function toHex(text: string): string {
  let hex = '0x';
  for (const byte of new TextEncoder().encode(text)) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

function renderWallets(wallets: WalletChoice[]) {
  if (!walletsSection) return;
  walletsSection.replaceChildren();
  if (wallets.length === 0) {
    const p = document.createElement('p');
    p.className = 'no-wallet';
    p.append('No Ethereum wallet was found in this browser. ');
    const link = document.createElement('a');
    link.href = 'https://ethereum.org/wallets/find-wallet/';
    link.rel = 'noopener noreferrer';
    link.target = '_blank';
    link.textContent = 'Get a wallet';
    p.append(link, ', then reload this page.');
    walletsSection.append(p);
    return;
  }
  const heading = document.createElement('h2');
  heading.textContent = 'Sign in with';
  heading.className = 'visually-hidden';
  walletsSection.append(heading);
  for (const wallet of wallets) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'wallet primary';
    button.dataset.wallet = wallet.id;
    if (wallet.icon?.startsWith('data:image/')) {
      const img = document.createElement('img');
      img.src = wallet.icon;
      img.alt = '';
      img.width = 24;
      img.height = 24;
      button.append(img);
    }
    button.append(`Sign in with ${wallet.name}`);
    button.addEventListener('click', () => signIn(wallet));
    walletsSection.append(button);
  }
  (walletsSection.querySelector('button') as HTMLButtonElement | null)?.focus({ preventScroll: true });
}

function discoverWallets(): Promise<WalletChoice[]> {
  const found = new Map<string, WalletChoice>();
  window.addEventListener('eip6963:announceProvider', (event) => {
    const { info, provider } = (event as CustomEvent).detail ?? {};
    if (!info?.uuid || !provider?.request) return;
    found.set(info.uuid, { id: info.rdns ?? info.uuid, name: String(info.name ?? 'Wallet'), icon: info.icon, provider });
  });
  window.dispatchEvent(new Event('eip6963:requestProvider'));
  return new Promise((resolve) => {
    setTimeout(() => {
      const wallets = [...found.values()];
      const legacy = (window as unknown as { ethereum?: Eip1193Provider }).ethereum;
      if (wallets.length === 0 && legacy?.request)
        wallets.push({ id: 'injected', name: 'your browser wallet', provider: legacy });
      if (details.walletConnectProjectId) wallets.push(walletConnectChoice(details.walletConnectProjectId));
      resolve(wallets);
    }, 300);
  });
}

/** WalletConnect as one more wallet: its code is fetched only when the person picks it. */
function walletConnectChoice(projectId: string): WalletChoice {
  let connected: Promise<Eip1193Provider> | undefined;
  const dialog = $('walletconnect') as HTMLDialogElement | null;
  const connect = () => {
    connected ??= import('./walletconnect.ts')
      .then(({ connectWalletConnect }) =>
        connectWalletConnect({
          projectId,
          chainIds: details.chainIds,
          showQr(svg, uri) {
            const box = $('walletconnect-qr');
            if (box) box.innerHTML = svg;
            const link = $('walletconnect-link') as HTMLAnchorElement | null;
            if (link) link.href = uri;
            dialog?.showModal();
          },
          hideQr: () => dialog?.close(),
        }),
      )
      .catch((error) => {
        connected = undefined;
        throw new Error(`WalletConnect could not connect (${(error as Error).message}).`);
      });
    return connected;
  };
  return {
    id: 'walletconnect',
    name: 'WalletConnect',
    provider: { request: async (args) => (await connect()).request(args) },
  };
}

if (details.uid) {
  discoverWallets().then(renderWallets);
}
