/**
 * Passkeys in a real browser (Debian's Chromium) with the DevTools protocol's virtual
 * authenticator (CTAP2, resident keys, user verification), on both profiles, the issuer on
 * `localhost` (WebAuthn takes no IP address): a person signs in with a wallet, adds a passkey on
 * /account, signs in with it in a fresh browser context (the passkey carried over as a synced
 * passkey would be: the credential copied between the virtual authenticators), through the
 * browser's passkey autofill and through the button; an unknown passkey is refused and the page
 * tells the browser to forget it; a passkey session cannot delete the account; the passkey is
 * removed. No passkey code loads for a client that takes none; both pages are axe-clean.
 *
 * One storage (memory) here: apps/provider/test/passkeys.test.ts runs the HTTP contract on every
 * storage and profile.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import {
  pkceAuthorization,
  registerPublicClient,
  startTestProvider,
  TEST_REDIRECT_URI,
  type TestProvider,
} from '@signet/testkit';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextWithWallet, launchChromium, noSeriousViolations, type WalletBehaviour } from './browser.ts';

type Credential = {
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  privateKey: string;
  userHandle?: string;
  signCount: number;
};

/** A virtual authenticator on the page (a platform passkey provider: CTAP2, resident keys, user verification). */
async function virtualAuthenticator(page: Page, credentials: Credential[] = []): Promise<{ cdp: CDPSession; id: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  for (const credential of credentials) await cdp.send('WebAuthn.addCredential', { authenticatorId, credential });
  return { cdp, id: authenticatorId };
}

/** Records the page's calls of PublicKeyCredential.signalUnknownCredential (and still makes them). */
const recordSignals = () => {
  type Signal = (options: unknown) => Promise<void>;
  const calls: unknown[] = [];
  (window as unknown as { __signals: unknown[] }).__signals = calls;
  const api = PublicKeyCredential as unknown as { signalUnknownCredential?: Signal };
  const original = api.signalUnknownCredential?.bind(PublicKeyCredential);
  if (original) {
    api.signalUnknownCredential = (options) => {
      calls.push(options);
      return original(options);
    };
  }
};

/**
 * The provider on `profile`, Chromium with an Ethereum wallet, a client, and what the tests pass on to
 * the next: the wallet's sub, the /account page, its authenticator and the synced passkey.
 */
function passkeyBrowser(profile: 'self-hosted' | 'hosted') {
  let provider: TestProvider;
  let browser: Browser;
  let walletContext: BrowserContext;
  let client: oidc.Configuration;

  const ethereum: WalletBehaviour = { account: privateKeyToAccount(generatePrivateKey()), chainId: 1 };

  let walletSub: string;
  let account: Page;
  let authenticator: { cdp: CDPSession; id: string };

  /** The account's passkey as last used, wherever (withPasskey). */
  let synced: Credential[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    provider = await startTestProvider({ PROFILE: profile });
    client = await registerPublicClient(provider.issuer, { account_subject: true } as never);
    walletContext = await contextWithWallet(browser, () => ethereum);
  });
  afterAll(async () => {
    await walletContext?.close();
    await browser?.close();
    await provider?.stop();
  });

  /** Opens a sign-in to `to` in `page` and runs `act` there; the ID token's claims when it reaches the client. */
  async function signIn(page: Page, act: () => Promise<unknown> = async () => {}, to = client) {
    const { url, verifier } = await pkceAuthorization(to, { scope: 'openid', prompt: 'login' });
    const landed = page.waitForRequest((request) => request.url().startsWith(`${TEST_REDIRECT_URI}?`), { timeout: 20_000 });
    await page.goto(url.href);
    await act();
    const tokens = await oidc.authorizationCodeGrant(to, new URL((await landed).url()), { pkceCodeVerifier: verifier });
    return tokens.claims() as Record<string, unknown>;
  }

  /**
   * A fresh browser context holding the account's passkey, as a synced passkey reaches another
   * browser: the credential as last used (its signature counter too) is copied into this
   * context's authenticator, and read back afterwards.
   */
  async function withPasskey(options: { autofill: boolean }, run: (page: Page) => Promise<void>) {
    const fresh = await browser.newContext();
    try {
      // A browser without passkey autofill (conditional mediation): the page's button is the way.
      if (!options.autofill) {
        await fresh.addInitScript(() => {
          PublicKeyCredential.isConditionalMediationAvailable = async () => false;
        });
      }
      const page = await fresh.newPage();
      const here = await virtualAuthenticator(page, synced);
      await run(page);
      synced = (await here.cdp.send('WebAuthn.getCredentials', { authenticatorId: here.id })).credentials as Credential[];
    } finally {
      await fresh.close();
    }
  }

  return {
    get provider() {
      return provider;
    },
    get browser() {
      return browser;
    },
    get walletContext() {
      return walletContext;
    },
    get client() {
      return client;
    },
    ethereum,
    get walletSub() {
      return walletSub;
    },
    set walletSub(value) {
      walletSub = value;
    },
    get account() {
      return account;
    },
    set account(value) {
      account = value;
    },
    get authenticator() {
      return authenticator;
    },
    set authenticator(value) {
      authenticator = value;
    },
    get synced() {
      return synced;
    },
    set synced(value) {
      synced = value;
    },
    signIn,
    withPasskey,
  };
}
type PasskeyBrowser = ReturnType<typeof passkeyBrowser>;

