/**
 * Sign in from another device (RFC 8628) with real clients and a real browser, on both profiles:
 * oidc-agent's device flow (Debian's oidc-agent-cli, the command docs/recipes.md shows) and
 * openid-client's (initiateDeviceAuthorization, pollDeviceAuthorizationGrant) poll the token
 * endpoint while a person, in Debian's Chromium with the test wallet, enters the code (or follows
 * verification_uri_complete), confirms it and signs on the wallet page. The device pages are also
 * checked as the wallet page is: axe-core, keyboard only, phone width, the strict CSP.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestProvider, type TestProvider } from '@signet/testkit';
import axe from 'axe-core';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireDebianPart } from '../scripts/debian-parts.mjs';
import { contextWithWallet, launchChromium, type WalletBehaviour } from './browser.ts';
import { collectOutput } from './processes.ts';
import { HEADLESS, recipeCommands, run } from './recipes/oidc-agent.ts';

const insecure = { execute: [oidc.allowInsecureRequests] };
const ARTIFACTS = join(import.meta.dirname, '..', 'artifacts');

/**
 * The provider on `profile`, Chromium with a wallet, oidc-agent in a home of its own; a fresh page,
 * and the person's steps on the device pages.
 */
function deviceFlowBrowser(profile: 'self-hosted' | 'hosted') {
  let provider: TestProvider;
  let browser: Browser;
  let context: BrowserContext;
  let wallet: WalletBehaviour;
  let agent: ChildProcess;
  let home: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    requireDebianPart('oidc-agent');
    [provider, browser] = await Promise.all([startTestProvider({ PROFILE: profile }), launchChromium()]);
    home = mkdtempSync(join(tmpdir(), 'signet-device-agent-'));
    mkdirSync(join(home, '.config'));
    const socket = join(home, 'agent.sock');
    env = { PATH: process.env.PATH, HOME: home, OIDC_SOCK: socket, OIDC_ENCRYPTION_PW: 'a-test-encryption-password' };
    const [agentCommand] = recipeCommands('oidc-agent-device');
    expect(agentCommand).toEqual(['oidc-agent', '--always-allow-idtoken']);
    agent = spawn('oidc-agent', [...(agentCommand ?? []).slice(1), '-d', '-a', socket], { env, stdio: 'ignore' });
    for (let i = 0; i < 100 && !existsSync(socket); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    if (!existsSync(socket)) throw new Error('oidc-agent did not open its socket');
  });
  afterAll(async () => {
    agent?.kill();
    await context?.close();
    await browser?.close();
    await provider?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  /** A browser tab with the test wallet, collecting console errors (CSP violations among them). */
  async function freshPage(viewport = { width: 1280, height: 900 }) {
    wallet = { account: privateKeyToAccount(generatePrivateKey()), chainId: 1 };
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

  /** From the confirmation page through the wallet page to "return to your device", by keyboard or by mouse. */
  async function confirmAndSign(page: Page, by: 'keyboard' | 'mouse') {
    await page.waitForSelector('.user-code');
    if (by === 'keyboard') {
      // The first thing Tab reaches on the confirmation is "Continue".
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toContain('Continue');
      await page.keyboard.press('Enter');
    } else {
      await page.click('button[name=confirm]');
    }
    await page.waitForURL(/\/interaction\//);
    await page.waitForSelector('button.wallet');
    expect(await page.textContent('main')).toContain('on your other device, not to this browser');
    if (by === 'keyboard') {
      expect(await page.evaluate(() => document.activeElement?.textContent)).toContain('Test Wallet');
      await page.keyboard.press('Enter');
    } else {
      await page.click('button.wallet');
    }
    await page.waitForURL(/\/device\/success/);
    expect(await page.textContent('main')).toContain('You can return to your device');
  }

  return {
    get provider() {
      return provider;
    },
    get browser() {
      return browser;
    },
    get context() {
      return context;
    },
    get wallet() {
      return wallet;
    },
    get agent() {
      return agent;
    },
    get home() {
      return home;
    },
    get env() {
      return env;
    },
    freshPage,
    confirmAndSign,
    profile,
  };
}
type DeviceFlowBrowser = ReturnType<typeof deviceFlowBrowser>;

/** Device clients (oidc-agent, openid-client) signing in, and seeing a cancel. */
function deviceClientTests(device: DeviceFlowBrowser) {
  it('oidc-agent: oidc-gen --flow=device polls while the person types the code and signs (keyboard only); oidc-token gets tokens', async () => {
    const { provider, env, freshPage, confirmAndSign } = device;
    const [, genCommand = [], tokenCommand = []] = recipeCommands('oidc-agent-device');
    expect(genCommand[0]).toBe('oidc-gen');
    expect(genCommand).toContain('--flow=device');
    const args = genCommand.slice(1).map((arg) => (arg.startsWith('--issuer=') ? `--issuer=${provider.issuer}` : arg));
    const gen = spawn('oidc-gen', [...args, ...HEADLESS], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = collectOutput(gen);
    const exited = new Promise<number | null>((resolve) => gen.once('exit', resolve));
    const deadline = Date.now() + 20_000;
    let shown: RegExpExecArray | null = null;
    while (!shown && Date.now() < deadline) {
      shown = /visit:\s*(\S+)\s+And enter the code:\s*(\S+)/.exec(output());
      if (!shown) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(shown, output()).toBeTruthy();
    const [, verificationUri, userCode] = shown as RegExpExecArray;
    expect(verificationUri).toBe(`${provider.url}/device`);

    const { page, problems } = await freshPage();
    await page.goto(verificationUri as string);
    // The code field has focus: type the code as the terminal shows it, Enter.
    await page.waitForFunction(() => document.activeElement?.id === 'user_code', undefined, { timeout: 10_000 });
    await page.keyboard.type(userCode as string);
    await page.keyboard.press('Enter');
    await page.waitForSelector('.user-code', { timeout: 10_000 }).catch(async () => {
      throw new Error(`no confirmation after typing ${userCode}: ${page.url()} ${await page.textContent('body')}`);
    });
    expect(await page.textContent('.user-code')).toBe(userCode);
    expect(await page.textContent('main')).toContain(`oidc-agent:signet-device`);
    await confirmAndSign(page, 'keyboard');
    expect(await exited, output()).toBe(0);
    expect(problems).toEqual([]);

    const idToken = await run('oidc-token', ['--id-token', tokenCommand[1] as string], env);
    expect(idToken.code, idToken.stderr).toBe(0);
    expect(decodeJwt(idToken.stdout.trim()).sub).toBe(`eip155:1:${device.wallet.account.address}`);
    // Renewal through the refresh token.
    const first = await run('oidc-token', [tokenCommand[1] as string], env);
    const renewed = await run('oidc-token', ['--force-new', tokenCommand[1] as string], env);
    expect(renewed.code, renewed.stderr).toBe(0);
    expect(renewed.stdout.trim()).not.toBe(first.stdout.trim());
  }, 60_000);

  it('openid-client: initiateDeviceAuthorization, then pollDeviceAuthorizationGrant while the person follows verification_uri_complete', async () => {
    const { provider, freshPage, confirmAndSign, profile } = device;
    const confidential = profile === 'hosted';
    const registered = (await (
      await fetch(`${provider.url}/${profile === 'hosted' ? 'register' : 'reg'}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: 'Terminal app',
          grant_types: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
          response_types: [],
          token_endpoint_auth_method: confidential ? 'client_secret_basic' : 'none',
        }),
      })
    ).json()) as { client_id: string; client_secret?: string };
    const config = await oidc.discovery(
      new URL(provider.issuer),
      registered.client_id,
      registered.client_secret,
      confidential ? oidc.ClientSecretBasic() : oidc.None(),
      insecure,
    );
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid profile offline_access' });
    expect(started.verification_uri).toBe(`${provider.url}/device`);
    const polled = oidc.pollDeviceAuthorizationGrant(config, started);

    const { page, problems } = await freshPage();
    await page.goto(started.verification_uri_complete as string);
    // The code came in the link: shown, with the warning, and nothing happens until confirmed.
    expect(await page.textContent('.user-code')).toBe(started.user_code);
    expect(await page.textContent('.warning')).toContain('If someone sent you this link');
    expect(page.url()).toContain('/device?');
    await confirmAndSign(page, 'mouse');
    expect(problems).toEqual([]);

    const tokens = await polled;
    expect(tokens.claims()?.sub).toBe(`eip155:1:${device.wallet.account.address}`);
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
    expect(refreshed.claims()?.sub).toBe(`eip155:1:${device.wallet.account.address}`);
  }, 60_000);

  it('openid-client sees access_denied when the person cancels on the wallet page', async () => {
    const { provider, freshPage, profile } = device;
    const registered = (await (
      await fetch(`${provider.url}/${profile === 'hosted' ? 'register' : 'reg'}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          grant_types: ['urn:ietf:params:oauth:grant-type:device_code'],
          response_types: [],
          token_endpoint_auth_method: 'none',
        }),
      })
    ).json()) as { client_id: string };
    const config = await oidc.discovery(new URL(provider.issuer), registered.client_id, undefined, oidc.None(), insecure);
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
    const polled = oidc.pollDeviceAuthorizationGrant(config, started).then(
      () => 'tokens',
      (error: { error?: string }) => error.error,
    );
    const { page } = await freshPage();
    await page.goto(started.verification_uri_complete as string);
    await page.click('button[name=confirm]');
    await page.waitForSelector('button.wallet');
    await page.click('#abort button');
    await page.waitForSelector('text=Sign-in cancelled');
    expect(await polled).toBe('access_denied');
  }, 60_000);
}

/** Two accounts in one browser, and the device pages at desktop and phone width. */
function deviceBrowserTests(device: DeviceFlowBrowser) {
  it('two device sign-ins in one browser by two accounts: the second gets through the logout-first step, each device its own account', async () => {
    const { provider, freshPage, confirmAndSign, profile } = device;
    const registered = (await (
      await fetch(`${provider.url}/${profile === 'hosted' ? 'register' : 'reg'}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          grant_types: ['urn:ietf:params:oauth:grant-type:device_code'],
          response_types: [],
          token_endpoint_auth_method: 'none',
        }),
      })
    ).json()) as { client_id: string };
    const config = await oidc.discovery(new URL(provider.issuer), registered.client_id, undefined, oidc.None(), insecure);
    const { page, problems } = await freshPage();
    for (const round of [1, 2]) {
      device.wallet.account = privateKeyToAccount(generatePrivateKey());
      const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
      const polled = oidc.pollDeviceAuthorizationGrant(config, started);
      await page.goto(started.verification_uri_complete as string);
      await confirmAndSign(page, 'mouse');
      expect((await polled).claims()?.sub, `round ${round}`).toBe(`eip155:1:${device.wallet.account.address}`);
    }
    expect(problems).toEqual([]);
  }, 90_000);

  it('the device pages at desktop and phone width: no serious axe violation, no horizontal scroll, nothing against the CSP', async () => {
    const { provider, freshPage, confirmAndSign, profile } = device;
    const confidential = profile === 'hosted';
    const registered = (await (
      await fetch(`${provider.url}/${profile === 'hosted' ? 'register' : 'reg'}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: 'Living-room TV',
          grant_types: ['urn:ietf:params:oauth:grant-type:device_code'],
          response_types: [],
          token_endpoint_auth_method: confidential ? 'client_secret_basic' : 'none',
        }),
      })
    ).json()) as { client_id: string; client_secret?: string };
    const deviceAuth = `${provider.url}/device/auth`;
    mkdirSync(ARTIFACTS, { recursive: true });
    for (const viewport of [
      { width: 1280, height: 900 },
      { width: 390, height: 844 },
    ]) {
      const started = (await (
        await fetch(deviceAuth, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            ...(confidential
              ? {
                  authorization: `Basic ${btoa(`${encodeURIComponent(registered.client_id)}:${encodeURIComponent(registered.client_secret as string)}`)}`,
                }
              : {}),
          },
          body: new URLSearchParams({ client_id: registered.client_id, scope: 'openid' }),
        })
      ).json()) as { user_code: string };
      const { page, problems } = await freshPage(viewport);
      const check = async (what: string) => {
        await page.screenshot({
          path: join(ARTIFACTS, `device-${profile}-${what.replaceAll(' ', '-')}-${viewport.width}.png`),
          fullPage: true,
        });
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        expect({ what, width: width <= viewport.width }).toEqual({ what, width: true });
        await page.evaluate(axe.source);
        const results = await page.evaluate(() =>
          (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] }),
        );
        const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
        expect({ what, violations: serious.map((v) => `${v.id}: ${v.help}`) }).toEqual({ what, violations: [] });
      };
      await page.goto(`${provider.url}/device`);
      await check('code entry');
      await page.fill('#user_code', 'BBBB-BBBB');
      await page.press('#user_code', 'Enter');
      await page.waitForSelector('[role=alert]');
      expect(await page.textContent('[role=alert]')).toContain('That code is not right');
      expect(await page.getAttribute('#user_code', 'aria-invalid')).toBe('true');
      await check('a wrong code');
      await page.fill('#user_code', started.user_code);
      await page.press('#user_code', 'Enter');
      await page.waitForSelector('.user-code');
      await check('confirmation');
      await confirmAndSign(page, 'mouse');
      await check('return to your device');
      // The wrong code's page is a 400 (Chromium notes it); nothing else, and nothing against the CSP.
      expect(problems.filter((p) => !/status of 400/.test(p))).toEqual([]);
    }
  });
}

describe.each(['self-hosted', 'hosted'] as const)('sign in from another device on the %s profile', (profile) => {
  const device = deviceFlowBrowser(profile);
  deviceClientTests(device);
  deviceBrowserTests(device);
});
