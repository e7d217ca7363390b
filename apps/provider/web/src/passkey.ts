/**
 * A passkey of the person's Signet account on the wallet page, loaded on demand (only where the
 * details offer one: an account client that takes passkeys). With WebAuthn's autofill (conditional
 * UI) the browser offers the account's passkeys in the page's passkey field; the button asks for
 * one in a dialog where autofill is missing or not wanted. The chosen passkey's answer is posted
 * with the page's form (303 onward, as a wallet's form). After a refusal for a passkey the
 * provider does not know, the browser is told (PublicKeyCredential.signalUnknownCredential, where
 * it exists), so it may stop offering that passkey.
 */
import {
  type AuthenticationResponseJSON,
  browserSupportsWebAuthn,
  browserSupportsWebAuthnAutofill,
  type PublicKeyCredentialRequestOptionsJSON,
  sendSignal,
  startAuthentication,
  WebAuthnAbortService,
} from '@simplewebauthn/browser';
import { $, type Details, type Say } from './wallets.ts';

/** Fresh request options: each challenge is used once, so every attempt asks for its own. */
async function requestOptions(uid: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const response = await fetch(`/interaction/${encodeURIComponent(uid)}/passkey`, {
    headers: { accept: 'application/json' },
    credentials: 'same-origin',
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok)
    throw new Error((body as { error_description?: string }).error_description ?? `the provider answered ${response.status}`);
  return body as PublicKeyCredentialRequestOptionsJSON;
}

function submit(credential: AuthenticationResponseJSON, say: Say) {
  say('Verifying your passkey…', 'busy');
  ($('field-credential') as HTMLInputElement).value = JSON.stringify(credential);
  ($('passkey-signin') as HTMLFormElement | null)?.submit();
}

/** Why a passkey request ended without a passkey, for a person. */
function explainPasskey(error: unknown): string {
  const name = (error as { name?: string } | undefined)?.name;
  if (name === 'NotAllowedError') return 'No passkey was used (the request was cancelled or timed out).';
  return `The passkey could not be used: ${(error as Error | undefined)?.message ?? String(error)}`;
}

export async function offerPasskey(details: Details, say: Say): Promise<void> {
  const section = $('passkey');
  if (!section || !details.uid || !browserSupportsWebAuthn()) return;
  section.hidden = false;
  // The provider knows no passkey by the id the browser answered with last time: let the browser forget it.
  const unknown = section.dataset.unknownCredential;
  if (unknown) sendSignal({ signalName: 'unknownCredential', rpID: location.hostname, credentialID: unknown }).catch(() => {});
  // Autofill waits in the passkey field until the person picks a passkey there (or the button
  // cancels it). Not offered again right after the provider refused an unknown passkey.
  const autofill = !unknown && (await browserSupportsWebAuthnAutofill());
  let run = 0;
  let pending: Promise<void> | undefined;
  const listen = () => {
    if (!autofill) return;
    const mine = ++run;
    pending = requestOptions(details.uid)
      .then((optionsJSON) => (mine === run ? startAuthentication({ optionsJSON, useBrowserAutofill: true }) : undefined))
      .then((credential) => credential && submit(credential, say))
      .catch(() => {}); // cancelled by the button, or the person went another way
  };
  /** Ends the waiting autofill request before another one starts (a browser takes one at a time). */
  const stopListening = async () => {
    run++;
    WebAuthnAbortService.cancelCeremony();
    await pending;
  };
  const button = $('passkey-button') as HTMLButtonElement | null;
  button?.addEventListener('click', async () => {
    button.disabled = true;
    await stopListening();
    try {
      say('Choose a passkey in the browser’s window…', 'busy');
      const credential = await startAuthentication({ optionsJSON: await requestOptions(details.uid) });
      submit(credential, say);
    } catch (error) {
      say(explainPasskey(error), 'error');
      listen();
    } finally {
      button.disabled = false;
    }
  });
  listen();
}
