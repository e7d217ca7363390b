/**
 * Sign in with Solana on the wallet page in a real browser: Debian's Chromium, the provider over
 * real HTTP on both profiles, a Solana wallet registered through the Wallet Standard whose key
 * lives in this test (solana-wallet.ts), beside the Ethereum test wallet; ending at outside client
 * libraries (the reference client, built on openid-client, and openid-client itself).
 */
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { SOLANA_CHAIN_REFERENCES, verifySiwsSignature } from '@signet/siws';
import {
  pkceAuthorization,
  registerPublicClient,
  solanaKeypair,
  startTestProvider,
  TEST_REDIRECT_URI,
  type TestProvider,
} from '@signet/testkit';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextWithWallet, launchChromium, noSeriousViolations, type WalletBehaviour } from './browser.ts';
import { startReferenceClient } from './reference-client.ts';
import { addSolanaWallet, type SolanaWalletBehaviour } from './solana-wallet.ts';

const ARTIFACTS = join(import.meta.dirname, '..', 'artifacts');
const MAINNET = SOLANA_CHAIN_REFERENCES.mainnet;
const DEVNET = SOLANA_CHAIN_REFERENCES.devnet;

/** Both test wallets in one browser context; each behaviour is read at every request. */
function wallets(browser: Browser) {
  let context: BrowserContext | undefined;
  const state: { ethereum: WalletBehaviour; solana: SolanaWalletBehaviour } = {
    ethereum: { account: privateKeyToAccount(generatePrivateKey()), chainId: 1 },
    solana: { keypair: solanaKeypair() },
  };
  return {
    state,
    async page(solana: SolanaWalletBehaviour, ethereum: Partial<WalletBehaviour> = {}) {
      state.solana = { calls: [], ...solana };
      state.ethereum = { account: privateKeyToAccount(generatePrivateKey()), chainId: 1, ...ethereum };
      await context?.close();
      context = await contextWithWallet(browser, () => state.ethereum);
      await addSolanaWallet(context, () => state.solana);
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      const requests: { method: string; url: string }[] = [];
      page.on('request', (request) => requests.push({ method: request.method(), url: request.url() }));
      return { page, problems, requests };
    },
    close: () => context?.close(),
  };
}

const solanaButton = (page: Page) => page.locator('button.wallet', { hasText: '(Solana)' });

/** The self-hosted provider with Solana on, Chromium, the reference client and the wallets; the steps to the sign-in page. */
function selfHostedSolanaPage() {
  let provider: TestProvider;
  let browser: Browser;
  let client: { server: Server; url: string };
  let w: ReturnType<typeof wallets>;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await launchChromium();
    w = wallets(browser);
    // ETH_RPC_URL only so a gated client may register (its chain needs a node); no sign-in here asks it.
    provider = await startTestProvider({ SOLANA_NETWORKS: 'mainnet,devnet', ETH_RPC_URL: 'http://127.0.0.1:9' });
    client = await startReferenceClient(provider.url, ARTIFACTS, () => ({
      CLIENT_NAME: 'Example Shop',
      SCOPE: 'openid profile siwe',
    }));
  });
  afterAll(async () => {
    await w?.close();
    await browser?.close();
    await provider?.stop();
    client?.server.close();
  });

  /** A public client registered with this metadata, and an authorization URL for it (PKCE). */
  async function authorizationFor(metadata: Record<string, unknown>): Promise<string> {
    const registered = await registerPublicClient(provider.url, metadata as Partial<oidc.ClientMetadata>);
    return (await pkceAuthorization(registered)).url.href;
  }

  async function toSignInPage(page: Page) {
    await page.goto(client.url);
    await page.click('#sign-in');
    await page.waitForURL(/\/interaction\//);
    await page.waitForSelector('button.wallet');
  }

  return {
    get provider() {
      return provider;
    },
    get browser() {
      return browser;
    },
    get client() {
      return client;
    },
    get w() {
      return w;
    },
    authorizationFor,
    toSignInPage,
  };
}
type SelfHostedSolanaPage = ReturnType<typeof selfHostedSolanaPage>;

