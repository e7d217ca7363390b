/**
 * The account page's script: signs in with a wallet (`/account/reauth`), adds a wallet
 * (`/account/link`, then `POST /account/wallets`), confirms it is the person when a change asks
 * for a fresh signature, and makes the changes the page offers (primary, remove, delete, sign
 * out); the passkeys section's script (account-passkeys.ts) loads on demand. Every request goes to the provider's own origin; the server checks everything again.
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

type State = {
  signedIn: boolean;
  primary?: string;
  namespaces: string[];
  wallets: string[];
  /** Where passkeys are on: what the passkeys section's script needs (account-passkeys.ts). */
  passkeys?: { rpId: string; userHandle?: string; ids: string[] };
  discovery: Pick<Details, 'chainIds' | 'solanaNetworks' | 'walletConnectProjectId'>;
};
type Failure = { error?: string; error_description?: string };

const state = JSON.parse($('account-state')?.textContent ?? '{}') as State;
const say = statusLine($('status'));
const walletsSection = $('wallets');

const json = { accept: 'application/json', 'content-type': 'application/json' };

async function call(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(path, {
    method,
    headers: json,
    credentials: 'same-origin',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function failure(response: Response): Promise<Failure> {
  return ((await response.json().catch(() => ({}))) ?? {}) as Failure;
}

/** Has the wallet sign what `path` issues, and posts it to `post`; true when the server took it. */
async function signAndPost(wallet: WalletChoice, path: string, post: string): Promise<Response | undefined> {
  const issued = await call('GET', path);
  if (!issued.ok) {
    const { error_description } = await failure(issued);
    say(error_description ?? `The provider answered ${issued.status}.`, 'error');
    return undefined;
  }
  const details = (await issued.json()) as Details;
  const offset = details.serverTime ? Date.parse(details.serverTime) - Date.now() : 0;
  const signed = await signDetails(wallet, details, {
    now: Date.now() + offset,
    say,
    show: () => {},
    who: 'your Signet account',
  });
  if (!signed) return undefined;
  say('Verifying your signature…', 'busy');
  return call('POST', post, signed);
}

/** After a change asked for a fresh signature: buttons to confirm it with a wallet. */
function askToConfirm(wallets: WalletChoice[], words: string, retry: () => void) {
  say(words, 'error');
  const box = document.createElement('div');
  box.className = 'wallets confirm';
  walletButtons(box, wallets, 'Confirm with', async (wallet) => {
    try {
      const response = await signAndPost(wallet, '/account/reauth', '/account/reauth');
      if (!response) return;
      if (!response.ok) return say((await failure(response)).error_description ?? 'Not confirmed.', 'error');
      box.remove();
      retry();
    } catch (error) {
      say(explain(error), 'error');
    }
  });
  $('status')?.after(box);
}

async function change(wallets: WalletChoice[], run: () => Promise<Response>, done: string) {
  const response = await run();
  if (response.ok) {
    say(done);
    window.location.reload();
    return;
  }
  const { error, error_description } = await failure(response);
  if (error === 'REAUTHENTICATION_REQUIRED') {
    askToConfirm(
      wallets,
      `${error_description ?? 'Confirm it is you first.'} Sign with that wallet, then the change is made.`,
      () => change(wallets, run, done),
    );
    return;
  }
  say(error_description ?? `The provider answered ${response.status}.`, 'error');
}

function bindActions(wallets: WalletChoice[]) {
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-action]')) {
    const wallet = button.dataset.wallet ?? '';
    const action = button.dataset.action;
    button.addEventListener('click', () => {
      if (action === 'primary')
        change(wallets, () => call('POST', '/account/primary', { id: wallet }), 'The primary wallet changed.');
      else if (action === 'remove')
        change(wallets, () => call('DELETE', `/account/wallets/${encodeURIComponent(wallet)}`), 'Removed.');
      else if (action === 'delete' && window.confirm('Delete your Signet account? Every sign-in made with its wallets ends.'))
        change(wallets, () => call('DELETE', '/account'), 'Your account is deleted.');
      else if (action === 'signout') change(wallets, () => call('POST', '/account/signout'), 'Signed out.');
    });
  }
}

async function start() {
  const wallets = await discoverWallets(state.discovery as Details, state.namespaces);
  bindActions(wallets);
  // The passkeys section, where the page has one: its own chunk, on demand (no wallet needed to see or remove them).
  if (state.passkeys) {
    import('./account-passkeys.ts').then(({ bindPasskeys }) =>
      bindPasskeys(state.passkeys, { say, call, confirm: (words, retry) => askToConfirm(wallets, words, retry) }),
    );
  }
  if (!walletsSection) return;
  walletsSection.replaceChildren();
  if (wallets.length === 0) return noWallet(walletsSection, state.namespaces);
  if (!state.signedIn) {
    walletButtons(walletsSection, wallets, 'Sign in with', async (wallet) => {
      try {
        const response = await signAndPost(wallet, '/account/reauth', '/account/reauth');
        if (!response) return;
        if (response.ok) return window.location.reload();
        say((await failure(response)).error_description ?? 'Not signed in.', 'error');
      } catch (error) {
        say(explain(error), 'error');
      }
    });
    return;
  }
  const add = async (wallet: WalletChoice) => {
    try {
      const response = await signAndPost(wallet, '/account/link', '/account/wallets');
      if (!response) return;
      if (response.ok) return window.location.reload();
      const { error, error_description } = await failure(response);
      if (error === 'REAUTHENTICATION_REQUIRED') {
        askToConfirm(wallets, `${error_description} First sign with a wallet already in your account.`, () => add(wallet));
        return;
      }
      say(error_description ?? `The provider answered ${response.status}.`, 'error');
    } catch (error) {
      say(explain(error), 'error');
    }
  };
  walletButtons(walletsSection, wallets, 'Add', add);
}

start();
