/**
 * oidc-client-ts in a single-page app served from another origin, in real Chromium with the
 * test wallet: sign in (code + PKCE), renew with the refresh token (CORS on discovery, token,
 * userinfo and the key set), sign out through the end-session endpoint.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { insecure, startTestProvider, type TestProvider } from '@signet/testkit';
import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextWithWallet, launchChromium } from '../browser.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const SPA = join(import.meta.dirname, 'spa');

function serveSpa(config: () => string): Promise<{ server: Server; url: string }> {
  const files: Record<string, [string, () => string | Buffer]> = {
    '/': ['text/html', () => readFileSync(join(SPA, 'index.html'))],
    '/callback.html': ['text/html', () => readFileSync(join(SPA, 'index.html'))],
    '/favicon.ico': ['image/svg+xml', () => '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>'],
    '/app.js': ['text/javascript', () => readFileSync(join(SPA, 'app.js'))],
    '/config.js': ['text/javascript', config],
    '/oidc-client-ts.min.js': [
      'text/javascript',
      () => readFileSync(join(ROOT, 'node_modules', 'oidc-client-ts', 'dist', 'browser', 'oidc-client-ts.min.js')),
    ],
  };
  const server = createServer((req, res) => {
    const file = files[new URL(req.url ?? '/', 'http://x').pathname];
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file[0] }).end(file[1]());
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })),
  );
}

describe.each([
  ['hosted', 'openid profile', undefined],
  ['self-hosted', 'openid profile offline_access', 'consent'],
] as const)('oidc-client-ts single-page app on the %s profile', (profile, scope, prompt) => {
  let provider: TestProvider;
  let browser: Browser;
  let spa: { server: Server; url: string };
  let clientId = '';

  beforeAll(async () => {
    [provider, browser] = await Promise.all([startTestProvider({ PROFILE: profile }), launchChromium()]);
    spa = await serveSpa(() => `window.SIGNET = ${JSON.stringify({ authority: provider.issuer, clientId, scope, prompt })};`);
    const client = await oidc.dynamicClientRegistration(
      new URL(provider.issuer),
      {
        redirect_uris: [`${spa.url}/callback.html`],
        post_logout_redirect_uris: [`${spa.url}/`],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        client_name: 'Single-page app',
      },
      undefined,
      insecure,
    );
    clientId = client.clientMetadata().client_id;
  });
  afterAll(async () => {
    await browser?.close();
    spa?.server.close();
    await provider?.stop();
  });

  it('signs in, renews with the refresh token, and signs out', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const context = await contextWithWallet(browser, () => ({ account, chainId: 1 }));
    const page = await context.newPage();
    const failures: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') failures.push(`${m.text()} ${m.location().url}`);
    });
    page.on('response', (r) => {
      if (r.status() >= 400) failures.push(`${r.status()} ${r.url()}`);
    });
    await page.goto(`${spa.url}/`);
    await page.waitForSelector('body[data-state="signed-out"]');

    // Started, not awaited: the page navigates away.
    await page.evaluate(() => {
      void (window as unknown as { signet: { signIn(): Promise<void> } }).signet.signIn();
    });
    await page.waitForURL(/\/interaction\//);
    await page.click('button.wallet');
    await page.waitForSelector('body[data-state="signed-in"]', { timeout: 20_000 });
    expect(await page.textContent('#user')).toBe(`signed in as ${account.address}`);

    const tokens = () =>
      page.evaluate(async () => {
        const user = await (
          window as unknown as {
            signet: { userManager: { getUser(): Promise<{ access_token: string; refresh_token?: string } | null> } };
          }
        ).signet.userManager.getUser();
        return { access: user?.access_token, refresh: user?.refresh_token };
      });
    const before = await tokens();
    expect(before.refresh).toEqual(expect.any(String));
    await page.evaluate(() => (window as unknown as { signet: { refresh(): Promise<unknown> } }).signet.refresh());
    const after = await tokens();
    expect(after.access).toEqual(expect.any(String));
    expect(after.access).not.toBe(before.access);
    // Public clients get rotating refresh tokens.
    expect(after.refresh).not.toBe(before.refresh);

    await page.evaluate(() => {
      void (window as unknown as { signet: { signOut(): Promise<void> } }).signet.signOut();
    });
    await page.waitForURL(new RegExp(`^${new URL(provider.url).origin}/`));
    await page.click('button[name="logout"]');
    await page.waitForURL(`${spa.url}/`);
    await page.evaluate(() =>
      (window as unknown as { signet: { userManager: { removeUser(): Promise<void> } } }).signet.userManager.removeUser(),
    );
    expect(failures).toEqual([]);
    await context.close();
  });
});
