/**
 * The wallet sign-in page, rendered on the server so it shows who asks and what they get
 * before any script runs. The script (built by Vite from web/) finds wallets, builds the
 * EIP-4361 message from the details embedded here, asks the wallet to sign it, and posts it.
 */

import type { DocumentView } from '../clients/metadata-documents/index.ts';
import type { Config } from '../config.ts';
import { deviceVerificationUri } from '../device/paths.ts';
import { type Html, html, layout, raw } from '../http/html.ts';
import type { WebAssets } from '../http/static.ts';
import type { InteractionClient, InteractionDetails } from './details.ts';
import { type AccountNamespace, accountKinds } from './namespaces.ts';
import { PASSKEY_ERROR_WORDS, passkeyOffer } from './passkey-offer.ts';

const SCOPE_WORDS: Record<string, string> = {
  openid: 'your Ethereum address (as your account id)',
  profile: 'your ENS name and avatar, if you have them',
  siwe: 'the message you sign and its signature',
  offline_access: 'access while you are away (a refresh token)',
  wallets: 'the wallets linked to your Signet account',
};

/** The scope in words; the account id names the kinds of account this sign-in takes (Ethereum, Solana, Bitcoin). */
export const describeScope = (scope: string, namespaces: readonly AccountNamespace[] = ['eip155']) =>
  scope === 'openid' && (namespaces.length !== 1 || namespaces[0] !== 'eip155')
    ? `your ${accountKinds(namespaces)} address (as your account id)`
    : (SCOPE_WORDS[scope] ?? scope);

/** What the email scope shares with this client, in words; undefined when it shares nothing. */
function describeEmail(email: InteractionDetails['email'], namespaces: readonly AccountNamespace[]): string | undefined {
  if (!email) return undefined;
  const synthetic = !email.syntheticDomain
    ? undefined
    : namespaces.some((namespace) => namespace !== 'eip155')
      ? `an address made from your account's address, …@${email.syntheticDomain} (not a mailbox)`
      : `an address made from your Ethereum address, 0x…@${email.syntheticDomain} (not a mailbox)`;
  if (!email.ens) return `an email address: ${synthetic}`;
  return synthetic
    ? `an email address: the one in your ENS profile if you set one (unverified), otherwise ${synthetic}`
    : 'the email address in your ENS profile, if you set one (unverified)';
}

/** The page's list of what the client will receive. */
const receivedWords = (details: InteractionDetails) =>
  details.scopes.flatMap((scope) => {
    if (scope === 'openid' && details.accountSubject) {
      return ['your Signet account id (the same whichever of your wallets signs) and the wallet that signed'];
    }
    const words = scope === 'email' ? describeEmail(details.email, details.namespaces) : describeScope(scope, details.namespaces);
    return words ? [words] : [];
  });

/** What each refusal means, for a person. */
const ERROR_WORDS: Record<string, string> = {
  INVALID_SIGNATURE: 'The signature does not belong to the account in the message. Sign again with the same account.',
  RPC_UNAVAILABLE: 'The blockchain could not be reached to check your wallet or holdings just now. Try again in a moment.',
  NONCE_MISMATCH: 'The message was made for another sign-in. Sign the new message.',
  DOMAIN_MISMATCH: 'The message names another website than this sign-in page.',
  URI_MISMATCH: 'The message points to another website than this sign-in page.',
  RESOURCE_MISMATCH: 'The message was made for another application.',
  CHAIN_NOT_ALLOWED: 'Your wallet signed for a network this site does not accept.',
  EXPIRED_MESSAGE: 'The signed message had expired. Sign again.',
  NOT_YET_VALID_MESSAGE: 'The signed message is not valid yet. Check your device clock.',
  ISSUED_IN_FUTURE: 'The message is dated in the future. Check your device clock.',
  MESSAGE_TOO_OLD: 'The signed message is older than this sign-in. Sign again.',
  RATE_LIMITED: 'Too many attempts. Wait a minute, then try again.',
  STORAGE_UNAVAILABLE: 'The sign-in service is having trouble. Try again in a moment.',
  INTERACTION_COMPLETED: 'You already signed in here. Go back to the site.',
  INTERACTION_COOKIE_MISSING:
    'This page must be opened from the site that sent you here (your browser did not send its sign-in cookie).',
  NAMESPACE_NOT_ALLOWED: 'This site does not take this kind of account. Sign in with another wallet.',
  WRONG_NAMESPACE: 'The message is for a kind of account this sign-in does not take. Sign in with another wallet.',
  MESSAGE_MISMATCH: 'Your wallet signed a different message than the one this page gave it. Sign again, or use another wallet.',
  MISSING_FIELD: 'The signed message leaves out part of what this sign-in asked for. Sign again.',
  SIGNATURE_TYPE_MISMATCH:
    'Your wallet signed in a way this kind of Bitcoin address does not sign (for example a legacy signature for a segwit address). Sign again with BIP-322, or use another wallet.',
  MALFORMED_SIGNATURE:
    'Your wallet returned a signature in a form this sign-in does not accept. Sign again, or use another wallet.',
  NON_CANONICAL_SIGNATURE: 'Your wallet returned a signature in a non-standard encoding. Sign again, or use another wallet.',
  UNSUPPORTED_SIGHASH: 'Your wallet signed only part of the sign-in proof. Sign again, or use another wallet.',
  UNSUPPORTED_ADDRESS_TYPE:
    'This kind of Bitcoin address cannot sign in (a script or multisig address). Use a single-key address: bc1q…, bc1p…, 3… or 1….',
  NETWORK_MISMATCH: 'The Bitcoin address belongs to another network than the one in the message. Switch networks in your wallet.',
  CLIENT_DOCUMENT_UNAVAILABLE:
    "The application's description could not be loaded from its website just now. Go back to the application and try again.",
  ...PASSKEY_ERROR_WORDS,
};

