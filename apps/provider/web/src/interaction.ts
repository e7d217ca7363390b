/**
 * The wallet sign-in page's script. It finds the browser wallets (wallets.ts: EIP-6963, else the
 * legacy window.ethereum; Solana and Bitcoin wallets when the sign-in takes them), has the chosen
 * one sign the EIP-4361 message (or the Sign In With Solana or Bitcoin one) built from the
 * interaction details exactly as the provider will check them, and posts message + signature with
 * the page's form (the provider answers 303 onward, or this page again with the error).
 */
import {
  $,
  type Details,
  discoverWallets,
  explain,
  noWallet,
  signDetails,
  statusLine,
  type WalletChoice,
  walletButtons,
} from './wallets.ts';

const details = JSON.parse($('interaction-details')?.textContent ?? '{}') as Details;
const say = statusLine($('status'));
const walletsSection = $('wallets');
// A client known by its metadata document is named by the host that served it (its name is self-described).
const clientName = details.metadataDocument?.host ?? details.client?.client_name ?? 'the site';
// Details from a provider before Solana carry no namespaces: Ethereum only.
const namespaces = details.namespaces ?? ['eip155'];
// How far this browser's clock is from the provider's, so issuedAt is in the provider's time.
const clockOffset = details.serverTime ? Date.parse(details.serverTime) - Date.now() : 0;

function setBusy(busy: boolean) {
  for (const button of walletsSection?.querySelectorAll('button') ?? []) (button as HTMLButtonElement).disabled = busy;
  walletsSection?.setAttribute('aria-busy', String(busy));
}

function showMessage(message: string) {
  const preview = $('message-preview');
  const text = $('message-text');
  if (preview && text) {
    text.textContent = message;
    preview.hidden = false;
  }
}

function submit(message: string, signature: string) {
  say('Verifying your signature…', 'busy');
  ($('field-message') as HTMLInputElement).value = message;
  ($('field-signature') as HTMLInputElement).value = signature;
  ($('signin') as HTMLFormElement | null)?.submit();
}

async function signIn(wallet: WalletChoice) {
  setBusy(true);
  try {
    const signed = await signDetails(wallet, details, { now: Date.now() + clockOffset, say, show: showMessage, who: clientName });
    if (signed) submit(signed.message, signed.signature);
  } catch (error) {
    say(explain(error), 'error', { label: 'Try again', run: () => signIn(wallet) });
  } finally {
    setBusy(false);
  }
}

function renderWallets(wallets: WalletChoice[]) {
  if (!walletsSection) return;
  walletsSection.replaceChildren();
  if (wallets.length === 0) {
    if (namespaces.length === 0) {
      const p = document.createElement('p');
      p.className = 'no-wallet';
      p.append(`${clientName} takes no kind of account this sign-in service offers now. Go back to the site.`);
      walletsSection.append(p);
      return;
    }
    noWallet(walletsSection, namespaces);
    return;
  }
  const heading = document.createElement('h2');
  heading.textContent = 'Sign in with';
  heading.className = 'visually-hidden';
  walletsSection.append(heading);
  walletButtons(walletsSection, wallets, 'Sign in with', signIn);
  (walletsSection.querySelector('button') as HTMLButtonElement | null)?.focus({ preventScroll: true });
}

if (details.uid) {
  discoverWallets(details, namespaces).then(renderWallets);
  // A passkey of the person's Signet account, where this sign-in offers one: its own chunk, on demand.
  if (details.passkeys) import('./passkey.ts').then(({ offerPasskey }) => offerPasskey(details, say));
}
