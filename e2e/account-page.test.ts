/**
 * The person's account page in a real browser (Debian's Chromium): an Ethereum test wallet
 * (EIP-6963) and a Solana test wallet (Wallet Standard) in one browser; the person signs in to an
 * `account_subject` client with the Ethereum wallet, opens /account from the sign-in page's link,
 * adds the Solana wallet, and signs in to the same client with it: one `sub`. The page is
 * axe-clean at desktop and phone width, works from the keyboard, and runs under the strict CSP.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  pkceAuthorization,
  registerPublicClient,
  solanaKeypair,
  startTestProvider,
  TEST_REDIRECT_URI,
  type TestProvider,
} from '@signet/testkit';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextWithWallet, launchChromium, noSeriousViolations, type WalletBehaviour } from './browser.ts';
import { addSolanaWallet, type SolanaWalletBehaviour } from './solana-wallet.ts';

const ARTIFACTS = join(import.meta.dirname, '..', 'artifacts');

describe('the account page in Chromium: one person, an Ethereum and a Solana wallet, one sub', () => {
  let provider: TestProvider;
  let browser: Browser;
  let context: BrowserContext;
  let client: oidc.Configuration;
  const ethereum: WalletBehaviour = { account: privateKeyToAccount(generatePrivateKey()), chainId: 1 };
  const solana: SolanaWalletBehaviour = { keypair: solanaKeypair(), name: 'Test Solana Wallet' };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await launchChromium();
    provider = await startTestProvider({ SOLANA_NETWORKS: 'mainnet' });
    client = await registerPublicClient(provider.url, {
      account_subject: true,
      account_namespaces: ['eip155', 'solana'],
    } as never);
    context = await contextWithWallet(browser, () => ethereum);
    await addSolanaWallet(context, () => solana);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await provider?.stop();
  });

  /**
   * A sign-in to the account client in a page of its own (it ends on the client's address, where
   * nothing listens), with the wallet whose button says `walletText`; returns the ID token's claims.
   */
  async function signIn(walletText: string | RegExp) {
    const { url, verifier } = await pkceAuthorization(client, { scope: 'openid wallets', prompt: 'login' });
    const page = await context.newPage();
    await page.goto(url.href);
    // Nothing listens at the redirect URI: the request the browser makes there carries the code.
    const [landed] = await Promise.all([
      page.waitForRequest((request) => request.url().startsWith(`${TEST_REDIRECT_URI}?`)),
      page.locator('button.wallet', { hasText: walletText }).first().click(),
    ]);
    const callback = landed.url();
    await page.close();
    const tokens = await oidc.authorizationCodeGrant(client, new URL(callback as string), { pkceCodeVerifier: verifier });
    return tokens.claims() as Record<string, unknown>;
  }

  it('signs in with Ethereum, links the Solana wallet on /account, and signs in with it as the same account', async () => {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    const first = await signIn('Sign in with Test Wallet');
    expect(first.sub).toMatch(/^acct_/);
    expect(first.wallet).toBe(`eip155:0:${ethereum.account.address}`);

    // The sign-in page links to the account page.
    const { url } = await pkceAuthorization(client, { prompt: 'login' });
    await page.goto(url.href);
    const link = page.locator('a[href="/account"]');
    expect(await link.textContent()).toContain('add another wallet');

    await page.goto(`${provider.url}/account`);
    await page.waitForSelector('.wallet-row');
    expect(await page.locator('.wallet-row').count()).toBe(1);
    expect(await page.textContent('.wallet-list')).toContain(ethereum.account.address);
    // The Solana wallet signs the link message; the page reloads with both wallets.
    await Promise.all([page.waitForEvent('load'), page.locator('#wallets button.wallet', { hasText: '(Solana)' }).click()]);
    await page.waitForSelector('.wallet-row:nth-child(2)');
    expect(await page.locator('.wallet-row').count()).toBe(2);
    expect(await page.textContent('.wallet-list')).toContain(solana.keypair.address);

    const second = await signIn('(Solana)');
    expect(second.sub).toBe(first.sub);
    expect(second.wallet).toMatch(/^solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:/);
    expect(second.wallets).toEqual([first.wallet, second.wallet]);
    expect(problems).toEqual([]);
  });

  it('is axe-clean at desktop and phone width, keyboard-usable, and under the strict CSP', async () => {
    for (const [name, viewport] of [
      ['desktop', { width: 1280, height: 900 }],
      ['phone', { width: 390, height: 844 }],
    ] as const) {
      const page = await context.newPage();
      await page.setViewportSize(viewport);
      const response = await page.goto(`${provider.url}/account`);
      expect(response?.headers()['content-security-policy']).toMatch(/script-src 'self'/);
      expect(response?.headers()['content-security-policy']).not.toContain('unsafe-inline');
      await page.waitForSelector('#wallets button');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      await page.screenshot({ path: join(ARTIFACTS, `account-page-${name}.png`), fullPage: true });
      await noSeriousViolations(page);
      // From the keyboard: every control is reachable by Tab and shows focus.
      const reached = new Set<string>();
      for (let i = 0; i < 20; i++) {
        await page.keyboard.press('Tab');
        reached.add(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.textContent?.trim() ?? ''));
      }
      expect([...reached].some((text) => text.startsWith('Add'))).toBe(true);
      expect([...reached]).toContain('Delete my Signet account');
      await page.close();
    }
    // Without a sign-in in this browser: the page asks for a wallet signature first (and is clean too).
    const fresh = await browser.newContext();
    try {
      const page = await fresh.newPage();
      await page.goto(`${provider.url}/account`);
      expect(await page.textContent('h1')).toBe('Your Signet account');
      expect(await page.textContent('main')).toContain('Sign with a wallet');
      await noSeriousViolations(page);
    } finally {
      await fresh.close();
    }
  });
});
