/**
 * What the sign-in page and the account page share: finding the browser's wallets (EIP-6963,
 * else the legacy window.ethereum; Wallet Standard Solana wallets; Bitcoin wallets by their
 * injected objects and the Wallet Standard; WalletConnect when offered), and having one sign the
 * message a set of details describes (an Ethereum wallet: ERC-7846 `wallet_connect` in one prompt
 * where it has it, one-prompt.ts, else the EIP-4361 text with personal_sign; a Solana or Bitcoin
 * wallet: solana.ts or bitcoin.ts; each loaded when picked).
 */
import { checksumAddress } from '@signet/siwe/message';
import { getWallets } from '@wallet-standard/app';
import type { Wallet } from '@wallet-standard/base';
import { messageFromDetails, messageParameters } from '../../src/signin/contract.ts';
import type { InteractionDetails } from '../../src/signin/details.ts';
import type { BitcoinWallet } from './bitcoin.ts';

export type Details = InteractionDetails;

export type Eip1193Provider = {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
};

export type WalletChoice = { id: string; name: string; icon?: string } & (
  | { kind: 'eip155'; provider: Eip1193Provider }
  | { kind: 'solana'; wallet: Wallet }
  | { kind: 'bip122'; bitcoin: BitcoinWallet }
);

/** An object a wallet injected into the page, of no known shape: read field by field. */
type Injected = { readonly [key: string]: Injected | undefined };

const KINDS: Record<string, string> = { eip155: 'Ethereum', solana: 'Solana', bip122: 'Bitcoin' };

type ProviderError = { code?: number; message?: string };

export const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T | null;

const CHAIN_NAMES: Record<number, string> = {
  1: 'Ethereum',
  10: 'OP Mainnet',
  137: 'Polygon',
  8453: 'Base',
  42161: 'Arbitrum One',
  11155111: 'Sepolia',
};
export const chainName = (id: number) => CHAIN_NAMES[id] ?? `chain ${id}`;

/** A status line: words, a kind, and perhaps one button. */
export type Say = (text: string, kind?: 'info' | 'error' | 'busy', action?: { label: string; run: () => void }) => void;

export function statusLine(status: HTMLElement | null): Say {
  return (text, kind = 'info', action) => {
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
  };
}

export function explain(error: unknown): string {
  const { code, message } = (error ?? {}) as ProviderError;
  if ((error as Error | undefined)?.name === 'ChangedMessageError') {
    const field = (error as { field?: string }).field;
    return `Your wallet signed a different message than the one this page gave it${field ? ` (its ${field} differs)` : ''}, so nothing was sent. Try again, or use another wallet.`;
  }
  // EIP-1193 wallets say 4001; Wallet Standard wallets have no code of their own, only words.
  if (code === 4001 || /\b(reject|declin|denied|cancel)/i.test(message ?? ''))
    return 'You declined the request in your wallet. Nothing was signed.';
  if (code === 4100) return 'Your wallet did not allow this site to ask for your account. Unlock it and try again.';
  if (code === -32002) return 'Your wallet already has a request open. Finish or close it in the wallet, then try again.';
  return `Your wallet reported a problem: ${message ?? String(error)}`;
}

