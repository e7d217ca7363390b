/**
 * The wallet page's offer of a passkey (details.passkeys: an account client that takes one, where
 * passkeys are on): a field the browser's passkey autofill attaches to (conditional UI), a button
 * for browsers without it, and the form the chosen passkey's answer is posted with (303 onward, as
 * a wallet's form). Hidden until its script (web/src/passkey.ts, loaded on demand) finds WebAuthn.
 * After a refusal for an unknown passkey the section names it, so the script can tell the
 * browser to forget it (PublicKeyCredential.signalUnknownCredential).
 */
import { type Html, html } from '../http/html.ts';
import type { InteractionDetails } from './details.ts';

/** Words for people, for the page's refusals (signin/page.ts). */
export const PASSKEY_ERROR_WORDS: Record<string, string> = {
  PASSKEY_NOT_FOUND:
    'This passkey is not part of a Signet account here (it may have been removed). Use another passkey, or a wallet.',
  PASSKEY_NOT_ALLOWED: 'This site does not take passkeys. Sign in with a wallet.',
  PASSKEY_CHALLENGE_MISMATCH: 'The passkey answered an old or another sign-in’s request. Try the passkey again.',
  PASSKEY_VERIFICATION_FAILED: 'The passkey’s answer could not be verified. Try again, or use a wallet.',
  PASSKEY_COUNTER_REGRESSED:
    'This passkey may have been copied (its use counter went back), so it was refused. Sign in with a wallet, and remove the passkey on your account page if you did not restore it.',
  PASSKEYS_UNAVAILABLE: 'Passkeys are off on this sign-in service. Sign in with a wallet.',
};

export function passkeyOffer(details: InteractionDetails, unknownPasskey?: string): Html | string {
  if (!details.passkeys) return '';
  return html`<section id="passkey" class="passkey" aria-labelledby="passkey-title" hidden${unknownPasskey ? html` data-unknown-credential="${unknownPasskey}"` : ''}>
    <h2 id="passkey-title">Or use a passkey of your Signet account</h2>
    <p class="muted small">A passkey you added on your account page signs you in as your account, without a wallet.</p>
    <div class="passkey-row">
      <label for="passkey-field">Passkey</label>
      <input id="passkey-field" name="username" type="text" autocomplete="username webauthn" placeholder="Choose a passkey">
      <button type="button" id="passkey-button">Sign in with a passkey</button>
    </div>
  </section>
  <form id="passkey-signin" method="post" action="/interaction/${details.uid}/passkey">
    <input type="hidden" name="credential" id="field-credential">
  </form>`;
}
