/**
 * Sign in with Bitcoin on the wallet page in a real browser: Debian's Chromium, the provider over
 * real HTTP on both profiles, a Bitcoin wallet injected in the shapes real wallets have (the Wallet
 * Standard's `bitcoin:signMessage`, `window.unisat`, a sats-connect provider) whose key lives in
 * this test (bitcoin-wallet.ts), beside the Ethereum test wallet; ending at outside client
 * libraries (the reference client, built on openid-client, and openid-client itself).
 */
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { BITCOIN_CHAIN_REFERENCES, verifySiwbSignature } from '@signet/siwb';
import {
  bitcoinKey,
  pkceAuthorization,
  registerPublicClient,
  startTestProvider,
  TEST_REDIRECT_URI,
  type TestProvider,
} from '@signet/testkit';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addBitcoinWallet, type BitcoinWalletBehaviour } from './bitcoin-wallet.ts';
import { contextWithWallet, launchChromium, noSeriousViolations, type WalletBehaviour } from './browser.ts';
import { startReferenceClient } from './reference-client.ts';

const ARTIFACTS = join(import.meta.dirname, '..', 'artifacts');
const MAINNET = BITCOIN_CHAIN_REFERENCES.mainnet;
const SIGNET = BITCOIN_CHAIN_REFERENCES.signet;

/** Both test wallets in one browser context; each behaviour is read at every request. */
function wallets(browser: Browser) {
  let context: BrowserContext | undefined;
  const state: { ethereum: WalletBehaviour; bitcoin: BitcoinWalletBehaviour } = {
    ethereum: { account: privateKeyToAccount(generatePrivateKey()), chainId: 1 },
    bitcoin: { key: bitcoinKey(), shape: 'standard' },
  };
  return {
    state,
    async page(bitcoin: BitcoinWalletBehaviour, ethereum: Partial<WalletBehaviour> = {}) {
      state.bitcoin = { calls: [], ...bitcoin };
      state.ethereum = { account: privateKeyToAccount(generatePrivateKey()), chainId: 1, ...ethereum };
      await context?.close();
      context = await contextWithWallet(browser, () => state.ethereum);
      await addBitcoinWallet(context, () => state.bitcoin);
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      const requests: { method: string; url: string }[] = [];
      page.on('request', (request) => requests.push({ method: request.method(), url: request.url() }));
      return { page, problems, requests };
    },
    /** What the page asked of the Bitcoin wallet (its own start, "describe", left out). */
    calls: () => state.bitcoin.calls?.filter((call) => call !== 'describe'),
    close: () => context?.close(),
  };
}

const bitcoinButton = (page: Page) => page.locator('button.wallet', { hasText: '(Bitcoin)' });
const bitcoinChunk = (requests: { url: string }[]) => requests.some((r) => /\/assets\/bitcoin-.*\.js$/.test(r.url));