function toHex(text: string): string {
  let hex = '0x';
  for (const byte of new TextEncoder().encode(text)) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

async function ensureAllowedChain(
  provider: Eip1193Provider,
  details: Details,
  say: Say,
  who: string,
): Promise<number | undefined> {
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
        `Your wallet is on ${chainName(chainId)}, which ${who} does not accept. Switch to ${details.chainIds.map(chainName).join(' or ')} and try again.`,
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

export type Signed = { message: string; signature: string };

/** The account the wallet shares (its prompt to connect). */
async function requestAccount(provider: Eip1193Provider): Promise<`0x${string}`> {
  const accounts = (await provider.request({ method: 'eth_requestAccounts' })) as string[];
  if (!accounts?.[0]) throw new Error('the wallet returned no account');
  if (!/^0x[0-9a-fA-F]{40}$/.test(accounts[0])) throw new Error('the wallet returned something other than an address');
  return checksumAddress(accounts[0]);
}

/** ERC-7846 `wallet_connect` with `signInWithEthereum` (one-prompt.ts, loaded now), on the wallet's chain when allowed. */
async function connectAndSignIn(
  provider: Eip1193Provider,
  details: Details,
  options: { now: number; show(message: string): void },
) {
  const current = Number.parseInt(String(await provider.request({ method: 'eth_chainId' })), 16);
  const chainId = details.chainIds.includes(current) ? current : (details.chainIds[0] as number);
  const onePrompt = await import('./one-prompt.ts');
  const contract = { messageParameters, messageFromDetails, checksumAddress };
  return onePrompt.connectAndSignIn(provider, details, { chainId, now: options.now, show: options.show, contract });
}

/**
 * Has the wallet sign the message of these details; undefined when it cannot (a network the
 * details do not take, said through `say`). `show` receives the text before it is signed.
 */
export async function signDetails(
  wallet: WalletChoice,
  details: Details,
  options: { now: number; say: Say; show(message: string): void; who: string },
): Promise<Signed | undefined> {
  const { say } = options;
  if (wallet.kind === 'solana') {
    say(`Check the message in ${wallet.name} and sign it.`, 'busy');
    const { signWithSolana } = await import('./solana.ts');
    return signWithSolana(wallet.wallet, details, { now: options.now, show: options.show });
  }
  if (wallet.kind === 'bip122') {
    say(`Check the message in ${wallet.name} and sign it.`, 'busy');
    const { signWithBitcoin } = await import('./bitcoin.ts');
    return signWithBitcoin(wallet.bitcoin, details, { now: options.now, show: options.show });
  }
  say(`Asking ${wallet.name} for your account…`, 'busy');
  // One prompt where the wallet connects and signs in at once (ERC-7846); else connect, then sign.
  const connected = wallet.id === 'walletconnect' ? undefined : await connectAndSignIn(wallet.provider, details, options);
  if (connected?.kind === 'signed') return { message: connected.message, signature: connected.signature };
  const address = connected?.kind === 'connected' ? connected.address : await requestAccount(wallet.provider);
  const chainId = await ensureAllowedChain(wallet.provider, details, say, options.who);
  if (chainId === undefined) return undefined;
  const message = messageFromDetails(details, { address, chainId, now: options.now });
  options.show(message);
  say(`Check the message in ${wallet.name} and sign it.`, 'busy');
  const signature = (await wallet.provider.request({ method: 'personal_sign', params: [toHex(message), address] })) as string;
  return { message, signature };
}

/** Wallet Standard wallets that can sign a Solana message on one of the allowed networks. */
function solanaWallets(details: Details): WalletChoice[] {
  const chains = (details.solanaNetworks ?? []).map((network) => `solana:${network}`);
  return getWallets()
    .get()
    .filter(
      (wallet) =>
        ('solana:signIn' in wallet.features || 'solana:signMessage' in wallet.features) &&
        wallet.chains.some((chain) => chains.includes(chain)),
    )
    .map((wallet, i) => ({
      kind: 'solana',
      id: `solana-${i}`,
      name: String(wallet.name || 'Wallet'),
      icon: wallet.icon,
      wallet,
    }));
}

/**
 * Bitcoin wallets, each once (by name, and by the object reached: Xverse lists its own provider in
 * `btc_providers` too): sats-connect's providers (`window.btc_providers`, WBIP004, and Xverse's and
 * Leather's own), Unisat, OKX and Phantom by their injected objects, then Wallet Standard wallets
 * with `bitcoin:signMessage`.
 */
function bitcoinWallets(): WalletChoice[] {
  const w = window as unknown as Injected;
  const found: WalletChoice[] = [];
  const reached = new Set<unknown>();
  const add = (name: unknown, icon: unknown, bitcoin: BitcoinWallet) => {
    const label = String(name || 'Wallet');
    const target = bitcoin.via === 'standard' ? bitcoin.wallet : bitcoin.provider;
    if (reached.has(target) || found.some((f) => f.name.toLowerCase() === label.toLowerCase())) return;
    reached.add(target);
    found.push({ kind: 'bip122', id: `bitcoin-${found.length}`, name: label, icon: icon as string, bitcoin });
  };
  for (const listed of (w.btc_providers as unknown as Injected[] | undefined) ?? []) {
    const provider = String(listed?.id ?? '')
      .split('.')
      .reduce<Injected | undefined>((at, key) => at?.[key], w);
    if (provider?.request) add(listed.name, listed.icon, { via: 'sats', provider });
  }
  const injected: [string, Injected | undefined, 'sats' | 'unisat' | 'okx' | 'phantom'][] = [
    ['Xverse', w.XverseProviders?.BitcoinProvider, 'sats'],
    ['Leather', w.LeatherProvider, 'sats'],
    ['Unisat', w.unisat, 'unisat'],
    ['OKX Wallet', w.okxwallet?.bitcoin, 'okx'],
    ['Phantom', w.phantom?.bitcoin, 'phantom'],
  ];
  for (const [name, provider, via] of injected) {
    if (provider?.request || provider?.signMessage) add(name, undefined, { via, provider });
  }
  for (const wallet of getWallets().get()) {
    if ('bitcoin:signMessage' in wallet.features && wallet.chains.some((chain) => chain.startsWith('bitcoin:')))
      add(wallet.name, wallet.icon, { via: 'standard', wallet });
  }
  return found;
}

/** The wallets of this browser that can sign for these details (after a moment for announcements). */
export function discoverWallets(details: Details, namespaces: readonly string[]): Promise<WalletChoice[]> {
  const found = new Map<string, WalletChoice>();
  const ethereum = namespaces.includes('eip155');
  if (ethereum) {
    window.addEventListener('eip6963:announceProvider', (event) => {
      const { info, provider } = (event as CustomEvent).detail ?? {};
      if (!info?.uuid || !provider?.request) return;
      found.set(info.uuid, {
        kind: 'eip155',
        id: info.rdns ?? info.uuid,
        name: String(info.name ?? 'Wallet'),
        icon: info.icon,
        provider,
      });
    });
    window.dispatchEvent(new Event('eip6963:requestProvider'));
  }
  // Wallet Standard: wallets already loaded register when asked (app-ready), later ones announce themselves.
  if (namespaces.includes('solana') || namespaces.includes('bip122')) getWallets();
  return new Promise((resolve) => {
    setTimeout(() => {
      const wallets = [...found.values()];
      const legacy = (window as unknown as { ethereum?: Eip1193Provider }).ethereum;
      if (ethereum && wallets.length === 0 && legacy?.request)
        wallets.push({ kind: 'eip155', id: 'injected', name: 'your browser wallet', provider: legacy });
      if (namespaces.includes('solana')) wallets.push(...solanaWallets(details));
      if (namespaces.includes('bip122')) wallets.push(...bitcoinWallets());
      if (ethereum && details.walletConnectProjectId)
        wallets.push(walletConnectChoice(details.walletConnectProjectId, details.chainIds));
      resolve(wallets);
    }, 300);
  });
}

/** WalletConnect as one more wallet: its code is fetched only when the person picks it. */
function walletConnectChoice(projectId: string, chainIds: number[]): WalletChoice {
  let connected: Promise<Eip1193Provider> | undefined;
  const dialog = $('walletconnect') as HTMLDialogElement | null;
  const connect = () => {
    connected ??= import('./walletconnect.ts')
      .then(({ connectWalletConnect }) =>
        connectWalletConnect({
          projectId,
          chainIds,
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
    kind: 'eip155',
    id: 'walletconnect',
    name: 'WalletConnect',
    provider: { request: async (args) => (await connect()).request(args) },
  };
}

/** One button per wallet, `label` naming what it does; the first is focused. */
export function walletButtons(section: HTMLElement, wallets: WalletChoice[], label: string, run: (wallet: WalletChoice) => void) {
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
    button.append(`${label} ${wallet.name}${wallet.kind === 'eip155' ? '' : ` (${KINDS[wallet.kind]})`}`);
    button.addEventListener('click', () => run(wallet));
    section.append(button);
  }
}

/** "No wallet was found", with where to get one. */
export function noWallet(section: HTMLElement, namespaces: readonly string[]) {
  const p = document.createElement('p');
  p.className = 'no-wallet';
  const kinds = namespaces.map((ns) => KINDS[ns] ?? ns).join(' or ');
  p.append(`No ${kinds} wallet was found in this browser. `);
  const link = document.createElement('a');
  link.href = namespaces.includes('eip155')
    ? 'https://ethereum.org/wallets/find-wallet/'
    : namespaces.includes('solana')
      ? 'https://solana.com/solana-wallets'
      : 'https://bitcoin.org/en/choose-your-wallet';
  link.rel = 'noopener noreferrer';
  link.target = '_blank';
  link.textContent = 'Get a wallet';
  p.append(link, ', then reload this page.');
  section.append(p);
}
