/**
 * The wallet sign-in page in a real browser, from a relying party's "Sign in" to its signed-in
 * page: Debian's Chromium, the provider and the reference client over real HTTP, a real local
 * chain for contract wallets and ENS, and a test wallet injected into the page.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startTestchain, type Testchain } from '@signet/testchain';
import { startTestProvider, type TestProvider } from '@signet/testkit';
import axe from 'axe-core';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextWithWallet, launchChromium, type WalletBehaviour } from './browser.ts';
import { listen, startReferenceClient } from './reference-client.ts';

const ROOT = join(import.meta.dirname, '..');
const ARTIFACTS = join(ROOT, 'artifacts');
/** README's pictures of the sign-in page: made by this test, committed with the code. */
const README_PICTURES = { desktop: 'docs/wallet-page.png', phone: 'docs/wallet-page-phone.png' } as const;
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201fd5ab4a70000000049454e44ae426082',
  'hex',
);

/**
 * A local chain, the provider, the reference client, an avatar server and Chromium; a fresh page with
 * a wallet of a given behaviour, and the steps to the sign-in page and back.
 */
function walletPageBrowser() {
  let chain: Testchain;
  let provider: TestProvider;
  let browser: Browser;
  let client: { server: Server; url: string };
  let avatars: { server: Server; url: string };
  let wallet: WalletBehaviour;
  let context: BrowserContext;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    [chain, browser, avatars] = await Promise.all([
      startTestchain({ chainId: 1 }),
      launchChromium(),
      listen((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(PNG)),
    ]);
    provider = await startTestProvider({ ETH_RPC_URL: chain.url, ALLOW_PRIVATE_FETCH: 'true', ENS_TIMEOUT_MS: '5000' });
    client = await startReferenceClient(provider.url, ARTIFACTS, (url) => ({
      LOGO_URI: `${url}/logo.svg`,
      CLIENT_NAME: 'Example Shop',
      POLICY_URI: `${url}/privacy`,
      TOS_URI: `${url}/terms`,
    }));
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await provider?.stop();
    await chain?.stop();
    client?.server.close();
    avatars?.server.close();
  });

  async function freshPage(behaviour: WalletBehaviour, viewport = { width: 1280, height: 900 }) {
    wallet = behaviour;
    await context?.close();
    context = await contextWithWallet(browser, () => wallet, { viewport });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    return { page, problems };
  }

  /** From the client's page to the provider's sign-in page. */
  async function toSignInPage(page: Page) {
    await page.goto(client.url);
    await page.click('#sign-in');
    await page.waitForURL(/\/interaction\//);
    await page.waitForSelector('button.wallet');
  }

  const signInAndLand = async (page: Page) => {
    await page.click('button.wallet');
    await page.waitForURL(`${client.url}/`);
    return page.textContent('main');
  };

  return {
    get chain() {
      return chain;
    },
    get provider() {
      return provider;
    },
    get browser() {
      return browser;
    },
    get client() {
      return client;
    },
    get avatars() {
      return avatars;
    },
    get wallet() {
      return wallet;
    },
    get context() {
      return context;
    },
    freshPage,
    toSignInPage,
    signInAndLand,
  };
}
type WalletPageBrowser = ReturnType<typeof walletPageBrowser>;