export const describeError = (code: string, fallback: string) =>
  ERROR_WORDS[code] ??
  (code.startsWith('INVALID_') || code === 'UNABLE_TO_PARSE' ? 'The signed message is not valid. Sign again.' : fallback);

export type PageState = {
  details?: InteractionDetails;
  error?: { code: string; message: string };
  /** For an expired sign-in: where to send the person back. */
  expiredClient?: InteractionClient;
  expiredRedirectUri?: string;
  /** After PASSKEY_NOT_FOUND: the credential id the browser answered with (the page tells the browser to forget it). */
  unknownPasskey?: string;
};

const siteOf = (client: InteractionClient | undefined, redirectUri?: string): string | undefined => {
  for (const candidate of [client?.client_uri, redirectUri]) {
    try {
      if (candidate) return new URL(candidate).origin;
    } catch {
      // not a URL
    }
  }
  return undefined;
};

function clientHeader(
  client: InteractionClient,
  domain: string,
  redirectHost: string,
  namespaces: readonly AccountNamespace[] = ['eip155'],
  /** A sign-in from another device: the sign-in goes to the device, no browser is sent anywhere. */
  device = false,
): Html {
  const name = client.client_name ?? client.client_id;
  let claimedHost: string | undefined;
  try {
    claimedHost = client.client_uri ? new URL(client.client_uri).host : undefined;
  } catch {
    claimedHost = undefined;
  }
  return html`<header class="who">
  <img class="logo" src="/logo/${encodeURIComponent(client.client_id)}" alt="" width="56" height="56">
  <div>
    <h1 id="title"><span class="client-name">${name}</span> wants you to sign in with ${accountKinds(namespaces)}</h1>
    <p class="muted">through <strong>${domain}</strong>${client.client_uri && claimedHost ? html` · <a href="${client.client_uri}" rel="noopener noreferrer" target="_blank">${claimedHost}</a>` : ''}</p>
    ${
      device
        ? html`<p class="destination">After you sign, the sign-in goes to <strong>${name}</strong> on your other device, not to this browser.</p>`
        : html`<p class="destination">After you sign, you will be sent to <strong class="redirect-host">${redirectHost}</strong></p>`
    }
    ${
      !device && claimedHost && claimedHost !== redirectHost
        ? html`<p class="warning" role="note">This site says it is <strong>${claimedHost}</strong>, but signing in sends you to <strong>${redirectHost}</strong>. Continue only if you trust ${redirectHost}.</p>`
        : ''
    }
  </div>
</header>`;
}

/**
 * The header for a client known by its metadata document: the host that served the document is
 * who asks; the name is the document's own (self-described); a document whose every redirect URI
 * is a loopback one belongs to a program on this computer, and the page says so.
 */
function documentClientHeader(details: InteractionDetails, document: DocumentView, device: boolean): Html {
  const { client } = details;
  return html`<header class="who">
  <img class="logo" src="/logo/${encodeURIComponent(client.client_id)}" alt="" width="56" height="56">
  <div>
    <h1 id="title"><span class="client-host">${document.host}</span> wants you to sign in with ${accountKinds(details.namespaces)}</h1>
    <p class="muted">through <strong>${details.domain}</strong>${client.client_name ? html` · calls itself <strong class="client-name">${client.client_name}</strong> (self-described)` : ''}</p>
    ${
      device
        ? html`<p class="destination">After you sign, the sign-in goes to <strong>${document.host}</strong> on your other device, not to this browser.</p>`
        : html`<p class="destination">After you sign, you will be sent to <strong class="redirect-host">${details.redirectHost}</strong></p>`
    }
    ${
      document.loopbackOnly
        ? html`<p class="warning" role="note">This is a program on this computer, not a website: it receives the sign-in at <strong>${details.redirectHost}</strong>. Continue only if you started this sign-in from a program you trust.</p>`
        : ''
    }
  </div>
</header>`;
}