/** Wallets that sign in (solana:signIn, solana:signMessage), and declined signatures. */
function solanaWalletSignInTests(env: SelfHostedSolanaPage) {
  it('solana:signIn: both kinds of wallet in one list; Solana code loads when picked; lands at the client as solana:<mainnet>:<address>', async () => {
    const { client, w, toSignInPage } = env;
    const keypair = solanaKeypair();
    const { page, problems, requests } = await w.page({ keypair });
    await toSignInPage(page);
    expect(await page.textContent('h1')).toContain('Example Shop wants you to sign in with Ethereum or Solana');
    expect(await page.textContent('ul.scopes')).toContain('your Ethereum or Solana address (as your account id)');
    expect(await page.locator('button.wallet').allTextContents()).toEqual([
      'Sign in with Test Wallet',
      'Sign in with Test Solana Wallet (Solana)',
    ]);
    await noSeriousViolations(page);
    expect(requests.some((r) => /\/assets\/solana-.*\.js$/.test(r.url))).toBe(false);

    await solanaButton(page).click();
    await page.waitForURL(`${client.url}/`);
    expect(requests.some((r) => /\/assets\/solana-.*\.js$/.test(r.url))).toBe(true);
    expect(await page.textContent('main')).toContain(`solana:${MAINNET}:${keypair.address}`);
    // The wallet was asked to sign in (it wrote the message itself), nothing else ("describe" is the test wallet's own start in each page).
    expect(w.state.solana.calls?.filter((call) => call !== 'describe')).toEqual(['signIn']);
    expect(problems).toEqual([]);
  });

  it('solana:signMessage when the wallet has no signIn: it connects, signs the text the page built, on the network it has (devnet)', async () => {
    const { client, w, toSignInPage } = env;
    const keypair = solanaKeypair();
    const { page } = await w.page({ keypair, features: ['signMessage'], chains: ['solana:devnet'] });
    await toSignInPage(page);
    await solanaButton(page).click();
    await page.waitForURL(`${client.url}/`);
    expect(await page.textContent('main')).toContain(`solana:${DEVNET}:${keypair.address}`);
    expect(w.state.solana.calls?.filter((call) => call !== 'describe')).toEqual(['connect', 'signMessage']);
  });

  it('declined in the wallet: the page says so in words and offers to try again; then it signs in', async () => {
    const { client, w, toSignInPage } = env;
    const keypair = solanaKeypair();
    const { page } = await w.page({ keypair, rejectSignature: true });
    await toSignInPage(page);
    await solanaButton(page).click();
    await page.waitForSelector('#status.error');
    expect(await page.textContent('#status')).toContain('You declined the request in your wallet. Nothing was signed.');
    w.state.solana.rejectSignature = false;
    await page.click('#status button');
    await page.waitForURL(`${client.url}/`);
    expect(await page.textContent('main')).toContain(keypair.address);
  });
}

/** Wrong messages and refused signatures, a Solana-only client, gated clients and no wallet. */
function solanaWalletRefusalTests(env: SelfHostedSolanaPage) {
  it('a wallet that signs another message than it was given: words, nothing sent; the same sign-in then succeeds', async () => {
    const { client, w, toSignInPage } = env;
    const keypair = solanaKeypair();
    for (const features of [['signIn'], ['signMessage']] as const) {
      const { page, requests } = await w.page({
        keypair,
        features: [...features],
        tamper: (text) => text.replace(/^Sign in to .*$/m, 'Sign in to Another Site.'),
      });
      await toSignInPage(page);
      await solanaButton(page).click();
      await page.waitForSelector('#status.error');
      const words = (await page.textContent('#status')) as string;
      expect(words).toContain('Your wallet signed a different message than the one this page gave it, so nothing was sent.');
      expect(requests.filter((r) => r.method === 'POST' && r.url.includes('/interaction/'))).toEqual([]);
      w.state.solana.tamper = undefined;
      await page.click('#status button');
      await page.waitForURL(`${client.url}/`);
    }
  });

  it('a signature the provider refuses (made by another key): the page explains it in words', async () => {
    const { w, toSignInPage } = env;
    const { page } = await w.page({ keypair: solanaKeypair(), signWith: solanaKeypair() });
    await toSignInPage(page);
    await solanaButton(page).click();
    await page.waitForSelector('#status.error');
    const status = (await page.textContent('#status')) as string;
    expect(status).toContain('Sign-in failed. The signature does not belong to the account in the message.');
    expect(page.url()).toContain('/interaction/');
  });

  it('a Solana-only client, keyboard only: only Solana wallets, the first has focus, Enter signs in; axe finds nothing serious', async () => {
    const { w, authorizationFor } = env;
    const url = await authorizationFor({ client_name: 'Solana Guild', account_namespaces: ['solana'] });
    const { page } = await w.page({ keypair: solanaKeypair() });
    await page.goto(url);
    await page.waitForSelector('button.wallet');
    expect(await page.textContent('h1')).toContain('Solana Guild wants you to sign in with Solana');
    expect(await page.locator('button.wallet').allTextContents()).toEqual(['Sign in with Test Solana Wallet (Solana)']);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toContain('Test Solana Wallet');
    await noSeriousViolations(page);
    await page.screenshot({ path: join(ARTIFACTS, 'wallet-page-solana.png'), fullPage: true });
    const [landed] = await Promise.all([
      page.waitForRequest((request) => request.url().startsWith(`${TEST_REDIRECT_URI}?`)),
      page.keyboard.press('Enter'),
    ]);
    expect(new URL(landed.url()).searchParams.get('code')).toBeTruthy();
  });

  it('a gated client offers no Solana wallet (its conditions are Ethereum holdings)', async () => {
    const { w, authorizationFor } = env;
    const url = await authorizationFor({
      client_name: 'Holders',
      access_conditions: { match: 'all', conditions: [{ type: 'native', chainId: 1, minimum: '1' }] },
    });
    const { page } = await w.page({ keypair: solanaKeypair() });
    await page.goto(url);
    await page.waitForSelector('button.wallet');
    expect(await page.textContent('h1')).toContain('Holders wants you to sign in with Ethereum');
    expect(await page.locator('button.wallet').allTextContents()).toEqual(['Sign in with Test Wallet']);
  });

  it('no wallet of either kind: the page says so', async () => {
    const { client, w } = env;
    const { page } = await w.page({ keypair: solanaKeypair(), absent: true }, { absent: true });
    await page.goto(client.url);
    await page.click('#sign-in');
    await page.waitForSelector('.no-wallet');
    expect(await page.textContent('.no-wallet')).toContain('No Ethereum or Solana wallet was found in this browser.');
  });
}

