/**
 * The pages of a sign-in from another device, rendered on the server in the wallet page's style
 * (one stylesheet, no script, strict CSP): the code entry, the confirmation (the code shown, the
 * client named, the remote-phishing warning of RFC 8628 §5.4), the end ("return to your device")
 * and the refusals. Every form posts to the verification URI itself.
 */
import { type Html, html, layout } from '../http/html.ts';

export type ClientView = { client_id: string; client_name?: string; client_uri?: string };

/** Why a code was not taken, for a person. */
export type EntryProblem = 'wrong' | 'expired' | 'used' | 'missing' | 'form' | 'failed' | { words: string };

const PROBLEM_WORDS: Record<Exclude<EntryProblem, { words: string }>, string> = {
  wrong: 'That code is not right. Check the code your device shows and enter it again.',
  expired: 'That code has expired. Start again on your device to get a new code.',
  used: 'That code was already used. Start again on your device to get a new code.',
  missing: 'Enter the code your device shows.',
  form: 'This page was open too long, or in another tab. Enter the code again.',
  failed: 'This sign-in could not be finished. Start again on your device to get a new code.',
};

export const problemWords = (problem: EntryProblem) => (typeof problem === 'string' ? PROBLEM_WORDS[problem] : problem.words);

const nameOf = (client: ClientView) => client.client_name ?? client.client_id;

function hostOf(uri: string | undefined): string | undefined {
  try {
    return uri ? new URL(uri).host : undefined;
  } catch {
    return undefined;
  }
}

type Common = { stylesheets: string[]; domain: string };

/** The code entry: one field, one button, the problem with the last code (if any) read out. */
export function entryPage(options: Common & { action: string; xsrf: string; code?: string; problem?: EntryProblem }): string {
  const problem = options.problem === undefined ? undefined : problemWords(options.problem);
  return layout({
    title: 'Sign in on another device',
    stylesheets: options.stylesheets,
    body: html`<main class="card narrow" aria-labelledby="title">
  <h1 id="title">Sign in on another device</h1>
  <p>Enter the code your device (a TV, a terminal, a command-line program) shows. You then sign with your wallet here, and the device is signed in.</p>
  ${problem ? html`<p id="problem" class="status error" role="alert">${problem}</p>` : ''}
  <form method="post" action="${options.action}" class="device-form">
    <input type="hidden" name="xsrf" value="${options.xsrf}">
    <label for="user_code">Code from your device</label>
    <input id="user_code" class="code-input" type="text" name="user_code" value="${options.code ?? ''}" placeholder="BCDF-GHJK" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="32" required autofocus${problem ? html` aria-invalid="true" aria-describedby="problem"` : ''}>
    <div class="actions"><button class="primary" type="submit">Continue</button></div>
  </form>
  <p class="muted small">Signing is free: it is not a transaction and costs no gas. Only enter a code from a device in front of you, through <strong>${options.domain}</strong>.</p>
</main>`,
  });
}

/**
 * The confirmation: the code as the device shows it, who asks, where the sign-in goes, and the
 * warning against codes someone else sent. `fromLink`: the code came in the URL
 * (verification_uri_complete) rather than typed, which is how a remote attacker would send it.
 */
export function confirmPage(
  options: Common & {
    action: string;
    xsrf: string;
    userCode: string;
    client: ClientView;
    fromLink: boolean;
    device?: { ip?: string; ua?: string };
  },
): string {
  const { client } = options;
  const name = nameOf(client);
  const claimedHost = hostOf(client.client_uri);
  const requested = [options.device?.ip, options.device?.ua?.slice(0, 80)].filter(Boolean).join(' · ');
  return layout({
    title: `Sign in to ${name} on your device`,
    stylesheets: options.stylesheets,
    body: html`<main class="card narrow" aria-labelledby="title">
  <header class="who">
    <img class="logo" src="/logo/${encodeURIComponent(client.client_id)}" alt="" width="56" height="56">
    <div>
      <h1 id="title"><span class="client-name">${name}</span> on a device wants you to sign in</h1>
      <p class="muted">through <strong>${options.domain}</strong>${claimedHost ? html` · the client says it is <strong>${claimedHost}</strong>` : ''}</p>
    </div>
  </header>
  <p>${options.fromLink ? 'The link you opened carries this code.' : 'You entered this code.'} Check that your device shows exactly:</p>
  <p class="user-code">${options.userCode}</p>
  <p class="warning" role="note"><strong>Continue only if the device showing this code is in front of you.</strong> If someone sent you this ${options.fromLink ? 'link' : 'code'}, or asked you to enter it, stop: continuing would sign their device in to your account.</p>
  <p class="destination">After you sign, the sign-in goes to <strong>${name}</strong> on that device, not to this browser.</p>
  ${requested ? html`<p class="muted small">The device asked from ${requested}.</p>` : ''}
  <form method="post" action="${options.action}" class="actions">
    <input type="hidden" name="xsrf" value="${options.xsrf}">
    <input type="hidden" name="user_code" value="${options.userCode}">
    <button class="primary" type="submit" name="confirm" value="yes">Continue: my device shows this code</button>
    <button type="submit" name="abort" value="yes">Cancel</button>
  </form>
</main>`,
  });
}

/** The end of a device sign-in: nothing more happens in this browser. */
export function successPage(options: Common & { client?: ClientView }): string {
  const name = options.client ? nameOf(options.client) : undefined;
  return layout({
    title: 'You can return to your device',
    stylesheets: options.stylesheets,
    body: html`<main class="card narrow" aria-labelledby="title">
  <h1 id="title">You can return to your device</h1>
  <p role="status">You signed in${name ? html` to <strong>${name}</strong>` : ''} on your device. It picks up the sign-in by itself within a few seconds.</p>
  <p class="muted">You can close this page.</p>
</main>`,
  });
}

/** The person cancelled (here, or on the wallet page): the device is told access was denied. */
export function cancelledPage(options: Common): string {
  return layout({
    title: 'Sign-in cancelled',
    stylesheets: options.stylesheets,
    body: html`<main class="card narrow" aria-labelledby="title">
  <h1 id="title">Sign-in cancelled</h1>
  <p role="status">Your device is told that you declined. You can close this page.</p>
</main>`,
  });
}

/** A refusal that offers no form: too many tries, or a code another request is already using. */
export function refusalPage(options: Common & { title: string; words: string | Html; action: string }): string {
  return layout({
    title: options.title,
    stylesheets: options.stylesheets,
    body: html`<main class="card narrow" aria-labelledby="title">
  <h1 id="title">${options.title}</h1>
  <p role="alert">${options.words}</p>
  <p><a class="button" href="${options.action}">Enter a code</a></p>
</main>`,
  });
}