export function renderInteractionPage(services: { config: Config; assets: WebAssets }, state: PageState): string {
  const { details, error } = state;
  if (!details) {
    const back = siteOf(state.expiredClient, state.expiredRedirectUri);
    const expired = error?.code === 'INTERACTION_EXPIRED';
    return layout({
      title: expired ? 'Sign-in expired' : 'Sign-in not found',
      stylesheets: services.assets.stylesheets,
      body: html`<main class="card narrow" aria-labelledby="title">
  <h1 id="title">${expired ? 'This sign-in has expired' : 'This sign-in cannot continue'}</h1>
  <p role="alert">${error ? describeError(error.code, error.message) : 'Start again from the site you came from.'}</p>
  ${back ? html`<p><a class="button primary" href="${back}">Back to ${state.expiredClient?.client_name ?? new URL(back).host}</a></p>` : ''}
  ${error ? html`<p class="muted"><code>${error.code}</code></p>` : ''}
</main>`,
    });
  }
  const { client, metadataDocument: document } = details;
  const device = details.resources[0] === deviceVerificationUri(services.config);
  // Who asks, as the page names it: a document's host, else the registered name.
  const asker = document?.host ?? client.client_name;
  const body = html`<main class="card" aria-labelledby="title">
  ${document ? documentClientHeader(details, document, device) : clientHeader(client, details.domain, details.redirectHost, details.namespaces, device)}
  ${
    details.requires
      ? html`<section class="requires" aria-labelledby="requires-title">
    <h2 id="requires-title">Only holders may sign in</h2>
    <p>${details.requiresMatch === 'any' ? 'Your account must hold one of:' : details.requires.length > 1 ? 'Your account must hold all of:' : 'Your account must hold:'}</p>
    <ul class="conditions">${details.requires.map((words) => html`<li>${words}</li>`)}</ul>
  </section>`
      : ''
  }
  <section aria-labelledby="asks">
    <h2 id="asks">${asker ?? 'This site'} will receive</h2>
    <ul class="scopes">${receivedWords(details).map((words) => html`<li>${words}</li>`)}</ul>
    ${
      client.policy_uri || client.tos_uri
        ? html`<p class="muted links">${client.policy_uri ? html`<a href="${client.policy_uri}" rel="noopener noreferrer" target="_blank">Privacy policy</a>` : ''}${client.policy_uri && client.tos_uri ? ' · ' : ''}${client.tos_uri ? html`<a href="${client.tos_uri}" rel="noopener noreferrer" target="_blank">Terms</a>` : ''}</p>`
        : ''
    }
  </section>
  <div id="status" class="status${error ? ' error' : ''}" role="status" aria-live="polite">${error ? html`<strong>Sign-in failed.</strong> ${describeError(error.code, error.message)} <span class="muted small">(<code>${error.code}</code>)</span>` : ''}</div>
  <section id="wallets" aria-label="Wallets" class="wallets">
    <noscript><p>Signing in needs JavaScript and a browser wallet.</p></noscript>
  </section>
  ${passkeyOffer(details, state.unknownPasskey)}
  ${
    details.walletConnectProjectId
      ? html`<dialog id="walletconnect" aria-labelledby="walletconnect-title">
    <h2 id="walletconnect-title">Scan with your phone's wallet</h2>
    <div id="walletconnect-qr" class="qr"></div>
    <p><a id="walletconnect-link" href="#">Open in a wallet on this device</a></p>
    <form method="dialog"><button type="submit">Close</button></form>
  </dialog>`
      : ''
  }
  <details id="message-preview" class="preview" hidden>
    <summary>Message you will sign</summary>
    <pre id="message-text"></pre>
  </details>
  <form id="signin" method="post" action="/interaction/${details.uid}">
    <input type="hidden" name="message" id="field-message">
    <input type="hidden" name="signature" id="field-signature">
  </form>
  <form id="abort" method="post" action="/interaction/${details.uid}/abort">
    <button type="submit" class="link">Cancel and go back</button>
  </form>
  <p class="muted small">Signing is free: it is not a transaction and costs no gas. <a href="/account" target="_blank" rel="noopener">Your Signet account: add another wallet</a></p>
</main>
<script type="application/json" id="interaction-details">${raw(JSON.stringify(details).replace(/</g, '\\u003c'))}</script>`;
  return layout({
    title: `Sign in to ${asker ?? details.domain}`,
    body,
    scripts: services.assets.scripts,
    stylesheets: services.assets.stylesheets,
  });
}