/** Sign-ins that land at the client: EOAs, a second client, the keyboard, ENS and contract wallets. */
function signInTests(env: WalletPageBrowser) {
  it('EOA: from "Sign in" at the client to its signed-in page; the page loads nothing from third parties', async () => {
    const { provider, client, freshPage, toSignInPage, signInAndLand } = env;
    const account = privateKeyToAccount(generatePrivateKey());
    const { page, problems } = await freshPage({ account, chainId: 1 });
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    await toSignInPage(page);

    // Who asks, and what they get, in plain words.
    const text = (await page.textContent('main')) as string;
    expect(text).toContain('Example Shop wants you to sign in with Ethereum');
    expect(text).toContain(new URL(provider.url).host);
    expect(text).toContain('your ENS name and avatar');
    expect(await page.getAttribute('a[href$="/privacy"]', 'href')).toBe(`${client.url}/privacy`);
    expect(await page.getAttribute('a[href$="/terms"]', 'href')).toBe(`${client.url}/terms`);
    expect(await page.textContent('button.wallet')).toContain('Test Wallet');

    const onProviderPage = requests.filter((url) => url.startsWith(provider.url) && !url.includes('/auth?'));
    const thirdParty = requests.filter(
      (url) => !url.startsWith(provider.url) && !url.startsWith(client.url) && !url.startsWith('data:'),
    );
    expect(onProviderPage.some((url) => url.includes('/logo/'))).toBe(true);
    expect(thirdParty).toEqual([]);

    const landed = await signInAndLand(page);
    expect(landed).toContain(`eip155:1:${account.address}`);
    expect(landed).toContain(`${account.address.slice(0, 6)}…${account.address.slice(-4)}`);
    expect(problems).toEqual([]);
  });

  it('another account signs for a second client in the same session: the browser gets through the logout-first step', async () => {
    const { provider, client, freshPage, toSignInPage, signInAndLand } = env;
    const first = privateKeyToAccount(generatePrivateKey());
    const { page, problems } = await freshPage({ account: first, chainId: 1 });
    await toSignInPage(page);
    await signInAndLand(page);
    // A second client (its redirect URI on the reference client's host) asks; the wallet now holds another account.
    const registered = await (
      await fetch(`${provider.url}/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [`${client.url}/second/callback`], client_name: 'Second Site' }),
      })
    ).json();
    const url = new URL(`${provider.url}/auth`);
    url.search = new URLSearchParams({
      client_id: registered.client_id,
      redirect_uri: `${client.url}/second/callback`,
      response_type: 'code',
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    }).toString();
    await page.goto(url.href);
    await page.waitForSelector('button.wallet');
    env.wallet.account = privateKeyToAccount(generatePrivateKey());
    const [callback] = await Promise.all([
      page.waitForRequest((r) => r.url().startsWith(`${client.url}/second/callback?`)),
      page.click('button.wallet'),
    ]);
    expect(new URL(callback.url()).searchParams.get('code')).toBeTruthy();
    expect(problems.filter((p) => /Content Security Policy/i.test(p))).toEqual([]);
  });

  it('keyboard only: the first wallet has focus, Enter signs in', async () => {
    const { client, freshPage, toSignInPage } = env;
    const account = privateKeyToAccount(generatePrivateKey());
    const { page } = await freshPage({ account, chainId: 1 });
    await toSignInPage(page);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toContain('Test Wallet');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${client.url}/`);
    expect(await page.textContent('main')).toContain(account.address.slice(0, 6));
  });

  it('ENS: the client shows the name and the avatar', async () => {
    const { chain, avatars, freshPage, toSignInPage, signInAndLand } = env;
    const account = privateKeyToAccount(generatePrivateKey());
    await chain.setEnsName(account.address, 'carol.eth', { avatar: `${avatars.url}/carol.png` });
    const { page } = await freshPage({ account, chainId: 1 });
    await toSignInPage(page);
    expect(await signInAndLand(page)).toContain('carol.eth');
    expect(await page.getAttribute('img.avatar', 'src')).toBe(`${avatars.url}/carol.png`);
  });

  it('EIP-1271: a deployed contract wallet signs in', async () => {
    const { chain, freshPage, toSignInPage, signInAndLand } = env;
    const owner = privateKeyToAccount(generatePrivateKey());
    const address = await chain.deployWallet(owner.address, 21n);
    const { page } = await freshPage({ account: owner, address, chainId: 1 });
    await toSignInPage(page);
    expect(await signInAndLand(page)).toContain(`eip155:1:${address}`);
  });

  it('EIP-6492: a wallet that is not deployed yet signs in', async () => {
    const { chain, freshPage, toSignInPage, signInAndLand } = env;
    const owner = privateKeyToAccount(generatePrivateKey());
    const counterfactual = await chain.counterfactualWallet(owner.address, 22n);
    const { page } = await freshPage({
      account: owner,
      address: counterfactual.address,
      chainId: 1,
      wrap: (signature) => chain.wrap6492(signature, counterfactual),
    });
    await toSignInPage(page);
    expect(await signInAndLand(page)).toContain(`eip155:1:${counterfactual.address}`);
  });
}

/** Declined and refused sign-ins, expiry, gated clients, cancelling, and no wallet. */
function refusalAndGatedTests(env: WalletPageBrowser) {
  it('the user declines the signature: the page says so and offers to try again', async () => {
    const { freshPage, toSignInPage } = env;
    const { page } = await freshPage({ account: privateKeyToAccount(generatePrivateKey()), chainId: 1, rejectSignature: true });
    await toSignInPage(page);
    await page.click('button.wallet');
    await page.waitForSelector('#status.error');
    expect(await page.textContent('#status')).toContain('You declined the request in your wallet');
    expect(await page.isVisible('#status button')).toBe(true);
    expect(page.url()).toContain('/interaction/');
  });

  it('a wallet on a chain that is not allowed: switch refused is explained; switch accepted signs in', async () => {
    const { freshPage, toSignInPage, signInAndLand } = env;
    const account = privateKeyToAccount(generatePrivateKey());
    const { page } = await freshPage({ account, chainId: 137, allowSwitch: false });
    await toSignInPage(page);
    await page.click('button.wallet');
    await page.waitForSelector('#status.error');
    expect(await page.textContent('#status')).toMatch(/Polygon.*Ethereum/);

    const switching = await freshPage({ account, chainId: 137, allowSwitch: true });
    await toSignInPage(switching.page);
    expect(await signInAndLand(switching.page)).toContain(`eip155:1:${account.address}`);
    expect(env.wallet.chainId).toBe(1);
  });

  it('an expired sign-in says so and links back to the site', async () => {
    const { provider, client, freshPage, toSignInPage } = env;
    const { page } = await freshPage({ account: privateKeyToAccount(generatePrivateKey()), chainId: 1 });
    await toSignInPage(page);
    // Let the interaction's 10 minutes pass: move its expiry into the past in storage.
    const uid = new URL(page.url()).pathname.split('/')[2] as string;
    const { store } = provider.app.services;
    const key = `oidc:Interaction:${uid}`;
    const record = JSON.parse((await store.get(key)) as string);
    record.exp = Math.floor(Date.now() / 1000) - 60; // beyond oidc-provider's 15 s clock tolerance
    await store.set(key, JSON.stringify(record), 3600);
    await page.click('button.wallet');
    await page.waitForSelector('h1:has-text("expired")', { timeout: 10_000 });
    expect(await page.textContent('main')).toContain('This sign-in has expired');
    expect(await page.getAttribute('a.button', 'href')).toBe(client.url);
  });

  it('a gated client: the page shows what to hold before signing, refuses a non-holder in words, and lets a holder in', async () => {
    const { chain, provider, freshPage } = env;
    const token = await chain.deployToken('erc721');
    const callback = 'http://127.0.0.1:4999/callback';
    const registered = await fetch(`${provider.url}/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: [callback],
        token_endpoint_auth_method: 'none',
        client_name: 'Holders Forum',
        access_conditions: { match: 'all', conditions: [{ type: 'erc721', chainId: 1, contract: token.address }] },
      }),
    });
    expect(registered.status).toBe(201);
    const { client_id } = (await registered.json()) as { client_id: string };
    const authorize = `${provider.url}/auth?${new URLSearchParams({
      client_id,
      redirect_uri: callback,
      response_type: 'code',
      scope: 'openid',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    })}`;
    const words = `a token of the ERC-721 collection ${token.address} on chain 1`;
    const account = privateKeyToAccount(generatePrivateKey());

    const { page } = await freshPage({ account, chainId: 1 });
    await page.goto(authorize);
    await page.waitForSelector('button.wallet');
    const requires = (await page.textContent('section.requires')) as string;
    expect(requires).toContain('Only holders may sign in');
    expect(requires).toContain(words);
    // Shown with who asks, before the wallet buttons.
    expect(
      await page.evaluate(() => {
        const section = document.querySelector('section.requires');
        const wallets = document.getElementById('wallets');
        return Boolean(section && wallets && section.compareDocumentPosition(wallets) & Node.DOCUMENT_POSITION_FOLLOWING);
      }),
    ).toBe(true);
    await page.click('button.wallet');
    await page.waitForSelector('#status.error');
    const refusal = (await page.textContent('#status')) as string;
    expect(refusal).toContain(`this site requires ${words}`);
    expect(refusal).toContain('ACCESS_CONDITION_NOT_MET');

    await token.mint(account.address, { id: 1n });
    const landed = page.waitForRequest((request) => request.url().startsWith(`${callback}?code=`));
    await page.waitForSelector('button.wallet');
    await page.click('button.wallet');
    expect(new URL((await landed).url()).searchParams.get('code')).toBeTruthy();
  });

  it('Cancel ends at the client with access_denied (through the provider’s page, in a browser new to the client)', async () => {
    const { client, freshPage, toSignInPage } = env;
    const { page } = await freshPage({ account: privateKeyToAccount(generatePrivateKey()), chainId: 1 });
    await toSignInPage(page);
    await page.click('text=Cancel and go back');
    // This browser has not signed in to the client: the provider names where the answer goes.
    await page.waitForSelector('text=Sign-in cancelled');
    await page.click(`text=Continue to ${new URL(client.url).host}`);
    await page.waitForURL(new RegExp(`^${client.url}/\\?error=access_denied`));
    expect(await page.textContent('main')).toContain('access_denied');
  });

  it('no wallet: the page says how to get one', async () => {
    const { client, freshPage } = env;
    const { page } = await freshPage({ account: privateKeyToAccount(generatePrivateKey()), chainId: 1, absent: true });
    await page.goto(client.url);
    await page.click('#sign-in');
    await page.waitForSelector('.no-wallet');
    expect(await page.textContent('.no-wallet')).toContain('No Ethereum wallet was found');
    expect(await page.getAttribute('.no-wallet a', 'href')).toMatch(/^https:\/\/ethereum\.org\//);
  });
}

/** Screenshots, accessibility, README pictures and the Content-Security-Policy. */
function lookAndPolicyTests(env: WalletPageBrowser) {
  it('screenshots at desktop and phone width, and no serious accessibility violations (axe-core)', async () => {
    const { freshPage, toSignInPage } = env;
    for (const [name, viewport] of [
      ['desktop', { width: 1280, height: 900 }],
      ['phone', { width: 390, height: 844 }],
    ] as const) {
      const { page } = await freshPage({ account: privateKeyToAccount(generatePrivateKey()), chainId: 1 }, viewport);
      await toSignInPage(page);
      await page.screenshot({ path: join(ARTIFACTS, `wallet-page-${name}.png`), fullPage: true });
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width).toBeLessThanOrEqual(viewport.width);
      // axe runs through the DevTools protocol, which the page's CSP does not block.
      await page.evaluate(axe.source);
      const results = await page.evaluate(() =>
        (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] }),
      );
      const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(serious.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    }
  });

  it("README's pictures of the sign-in page (docs/wallet-page.png, -phone.png) are this page, as a person sees it", async () => {
    const { client } = env;
    // A provider named as in production (id.example.com) and a relying party (shop.localhost):
    // Chromium maps the name to the provider's loopback port, so the picture shows no test port
    // and is the same from run to run.
    const shown = await startTestProvider({ ISSUER: 'http://id.example.com', ALLOW_PRIVATE_FETCH: 'true' });
    const { port } = shown.server.address() as AddressInfo;
    const named = await launchChromium([`--host-rules=MAP id.example.com 127.0.0.1:${port}`]);
    try {
      const registration = await fetch(`http://127.0.0.1:${port}/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          redirect_uris: ['http://shop.localhost/callback'],
          token_endpoint_auth_method: 'none',
          client_name: 'Example Shop',
          client_uri: 'http://shop.localhost',
          logo_uri: `${client.url}/logo.svg`,
          policy_uri: 'http://shop.localhost/privacy',
          tos_uri: 'http://shop.localhost/terms',
        }),
      });
      const { client_id } = (await registration.json()) as { client_id: string };
      const authorization = new URL('http://id.example.com/auth');
      authorization.search = new URLSearchParams({
        client_id,
        response_type: 'code',
        redirect_uri: 'http://shop.localhost/callback',
        scope: 'openid profile',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      }).toString();
      for (const [name, viewport] of [
        ['desktop', { width: 1280, height: 900 }],
        ['phone', { width: 390, height: 844 }],
      ] as const) {
        const context = await contextWithWallet(
          named,
          () => ({ account: privateKeyToAccount(generatePrivateKey()), chainId: 1 }),
          {
            viewport,
          },
        );
        try {
          const page = await context.newPage();
          await page.goto(authorization.href);
          await page.waitForSelector('button.wallet');
          await page.waitForFunction(() => [...document.images].every((image) => image.complete));
          expect(await page.textContent('main')).toContain('Example Shop wants you to sign in with Ethereum');
          expect(await page.textContent('main')).toContain('id.example.com');
          const picture = await page.screenshot({ fullPage: true });
          const path = join(ROOT, README_PICTURES[name]);
          // Written only when it changed, so an unchanged page leaves the working tree clean.
          if (!readFileSync(path, { flag: 'a+' }).equals(picture)) writeFileSync(path, picture);
        } finally {
          await context.close();
        }
      }
    } finally {
      await named.close();
      await shown.stop();
    }
  });

  it("README's front shows the committed pictures", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const front = readme.slice(0, readme.indexOf('\n## '));
    for (const picture of Object.values(README_PICTURES)) {
      expect(front).toContain(`src="${picture}"`);
      // Committed, not only written by a run of this test.
      expect(() => execFileSync('git', ['ls-files', '--error-unmatch', picture], { cwd: ROOT, stdio: 'pipe' })).not.toThrow();
    }
  });

  it('strict Content-Security-Policy on the page: no inline script, no eval, no framing', async () => {
    const { freshPage, toSignInPage } = env;
    const { page } = await freshPage({ account: privateKeyToAccount(generatePrivateKey()), chainId: 1 });
    await toSignInPage(page);
    const response = await page.reload();
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).toContain("frame-ancestors 'none'");
    // An inline script injected into the page does not run, and the browser reports why.
    const outcome = await page.evaluate(
      () =>
        new Promise<{ ran: boolean; violation?: string }>((resolve) => {
          let violation: string | undefined;
          document.addEventListener('securitypolicyviolation', (event) => {
            violation = event.violatedDirective;
          });
          const script = document.createElement('script');
          script.textContent = 'window.__inlineRan = true';
          document.body.append(script);
          setTimeout(
            () => resolve({ ran: (window as unknown as { __inlineRan?: boolean }).__inlineRan === true, violation }),
            100,
          );
        }),
    );
    expect(outcome).toEqual({ ran: false, violation: expect.stringMatching(/^script-src/) });
  });
}