/** Adding a passkey on /account, and signing in with it. */
function addAndSignInTests(env: PasskeyBrowser) {
  it('adds a passkey on /account after a wallet sign-in', async () => {
    const { provider, walletContext, signIn } = env;
    const signing = await walletContext.newPage();
    const claims = await signIn(signing, () => signing.locator('button.wallet', { hasText: 'Test Wallet' }).first().click());
    env.walletSub = claims.sub as string;
    await signing.close();
    env.account = await walletContext.newPage();
    env.authenticator = await virtualAuthenticator(env.account);
    await env.account.goto(`${provider.url}/account`);
    await env.account.waitForSelector('#passkeys[data-ready]');
    await env.account.fill('#passkey-name', 'Work laptop');
    await Promise.all([env.account.waitForEvent('load'), env.account.locator('#passkey-add button[type=submit]').click()]);
    await env.account.waitForSelector('li[data-passkey]');
    expect(await env.account.textContent('#passkeys')).toContain('Work laptop');
    const { credentials } = await env.authenticator.cdp.send('WebAuthn.getCredentials', {
      authenticatorId: env.authenticator.id,
    });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });
    env.synced = credentials as Credential[];
    await noSeriousViolations(env.account);
  });

  it('signs in with it in a fresh browser, through autofill and through the button: the account’s sub, amr pop', async () => {
    const { signIn, withPasskey } = env;
    // Chromium's virtual authenticator answers a conditional (autofill) request at once, as a person picking it would.
    await withPasskey({ autofill: true }, async (page) => {
      const scripts: string[] = [];
      page.on('request', (request) => scripts.push(request.url()));
      const viaAutofill = await signIn(page);
      expect(viaAutofill.sub).toBe(env.walletSub);
      expect(viaAutofill).not.toHaveProperty('wallet');
      expect(viaAutofill.amr).toEqual(['pop', 'hwk', 'user', 'mfa']);
      // The passkey's code came in a chunk of its own, after the page's script.
      expect(scripts.some((url) => /\/assets\/passkey-[\w-]+\.js$/.test(url))).toBe(true);
    });
    await withPasskey({ autofill: false }, async (page) => {
      const viaButton = await signIn(page, async () => {
        await page.locator('#passkey-button').waitFor();
        await noSeriousViolations(page);
        await page.locator('#passkey-button').click();
      });
      expect(viaButton.sub).toBe(env.walletSub);
      expect(viaButton.amr).toContain('pop');
    });
  });
}

