/**
 * The passkeys section of the account page (account-page/page.ts renders it; its script is
 * web/src/account-passkeys.ts, loaded on demand): the account's passkeys, each with its Remove
 * button, and "Add a passkey" with an optional name. Absent where passkeys are off.
 */
import type { Account } from '../accounts/accounts.ts';
import { type Passkey, passkeyRpId } from '../accounts/passkeys.ts';
import type { Config } from '../config.ts';
import { type Html, html } from '../http/html.ts';

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** What the page's script needs: the relying party and user handle (to tell the browser which passkeys are still accepted). */
export function passkeyState(
  config: Pick<Config, 'origin' | 'accountMaxPasskeys'>,
  account: Account,
  passkeys: readonly Passkey[],
) {
  const rpId = passkeyRpId(config);
  return rpId ? { rpId, userHandle: account.userHandle, ids: passkeys.map((passkey) => passkey.id) } : undefined;
}

function passkeyRow(passkey: Passkey): Html {
  const kind = passkey.deviceType === 'multiDevice' ? (passkey.backedUp ? 'synced' : 'may be synced') : 'on one device only';
  return html`<li class="wallet-row" data-passkey="${passkey.id}">
    <div class="wallet-name"><strong>${passkey.name}</strong></div>
    <div class="muted small">${kind} · added ${day(passkey.createdAt)}${passkey.lastUsedAt ? html` · last used ${day(passkey.lastUsedAt)}` : ' · not used yet'}</div>
    <div class="actions"><button type="button" data-passkey-action="remove" data-passkey="${passkey.id}" aria-label="Remove the passkey ${passkey.name}">Remove</button></div>
  </li>`;
}

export function passkeySection(
  config: Pick<Config, 'origin' | 'accountMaxPasskeys'>,
  passkeys: readonly Passkey[],
): Html | string {
  if (!passkeyRpId(config)) return '';
  const full = passkeys.length >= config.accountMaxPasskeys;
  return html`<section id="passkeys" aria-labelledby="passkeys-title">
    <h2 id="passkeys-title">Passkeys</h2>
    <p class="muted small">A passkey signs you in as this account where your wallet is not at hand, at sites that know you by your Signet account. It cannot add or remove wallets, change the primary wallet or delete the account: those always take a wallet's signature.</p>
    ${passkeys.length > 0 ? html`<ul class="wallet-list">${passkeys.map(passkeyRow)}</ul>` : html`<p class="small">No passkey yet.</p>`}
    ${
      full
        ? html`<p class="muted small">This account holds the most passkeys it may (${config.accountMaxPasskeys}); remove one to add another.</p>`
        : html`<form id="passkey-add" class="passkey-row">
      <label for="passkey-name">Name (optional)</label>
      <input id="passkey-name" name="name" type="text" maxlength="64" autocomplete="off" placeholder="e.g. Work laptop">
      <button type="submit">Add a passkey</button>
    </form>
    <p class="muted small">Adding one needs a signature by a wallet of this account from the last 10 minutes.</p>`
    }
  </section>`;
}