describe('Sign in with Solana on the wallet page (self-hosted profile, the reference client)', () => {
  const env = selfHostedSolanaPage();
  solanaWalletSignInTests(env);
  solanaWalletRefusalTests(env);
});

describe('Sign in with Solana on the wallet page (hosted profile, openid-client)', () => {
  let provider: TestProvider;
  let browser: Browser;
  let w: ReturnType<typeof wallets>;

  beforeAll(async () => {
    browser = await launchChromium();
    w = wallets(browser);
    provider = await startTestProvider({ PROFILE: 'hosted', SOLANA_NETWORKS: 'mainnet' });
  });
  afterAll(async () => {
    await w?.close();
    await browser?.close();
    await provider?.stop();
  });

  it('a confidential client (client_secret_basic, PKCE, state, nonce): ID token and userinfo name solana:<mainnet>:<address>', async () => {
    const redirectUri = 'http://127.0.0.1:4999/hosted-callback';
    const response = await fetch(`${provider.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [redirectUri], client_name: 'Hosted RP' }),
    });
    const registered = (await response.json()) as { client_id: string; client_secret: string };
    expect(response.status).toBe(201);
    const config = await oidc.discovery(
      new URL(provider.issuer),
      registered.client_id,
      registered.client_secret,
      oidc.ClientSecretBasic(),
      { execute: [oidc.allowInsecureRequests] },
    );
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const { url, verifier } = await pkceAuthorization(config, {
      redirect_uri: redirectUri,
      scope: 'openid profile siwe',
      state,
      nonce,
    });

    const keypair = solanaKeypair();
    const { page } = await w.page({ keypair });
    await page.goto(url.href);
    await page.waitForSelector('button.wallet');
    const [landed] = await Promise.all([
      page.waitForRequest((request) => request.url().startsWith(`${redirectUri}?`)),
      solanaButton(page).click(),
    ]);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(landed.url()), {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    const sub = `solana:${MAINNET}:${keypair.address}`;
    const claims = tokens.claims();
    expect(claims).toMatchObject({ iss: provider.issuer, sub, preferred_username: keypair.address });
    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, sub);
    expect(userinfo).toMatchObject({ sub, preferred_username: keypair.address });
    // The signed message and its signature, as the relying party can check them itself.
    expect(
      verifySiwsSignature({ message: userinfo.siwe_message as string, signature: userinfo.siwe_signature as string }),
    ).toMatchObject({ accountId: sub });
    expect(w.state.solana.calls?.filter((call) => call !== 'describe')).toEqual(['signIn']);
  });
});