describe('the wallet sign-in page in Chromium', () => {
  const env = walletPageBrowser();
  signInTests(env);
  refusalAndGatedTests(env);
  lookAndPolicyTests(env);
});

describe('WalletConnect is offered only when configured, and loaded only when used', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  async function interactionPage(provider: TestProvider, context: BrowserContext) {
    const registered = await (
      await fetch(`${provider.url}/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:4999/cb'], client_name: 'WC test' }),
      })
    ).json();
    const verifier = oidc.randomPKCECodeVerifier();
    const url = new URL(`${provider.url}/auth`);
    url.search = new URLSearchParams({
      client_id: registered.client_id,
      redirect_uri: 'http://127.0.0.1:4999/cb',
      response_type: 'code',
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    const page = await context.newPage();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(url.href);
    await page.waitForSelector('#wallets button, #wallets .no-wallet');
    return { page, requests };
  }

  it('without WALLETCONNECT_PROJECT_ID: no WalletConnect button, its code never requested', async () => {
    const provider = await startTestProvider();
    const context = await contextWithWallet(browser, () => ({ account: privateKeyToAccount(generatePrivateKey()), chainId: 1 }));
    try {
      const { page, requests } = await interactionPage(provider, context);
      expect(await page.locator('button.wallet', { hasText: 'WalletConnect' }).count()).toBe(0);
      expect(requests.some((url) => url.includes('walletconnect'))).toBe(false);
    } finally {
      await context.close();
      await provider.stop();
    }
  });

  it('with WALLETCONNECT_PROJECT_ID: a button; the chunk loads on click only, and the relay is allowed by the CSP', async () => {
    const provider = await startTestProvider({ WALLETCONNECT_PROJECT_ID: 'test-project-id' });
    const context = await contextWithWallet(browser, () => ({
      account: privateKeyToAccount(generatePrivateKey()),
      chainId: 1,
      absent: true,
    }));
    try {
      const { page, requests } = await interactionPage(provider, context);
      const button = page.locator('button.wallet', { hasText: 'WalletConnect' });
      expect(await button.count()).toBe(1);
      expect(requests.some((url) => /\/assets\/walletconnect-.*\.js$/.test(url))).toBe(false);
      const csp = (await page.request.get(page.url(), { headers: { accept: 'text/html' } })).headers()['content-security-policy'];
      expect(csp).toContain('wss://relay.walletconnect.com');
      await Promise.all([page.waitForRequest(/\/assets\/walletconnect-.*\.js$/), button.click()]);
      // No relay can be reached from here: the page must say so rather than hang silently.
      await page.waitForSelector('#status.error', { timeout: 20_000 });
      expect(await page.textContent('#status')).toMatch(/WalletConnect|wallet/i);
    } finally {
      await context.close();
      await provider.stop();
    }
  });
});
