/**
 * ERC-7846 `wallet_connect` with `signInWithEthereum` on the wallet page, in Debian's Chromium,
 * from the reference client's "Sign in" to its signed-in page over real HTTP. The injected test
 * wallet (e2e/browser.ts) counts the prompts it shows: one for a wallet that connects and signs in
 * at once, two for one that cannot (connect, then sign). A wallet that answers with another message
 * than the one asked for is refused on the page, and nothing is posted. The code for it loads only
 * when a wallet is picked, so the page's initial script stays within its budget.
 */
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { startTestProvider, type TestProvider } from '@signet/testkit';
import axe from 'axe-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_SCRIPT_BUDGET_GZIP, pageScriptSizes } from '../apps/provider/web/size.ts';
import { contextWithWallet, launchChromium, type WalletBehaviour } from './browser.ts';
import { startReferenceClient } from './reference-client.ts';

const ROOT = join(import.meta.dirname, '..');
const ARTIFACTS = join(ROOT, 'artifacts');
const DIST = join(ROOT, 'apps', 'provider', 'web', 'dist');

let provider: TestProvider;
let browser: Browser;
let client: { server: Server; url: string };
let wallet: WalletBehaviour;
let context: BrowserContext | undefined;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
  provider = await startTestProvider();
  client = await startReferenceClient(provider.url, ARTIFACTS, () => ({ CLIENT_NAME: 'One Prompt Shop' }));
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await provider?.stop();
  client?.server.close();
});

/** A fresh browser with the test wallet behaving as `behaviour`, on the sign-in page; what the page requests is recorded. */
async function freshPage(behaviour: Omit<WalletBehaviour, 'prompts'>) {
  wallet = { ...behaviour, prompts: [] };
  await context?.close();
  context = await contextWithWallet(browser, () => wallet);
  const page = await context.newPage();
  const requests: { method: string; url: string }[] = [];
  page.on('request', (request) => requests.push({ method: request.method(), url: request.url() }));
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(client.url);
  await page.click('#sign-in');
  await page.waitForURL(/\/interaction\//);
  await page.waitForSelector('button.wallet');
  return { page, requests, problems };
}

const onePromptChunk = (requests: { url: string }[]) => requests.some(({ url }) => /\/assets\/one-prompt-[^/]*\.js$/.test(url));
const landed = async (page: Page) => {
  await page.waitForURL(`${client.url}/`);
  return page.textContent('main');
};

describe('one prompt: ERC-7846 wallet_connect on the wallet page, in Chromium', () => {
  it('a wallet with wallet_connect: one prompt, and the person lands signed in; its code loaded only on the click', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const { page, requests, problems } = await freshPage({ account, chainId: 1, walletConnect: 'sign-in' });
    expect(onePromptChunk(requests)).toBe(false);
    await page.click('button.wallet');
    expect(await landed(page)).toContain(`eip155:1:${account.address}`);
    expect(wallet.prompts).toEqual(['wallet_connect']);
    expect(onePromptChunk(requests)).toBe(true);
    expect(problems).toEqual([]);
  });

  it('a wallet without it: two prompts (connect, then sign), as before', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const { page } = await freshPage({ account, chainId: 1 });
    await page.click('button.wallet');
    expect(await landed(page)).toContain(`eip155:1:${account.address}`);
    expect(wallet.prompts).toEqual(['eth_requestAccounts', 'personal_sign']);
  });

  it('a wallet with wallet_connect that ignores signInWithEthereum: it connects, then the page has it sign (two prompts)', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const { page } = await freshPage({ account, chainId: 1, walletConnect: 'connect-only' });
    await page.click('button.wallet');
    expect(await landed(page)).toContain(`eip155:1:${account.address}`);
    expect(wallet.prompts).toEqual(['wallet_connect', 'personal_sign']);
  });

  it('a wallet that answers another message: the page says so, posts nothing, and stays usable; axe finds nothing serious', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const { page, requests } = await freshPage({ account, chainId: 1, walletConnect: 'other-message' });
    await page.click('button.wallet');
    await page.waitForSelector('#status.error');
    const status = (await page.textContent('#status')) as string;
    expect(status).toContain('Your wallet signed a different message than the one this page gave it (its statement differs)');
    expect(status).toContain('nothing was sent');
    expect(requests.filter(({ method, url }) => method === 'POST' && url.includes('/interaction/'))).toEqual([]);
    expect(page.url()).toContain('/interaction/');
    expect(wallet.prompts).toEqual(['wallet_connect']);
    await page.evaluate(axe.source);
    const results = await page.evaluate(() =>
      (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] }),
    );
    expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);

    // The same wallet, now answering what was asked: signs in from the same page.
    wallet.walletConnect = 'sign-in';
    await page.click('#status button');
    expect(await landed(page)).toContain(`eip155:1:${account.address}`);
  });

  it('the page’s initial script stays within its budget; wallet_connect is an on-demand chunk', () => {
    const sizes = pageScriptSizes(DIST);
    expect(sizes.initial.gzipBytes).toBeLessThanOrEqual(PAGE_SCRIPT_BUDGET_GZIP);
    expect(sizes.initial.files.some((file) => file.includes('one-prompt'))).toBe(false);
    expect(sizes.onDemand.files.some((file) => file.includes('one-prompt'))).toBe(true);
    expect(pageScriptSizes(DIST, 'src/account.ts').initial.gzipBytes).toBeLessThanOrEqual(PAGE_SCRIPT_BUDGET_GZIP);
  });
});
