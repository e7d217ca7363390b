/** The try-it page and its built script (web/dist, made by `npm install` through Vite). */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type PageAssets = { files: Record<string, { type: string; content: string }> };

const DIST = join(import.meta.dirname, '..', 'web', 'dist');

export function loadPageAssets(directory = DIST): PageAssets {
  const files: PageAssets['files'] = {};
  for (const [name, type] of [
    ['app.js', 'text/javascript; charset=utf-8'],
    ['style.css', 'text/css; charset=utf-8'],
  ] as const) {
    const file = join(directory, name);
    if (!existsSync(file)) throw new Error(`the page is not built (${file} missing): run npm install`);
    files[`/${name}`] = { type, content: readFileSync(file, 'utf8') };
  }
  return { files };
}

export function pageHtml(assets?: PageAssets): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign-In with Ethereum: session example</title>
${assets ? '<link rel="stylesheet" href="/style.css">\n<script type="module" src="/app.js"></script>' : ''}
</head>
<body>
<h1>Sign-In with Ethereum</h1>
<p>Application A: a cookie session, verified with <code>@signet/siwe</code>.</p>
<p id="who" aria-live="polite">${assets ? 'Loading…' : 'The page script is not built: run npm install.'}</p>
<p><button id="sign-in" type="button">Sign in with your wallet</button> <button id="sign-out" type="button" hidden>Sign out</button></p>
<p id="status" role="status" aria-live="polite"></p>
</body>
</html>`;
}