/** The self-hosted provider with Bitcoin on, Chromium, the reference client and the wallets; the steps to the sign-in page. */
function selfHostedBitcoinPage() {
  let provider: TestProvider;
  let browser: Browser;
  let client: { server: Server; url: string };
  let w: ReturnType<typeof wallets>;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await launchChromium();
    w = wallets(browser);
    // ETH_RPC_URL only so a gated client may register (its chain needs a node); no sign-in here asks it.
    provider = await startTestProvider({ BITCOIN_NETWORKS: 'mainnet,signet', ETH_RPC_URL: 'http://127.0.0.1:9' });
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
type SelfHostedBitcoinPage = ReturnType<typeof selfHostedBitcoinPage>;

/** Each kind of Bitcoin wallet and address signs in. */
function bitcoinWalletSignInTests(env: SelfHostedBitcoinPage) {
  it('Wallet Standard, Taproot (P2TR): both kinds of wallet in one list; Bitcoin code loads when picked; lands as bip122:<mainnet>:<bc1p…>', async () => {
    const { client, w, toSignInPage } = env;
    const key = bitcoinKey();
    const { page, problems, requests } = await w.page({ key, shape: 'standard', type: 'p2tr' });
    await toSignInPage(page);
    expect(await page.textContent('h1')).toContain('Example Shop wants you to sign in with Ethereum or Bitcoin');
    expect(await page.textContent('ul.scopes')).toContain('your Ethereum or Bitcoin address (as your account id)');
    expect(await page.locator('button.wallet').allTextContents()).toEqual([
      'Sign in with Test Wallet',
      'Sign in with Test Bitcoin Wallet (Bitcoin)',
    ]);
    await noSeriousViolations(page);
    expect(bitcoinChunk(requests)).toBe(false);

    await bitcoinButton(page).click();
    await page.waitForURL(`${client.url}/`);
    expect(bitcoinChunk(requests)).toBe(true);
    const address = key.address('p2tr');
    expect(address).toMatch(/^bc1p/);
    expect(await page.textContent('main')).toContain(`bip122:${MAINNET}:${address}`);
    expect(w.calls()).toEqual(['connect', 'sign']);
    expect(problems).toEqual([]);
  });

  it('Unisat (window.unisat), native segwit (P2WPKH): BIP-322 simple is asked for; lands as bip122:<mainnet>:<bc1q…>', async () => {
    const { client, w, toSignInPage } = env;
    const key = bitcoinKey();
    const { page } = await w.page({ key, shape: 'unisat', type: 'p2wpkh' });
    await toSignInPage(page);
    expect(await bitcoinButton(page).textContent()).toBe('Sign in with Unisat (Bitcoin)');
    await bitcoinButton(page).click();
    await page.waitForURL(`${client.url}/`);
    expect(await page.textContent('main')).toContain(`bip122:${MAINNET}:${key.address('p2wpkh')}`);
    expect(w.calls()).toEqual(['connect', 'sign:bip322-simple']);
  });

  it('a sats-connect provider (window.btc_providers), nested segwit (P2SH-P2WPKH): signMessage with protocol BIP322', async () => {
    const { client, w, toSignInPage } = env;
    const key = bitcoinKey();
    const { page } = await w.page({ key, shape: 'sats', type: 'p2sh-p2wpkh', name: 'Test Sats Wallet' });
    await toSignInPage(page);
    // Listed once, though reachable two ways (btc_providers, and as Xverse's default provider).
    expect(await page.locator('button.wallet').allTextContents()).toEqual([
      'Sign in with Test Wallet',
      'Sign in with Test Sats Wallet (Bitcoin)',
    ]);
    await bitcoinButton(page).click();
    await page.waitForURL(`${client.url}/`);
    expect(await page.textContent('main')).toContain(`bip122:${MAINNET}:${key.address('p2sh-p2wpkh')}`);
    expect(w.calls()).toEqual(['connect', 'sign:BIP322']);
  });

  it('a legacy address (P2PKH) through Unisat: the legacy form (BIP-137, "ecdsa") is asked for, and signs in', async () => {
    const { client, w, toSignInPage } = env;
    const key = bitcoinKey();
    const { page } = await w.page({ key, shape: 'unisat', type: 'p2pkh' });
    await toSignInPage(page);
    await bitcoinButton(page).click();
    await page.waitForURL(`${client.url}/`);
    expect(await page.textContent('main')).toContain(`bip122:${MAINNET}:${key.address('p2pkh')}`);
    expect(w.calls()).toEqual(['connect', 'sign:ecdsa']);
  });

  it('a test address on signet (Unisat says which test network): lands as bip122:<signet>:<tb1…>', async () => {
    const { client, w, toSignInPage } = env;
    const key = bitcoinKey();
    const { page } = await w.page({ key, shape: 'unisat', type: 'p2tr', network: 'signet' });
    await toSignInPage(page);
    await bitcoinButton(page).click();
    await page.waitForURL(`${client.url}/`);
    expect(await page.textContent('main')).toContain(`bip122:${SIGNET}:${key.address('p2tr', 'signet')}`);
  });
}

/** Declined and refused signatures, a Bitcoin-only client, gated clients and no wallet. */
function bitcoinWalletRefusalTests(env: SelfHostedBitcoinPage) {
  it('declined in the wallet: the page says so in words and offers to try again; then it signs in', async () => {
    const { client, w, toSignInPage } = env;
    const key = bitcoinKey();
    const { page } = await w.page({ key, shape: 'sats', rejectSignature: true });
    await toSignInPage(page);
    await bitcoinButton(page).click();
    await page.waitForSelector('#status.error');
    expect(await page.textContent('#status')).toContain('You declined the request in your wallet. Nothing was signed.');
    w.state.bitcoin.rejectSignature = false;
    await page.click('#status button');
    await page.waitForURL(`${client.url}/`);
    expect(await page.textContent('main')).toContain(key.address('p2wpkh'));
  });

  it('a signature the provider refuses (a Taproot signature for a bc1q address): the page explains it in words, and stays', async () => {
    const { w, toSignInPage } = env;
    const { page } = await w.page({ key: bitcoinKey(), shape: 'standard', type: 'p2wpkh', signAs: 'p2tr' });
    await toSignInPage(page);
    await bitcoinButton(page).click();
    await page.waitForSelector('#status.error');
    const status = (await page.textContent('#status')) as string;
    expect(status).toContain('Sign-in failed. Your wallet signed in a way this kind of Bitcoin address does not sign');
    expect(status).toContain('SIGNATURE_TYPE_MISMATCH');
    expect(page.url()).toContain('/interaction/');
  });

  it('a Bitcoin-only client, keyboard only: only Bitcoin wallets, the first has focus, Enter signs in; axe finds nothing serious', async () => {
    const { w, authorizationFor } = env;
    const url = await authorizationFor({ client_name: 'Bitcoin Guild', account_namespaces: ['bip122'] });
    const { page } = await w.page({ key: bitcoinKey(), shape: 'standard', type: 'p2wpkh' });
    await page.goto(url);
    await page.waitForSelector('button.wallet');
    expect(await page.textContent('h1')).toContain('Bitcoin Guild wants you to sign in with Bitcoin');
    expect(await page.locator('button.wallet').allTextContents()).toEqual(['Sign in with Test Bitcoin Wallet (Bitcoin)']);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toContain('Test Bitcoin Wallet');
    await noSeriousViolations(page);
    await page.screenshot({ path: join(ARTIFACTS, 'wallet-page-bitcoin.png'), fullPage: true });
    const [landed] = await Promise.all([
      page.waitForRequest((request) => request.url().startsWith(`${TEST_REDIRECT_URI}?`)),
      page.keyboard.press('Enter'),
    ]);
    expect(new URL(landed.url()).searchParams.get('code')).toBeTruthy();
  });

  it('a gated client offers no Bitcoin wallet (its conditions are Ethereum holdings); no wallet at all: the page says so', async () => {
    const { client, w, authorizationFor } = env;
    const url = await authorizationFor({
      client_name: 'Holders',
      access_conditions: { match: 'all', conditions: [{ type: 'native', chainId: 1, minimum: '1' }] },
    });
    const { page } = await w.page({ key: bitcoinKey(), shape: 'unisat' });
    await page.goto(url);
    await page.waitForSelector('button.wallet');
    expect(await page.textContent('h1')).toContain('Holders wants you to sign in with Ethereum');
    expect(await page.locator('button.wallet').allTextContents()).toEqual(['Sign in with Test Wallet']);

    const none = await w.page({ key: bitcoinKey(), shape: 'standard', absent: true }, { absent: true });
    await none.page.goto(client.url);
    await none.page.click('#sign-in');
    await none.page.waitForSelector('.no-wallet');
    expect(await none.page.textContent('.no-wallet')).toContain('No Ethereum or Bitcoin wallet was found in this browser.');
  });
}

describe('Sign in with Bitcoin on the wallet page (self-hosted profile, the reference client)', () => {
  const env = selfHostedBitcoinPage();
  bitcoinWalletSignInTests(env);
  bitcoinWalletRefusalTests(env);
});

describe('Sign in with Bitcoin on the wallet page (hosted profile, openid-client)', () => {
  let provider: TestProvider;
  let browser: Browser;
  let w: ReturnType<typeof wallets>;

  beforeAll(async () => {
    browser = await launchChromium();
    w = wallets(browser);
    provider = await startTestProvider({ PROFILE: 'hosted', BITCOIN_NETWORKS: 'mainnet' });
  });
  afterAll(async () => {
    await w?.close();
    await browser?.close();
    await provider?.stop();
  });

  it('a confidential client (client_secret_basic, PKCE, state, nonce): ID token and userinfo name bip122:<mainnet>:<address>', async () => {
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

    const key = bitcoinKey();
    const { page } = await w.page({ key, shape: 'standard', type: 'p2tr' });
    await page.goto(url.href);
    await page.waitForSelector('button.wallet');
    const [landed] = await Promise.all([
      page.waitForRequest((request) => request.url().startsWith(`${redirectUri}?`)),
      bitcoinButton(page).click(),
    ]);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(landed.url()), {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    const address = key.address('p2tr');
    const sub = `bip122:${MAINNET}:${address}`;
    expect(tokens.claims()).toMatchObject({ iss: provider.issuer, sub, preferred_username: address });
    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, sub);
    expect(userinfo).toMatchObject({ sub, preferred_username: address });
    // The signed message and its signature, as the relying party can check them itself.
    expect(
      verifySiwbSignature({ message: userinfo.siwe_message as string, signature: userinfo.siwe_signature as string }),
    ).toMatchObject({ accountId: sub, addressType: 'p2tr', method: 'bip322-simple' });
    expect(w.calls()).toEqual(['connect', 'sign']);
  });
});