/** Unknown passkeys, what a passkey session may do, and removal. */
function refusalAndRemovalTests(env: PasskeyBrowser) {
  it('an unknown passkey: 401 PASSKEY_NOT_FOUND, and the page tells the browser to forget it', async () => {
    const { browser, client } = env;
    const stranger = await browser.newContext();
    try {
      await stranger.addInitScript(recordSignals);
      const page = await stranger.newPage();
      const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'der', type: 'pkcs8' });
      const credentialId = randomBytes(16).toString('base64');
      await virtualAuthenticator(page, [
        {
          credentialId,
          isResidentCredential: true,
          rpId: 'localhost',
          privateKey: key.toString('base64'),
          userHandle: randomBytes(32).toString('base64'),
          signCount: 0,
        },
      ]);
      const { url } = await pkceAuthorization(client, { prompt: 'login' });
      // Autofill offers the passkey the browser holds; the provider knows none by its id.
      const answer = page.waitForResponse(
        (response) => response.request().method() === 'POST' && response.url().endsWith('/passkey'),
      );
      await page.goto(url.href);
      expect((await answer).status()).toBe(401);
      await page.waitForLoadState('load');
      expect(await page.textContent('#status')).toContain('PASSKEY_NOT_FOUND');
      await expect
        .poll(() => page.evaluate(() => (window as unknown as { __signals?: unknown[] }).__signals ?? []))
        .toEqual([{ rpId: 'localhost', credentialId: Buffer.from(credentialId, 'base64').toString('base64url') }]);
    } finally {
      await stranger.close();
    }
  });

  it('a passkey session sees the account but cannot delete it; a client without account_subject offers no passkey', async () => {
    const { provider, ethereum, signIn, withPasskey } = env;
    await withPasskey({ autofill: true }, async (signing) => {
      let page = signing;
      await signIn(page);
      // The sign-in's page ends at the client's address (nothing listens there): the account in a page of its own.
      page = await page.context().newPage();
      await page.goto(`${provider.url}/account`);
      expect(await page.textContent('.wallet-list')).toContain(ethereum.account.address);
      // The page's script has found (no) wallets and bound its buttons.
      await page.waitForFunction(() => !document.querySelector('#wallets noscript'));
      page.once('dialog', (dialog) => dialog.accept());
      const [refused] = await Promise.all([
        page.waitForResponse((response) => response.request().method() === 'DELETE'),
        page.locator('button[data-action="delete"]').click(),
      ]);
      expect(refused.status()).toBe(401);
      expect(await page.textContent('#status')).toContain('signature by your primary wallet');

      const plain = await registerPublicClient(provider.issuer);
      const scripts: string[] = [];
      page.on('request', (request) => scripts.push(request.url()));
      await page.goto((await pkceAuthorization(plain, { prompt: 'login' })).url.href);
      await page.waitForSelector('#wallets');
      expect(await page.locator('#passkey').count()).toBe(0);
      expect(scripts.some((url) => /\/assets\/passkey-/.test(url))).toBe(false);
    });
  });

  it('removes the passkey on /account; it then signs nobody in', async () => {
    const { provider, client, withPasskey } = env;
    await env.account.goto(`${provider.url}/account`);
    await env.account.waitForSelector('#passkeys[data-ready]');
    await Promise.all([env.account.waitForEvent('load'), env.account.locator('button[data-passkey-action="remove"]').click()]);
    await env.account.waitForSelector('#passkeys');
    expect(await env.account.locator('li[data-passkey]').count()).toBe(0);
    await withPasskey({ autofill: true }, async (page) => {
      const answer = page.waitForResponse(
        (response) => response.request().method() === 'POST' && response.url().endsWith('/passkey'),
      );
      await page.goto((await pkceAuthorization(client, { prompt: 'login' })).url.href);
      expect((await answer).status()).toBe(401);
    });
  });
}

describe.each(['self-hosted', 'hosted'] as const)('passkeys in Chromium (%s profile)', { timeout: 90_000 }, (profile) => {
  const env = passkeyBrowser(profile);
  addAndSignInTests(env);
  refusalAndRemovalTests(env);
});
