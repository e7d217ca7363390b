/** The reference client's one page: a sign-in button, or who is signed in. No script. */
import { html } from 'hono/html';
import type { SessionUser } from './session.ts';

export const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64"><rect width="64" height="64" rx="14" fill="#3b4cca"/><path d="M32 10 18 33l14 8 14-8z" fill="#fff" opacity=".9"/><path d="m18 36 14 18 14-18-14 8z" fill="#fff" opacity=".7"/></svg>`;

export const STYLES = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: Canvas; color: CanvasText; }
main { max-width: 30rem; padding: 2rem; text-align: center; }
.avatar { width: 96px; height: 96px; border-radius: 50%; object-fit: cover; }
.button { display: inline-block; padding: .75rem 1.25rem; border-radius: 10px; background: #3b4cca; color: #fff; text-decoration: none; font-weight: 600; }
.secondary { background: transparent; color: inherit; border: 1px solid currentColor; }
button.button { font: inherit; cursor: pointer; border: 0; }
button.secondary { border: 1px solid currentColor; }
code { word-break: break-all; }
.error { background: #fdecec; color: #8a1c1c; padding: .75rem; border-radius: 10px; }
`;

const shortAddress = (sub: string) => {
  const address = sub.split(':').pop() ?? sub;
  return /^0x[0-9a-fA-F]{40}$/.test(address) ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
};

export function renderHome(state: {
  user?: SessionUser;
  /** The session's CSRF token, for the sign-out form. */
  csrf?: string;
  error?: string;
  errorDescription?: string;
  issuer: string;
  name: string;
}) {
  const { user } = state;
  const display = user
    ? user.preferredUsername === user.sub.split(':').pop()
      ? shortAddress(user.sub)
      : user.preferredUsername
    : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${state.name}</title>
<link rel="stylesheet" href="/styles.css">
<link rel="icon" href="/logo.svg">
</head>
<body>
<main>
<img src="/logo.svg" alt="" width="64" height="64">
<h1>${state.name}</h1>
${state.error ? html`<p class="error" role="alert">Sign-in failed: ${state.errorDescription ?? state.error} (<code>${state.error}</code>)</p>` : ''}
${
  user
    ? html`${user.picture ? html`<img class="avatar" src="${user.picture}" alt="Avatar of ${display}">` : ''}
<p>Signed in as <strong id="name">${display}</strong></p>
<p><code id="sub">${user.sub}</code></p>
<form method="post" action="/api/auth/logout"><input type="hidden" name="csrf" value="${state.csrf ?? ''}"><button class="button secondary" type="submit">Sign out</button></form>`
    : html`<p>This example app lets you sign in with your Ethereum wallet through <a href="${state.issuer}">${new URL(state.issuer).host}</a>.</p>
<p><a class="button" id="sign-in" href="/api/auth/login">Sign in with Ethereum</a></p>`
}
</main>
</body>
</html>`;
}

/** GET /api/auth/logout that this site's page did not send: the person confirms, or nothing happens. */
export function renderLogoutConfirmation(state: { name: string; csrf: string }) {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign out of ${state.name}?</title>
<link rel="stylesheet" href="/styles.css">
</head>
<body>
<main>
<h1>Sign out of ${state.name}?</h1>
<form method="post" action="/api/auth/logout"><input type="hidden" name="csrf" value="${state.csrf}"><button class="button" type="submit">Sign out</button></form>
<p><a href="/">Stay signed in</a></p>
</main>
</body>
</html>`;
}
