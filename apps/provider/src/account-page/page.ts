/**
 * The person's account page, rendered on the server in the wallet page's style (same stylesheet,
 * no inline script or style): the linked wallets (address, kind, ENS name, when linked, last
 * used), and the actions, which the page's script (web/src/account.ts) carries out with the
 * person's wallets: sign in, add a wallet, confirm it is you, make a wallet primary, remove one,
 * delete the account; and the account's passkeys (passkeys/account-section.ts).
 */
import type { Account, WalletProfile } from '../accounts/accounts.ts';
import type { Passkey } from '../accounts/passkeys.ts';
import type { Config } from '../config.ts';
import { type Html, html, layout, raw } from '../http/html.ts';
import type { WebAssets } from '../http/static.ts';
import { passkeySection, passkeyState } from '../passkeys/account-section.ts';
import { offeredNamespaces } from '../signin/namespaces.ts';
import { walletAddressOf, walletKindOf } from '../wallets/ids.ts';
import { FRESH_PROOF_MS } from './session.ts';

export type AccountPageState = {
  account?: Account;
  profiles: (WalletProfile | undefined)[];
  passkeys: Passkey[];
  proofs: Record<string, number>;
};

const KIND_WORDS: Record<ReturnType<typeof walletKindOf>, string> = {
  'ethereum-account': 'Ethereum account, every chain',
  'ethereum-contract': 'Ethereum contract account',
  solana: 'Solana account',
  bitcoin: 'Bitcoin address',
  unknown: 'wallet',
};

const chainOf = (walletId: string) => walletId.split(':')[1];

function kindWords(walletId: string): string {
  const kind = walletKindOf(walletId);
  return kind === 'ethereum-contract' ? `${KIND_WORDS[kind]} on chain ${chainOf(walletId)}` : KIND_WORDS[kind];
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function walletRow(
  account: Account,
  walletId: string,
  linkedAt: number,
  profile: WalletProfile | undefined,
  fresh: boolean,
): Html {
  const primary = walletId === account.primary;
  const address = walletAddressOf(walletId);
  return html`<li class="wallet-row" data-wallet="${walletId}">
    <div class="wallet-name">
      <strong>${profile?.name ?? `${address.slice(0, 8)}…${address.slice(-6)}`}</strong>${primary ? html` <span class="badge">primary</span>` : ''}${fresh ? html` <span class="badge muted">confirmed</span>` : ''}
    </div>
    <div class="muted small"><code class="address">${address}</code></div>
    <div class="muted small">${kindWords(walletId)} · linked ${day(linkedAt)}${profile?.lastUsedAt ? html` · last used ${day(profile.lastUsedAt)}` : ''}</div>
    <div class="actions">
      ${primary ? '' : html`<button type="button" data-action="primary" data-wallet="${walletId}">Make primary</button>`}
      ${account.wallets.length > 1 ? html`<button type="button" data-action="remove" data-wallet="${walletId}">Remove</button>` : ''}
    </div>
  </li>`;
}

export function renderAccountPage(services: { config: Config; assets: WebAssets }, state: AccountPageState): string {
  const { config } = services;
  const now = Date.now();
  const { account } = state;
  const summary = {
    signedIn: account !== undefined,
    primary: account?.primary,
    namespaces: offeredNamespaces(config),
    wallets: account?.wallets.map((wallet) => wallet.id) ?? [],
    passkeys: account ? passkeyState(config, account, state.passkeys) : undefined,
    // What wallet discovery needs (the page finds wallets before any message is issued).
    discovery: {
      chainIds: config.chainIds,
      solanaNetworks: config.solanaNetworks,
      bitcoinNetworks: config.bitcoinNetworks,
      ...(config.walletConnectProjectId ? { walletConnectProjectId: config.walletConnectProjectId } : {}),
    },
  };
  const body = account
    ? html`<main class="card" aria-labelledby="title">
  <h1 id="title">Your Signet account</h1>
  <p class="muted">Every wallet here signs you in to sites that know you by your account at <strong>${config.domain}</strong>. The primary wallet's name is the one they show.</p>
  <section aria-labelledby="wallets-title">
    <h2 id="wallets-title">Wallets</h2>
    <ul class="wallet-list">${account.wallets.map((wallet, i) =>
      walletRow(account, wallet.id, wallet.linkedAt, state.profiles[i], now - (state.proofs[wallet.id] ?? 0) <= FRESH_PROOF_MS),
    )}</ul>
  </section>
  <div id="status" class="status" role="status" aria-live="polite"></div>
  <section aria-labelledby="add-title">
    <h2 id="add-title">Add a wallet</h2>
    <p class="muted small">The new wallet signs a message to prove it is yours; a wallet of this account must have signed in the last 10 minutes.</p>
    <div id="wallets" class="wallets" role="group" aria-label="Wallets in this browser"><noscript><p>Adding a wallet needs JavaScript and a browser wallet.</p></noscript></div>
  </section>
  ${passkeySection(config, state.passkeys)}
  <section aria-labelledby="danger-title">
    <h2 id="danger-title">Delete the account</h2>
    <p class="muted small">Ends every sign-in made with its wallets. Needs a signature by the primary wallet from the last 10 minutes.</p>
    <button type="button" data-action="delete" class="danger">Delete my Signet account</button>
  </section>
  <p><button type="button" data-action="signout" class="link">Sign out of this page</button></p>
</main>`
    : html`<main class="card narrow" aria-labelledby="title">
  <h1 id="title">Your Signet account</h1>
  <p>Sign with a wallet to see and manage the wallets of your account at <strong>${config.domain}</strong>.</p>
  <div id="status" class="status" role="status" aria-live="polite"></div>
  <div id="wallets" class="wallets" role="group" aria-label="Wallets in this browser"><noscript><p>Signing in needs JavaScript and a browser wallet.</p></noscript></div>
  <p class="muted small">Signing is free: it is not a transaction and costs no gas.</p>
</main>`;
  return layout({
    title: 'Your Signet account',
    body: html`${body}
<script type="application/json" id="account-state">${raw(JSON.stringify(summary).replace(/</g, '\\u003c'))}</script>`,
    scripts: services.assets.accountScripts,
    stylesheets: services.assets.stylesheets,
  });
}
