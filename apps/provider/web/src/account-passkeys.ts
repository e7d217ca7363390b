/**
 * The account page's passkeys, loaded on demand where the page has its passkeys section: "Add a
 * passkey" (the creation options, the browser's WebAuthn dialog, the new credential posted with
 * its name) and Remove. A change that asks for a fresh wallet signature first gets it through the
 * page's own confirmation (account.ts), then runs again. On load the browser is told which passkeys
 * the account still accepts (PublicKeyCredential.signalAllAcceptedCredentials, where it exists).
 */
import { browserSupportsWebAuthn, sendSignal, startRegistration } from '@simplewebauthn/browser';
import { $, type Say } from './wallets.ts';

export type PasskeyState = { rpId: string; userHandle?: string; ids: string[] };

type Failure = { error?: string; error_description?: string };

export type PasskeyHooks = {
  say: Say;
  call(method: string, path: string, body?: unknown): Promise<Response>;
  /** Asks a wallet of the account for a fresh signature, then runs `retry`. */
  confirm(words: string, retry: () => void): void;
};

async function failureOf(response: Response): Promise<Failure> {
  return ((await response.json().catch(() => ({}))) ?? {}) as Failure;
}

/** Answers a refused request: a fresh wallet signature, then `retry`; or the provider's words. */
async function refused(hooks: PasskeyHooks, response: Response, retry: () => void) {
  const { error, error_description } = await failureOf(response);
  if (error === 'REAUTHENTICATION_REQUIRED') {
    hooks.confirm(
      `${error_description ?? 'Confirm it is you first.'} Sign with a wallet of your account, then it goes on.`,
      retry,
    );
    return;
  }
  hooks.say(error_description ?? `The provider answered ${response.status}.`, 'error');
}

async function addPasskey(hooks: PasskeyHooks, name: string) {
  const retry = () => addPasskey(hooks, name);
  const options = await hooks.call('POST', '/account/passkeys/options');
  if (!options.ok) return refused(hooks, options, retry);
  hooks.say('Create the passkey in the browser’s window…', 'busy');
  let credential: Awaited<ReturnType<typeof startRegistration>>;
  try {
    credential = await startRegistration({ optionsJSON: await options.json() });
  } catch (error) {
    const named = (error as { name?: string }).name;
    return hooks.say(
      named === 'InvalidStateError'
        ? 'This authenticator already holds a passkey of this account.'
        : named === 'NotAllowedError'
          ? 'No passkey was made (the request was cancelled or timed out).'
          : `The passkey could not be made: ${(error as Error).message}`,
      'error',
    );
  }
  const saved = await hooks.call('POST', '/account/passkeys', { ...credential, ...(name ? { name } : {}) });
  if (!saved.ok) return refused(hooks, saved, retry);
  hooks.say('The passkey was added.');
  window.location.reload();
}

async function removePasskey(hooks: PasskeyHooks, id: string) {
  const response = await hooks.call('DELETE', `/account/passkeys/${encodeURIComponent(id)}`);
  if (!response.ok) return refused(hooks, response, () => removePasskey(hooks, id));
  hooks.say('The passkey was removed.');
  window.location.reload();
}

export function bindPasskeys(state: PasskeyState | undefined, hooks: PasskeyHooks) {
  if (!state || !$('passkeys')) return;
  if (state.userHandle) {
    sendSignal({
      signalName: 'allAcceptedCredentials',
      rpID: state.rpId,
      userID: state.userHandle,
      allAcceptedCredentialIDs: state.ids,
    }).catch(() => {});
  }
  const form = $('passkey-add') as HTMLFormElement | null;
  if (form && !browserSupportsWebAuthn()) {
    form.replaceWith(Object.assign(document.createElement('p'), { textContent: 'This browser cannot make passkeys.' }));
  }
  form?.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = (($('passkey-name') as HTMLInputElement | null)?.value ?? '').trim();
    addPasskey(hooks, name).catch((error) => hooks.say(`The passkey could not be added: ${(error as Error).message}`, 'error'));
  });
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-passkey-action="remove"]')) {
    const id = button.dataset.passkey ?? '';
    button.addEventListener('click', () => {
      removePasskey(hooks, id).catch((error) =>
        hooks.say(`The passkey could not be removed: ${(error as Error).message}`, 'error'),
      );
    });
  }
  // Its controls work from now on (tests wait for this).
  $('passkeys')?.setAttribute('data-ready', '');
}
