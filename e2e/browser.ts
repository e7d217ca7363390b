/**
 * A real Chromium (Debian's, driven by playwright-core) with a test wallet injected into every
 * page: an EIP-1193 provider announced through EIP-6963, whose requests are answered in Node
 * (signing with a viem account), so the page runs exactly as with a browser extension wallet. It
 * counts the prompts it would show, and may speak ERC-7846 `wallet_connect`.
 */
import { existsSync } from 'node:fs';
import axe from 'axe-core';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import type { Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { expect } from 'vitest';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

/** Debian's Chromium, headless; `args` adds switches (e.g. `--host-rules` to give loopback servers public-looking names). */
export async function launchChromium(args: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is needed at ${CHROMIUM}: run "apt-get install -y chromium" (npm test does it when run as root), or set CHROMIUM_PATH`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...args] });
}

/** How the test wallet behaves; tests change it between scenarios. */
export type WalletBehaviour = {
  account: PrivateKeyAccount;
  /** The address the wallet reports (a contract wallet's, when the account is its owner). */
  address?: `0x${string}`;
  chainId: number;
  /** Turns the owner's signature into the wallet's (EIP-6492 wrapping). */
  wrap?: (signature: Hex) => Hex;
  /** The user declines the signature request. */
  rejectSignature?: boolean;
  /** Whether wallet_switchEthereumChain is accepted. */
  allowSwitch?: boolean;
  /** Inject no wallet at all. */
  absent?: boolean;
  /**
   * ERC-7846 `wallet_connect` (without it, "unsupported method", as a wallet that lacks it answers):
   * `sign-in` writes the `signInWithEthereum` message from the fields asked (with viem's
   * `createSiweMessage`, as Base Account and Porto do) and signs it in the same prompt;
   * `other-message` writes another statement than the one asked; `connect-only` ignores the capability.
   */
  walletConnect?: 'sign-in' | 'other-message' | 'connect-only';
  /** Every request the person is asked to approve, in order (connect, sign, switch chain). */
  prompts?: string[];
};

/** The methods a wallet asks its user about; the others (eth_chainId, eth_accounts) it answers silently. */
const PROMPTING = new Set(['eth_requestAccounts', 'personal_sign', 'wallet_switchEthereumChain', 'wallet_connect']);

type SignInWithEthereum = {
  nonce: string;
  chainId: string;
  version?: '1';
  domain: string;
  uri: string;
  statement?: string;
  issuedAt?: string;
  expirationTime?: string;
  resources?: string[];
};

/** A wallet's answer to ERC-7846 `wallet_connect`, as `walletConnect` says it behaves. */
async function walletConnect(w: WalletBehaviour, params: unknown[]) {
  const address = w.address ?? w.account.address;
  if (w.walletConnect === 'connect-only') return { accounts: [{ address, capabilities: {} }] };
  const asked = (params[0] as { capabilities: { signInWithEthereum: SignInWithEthereum } }).capabilities.signInWithEthereum;
  const message = createSiweMessage({
    address,
    chainId: Number.parseInt(asked.chainId, 16),
    domain: asked.domain,
    nonce: asked.nonce,
    uri: asked.uri,
    version: '1',
    statement: w.walletConnect === 'other-message' ? 'Send everything in this wallet to a stranger.' : asked.statement,
    issuedAt: asked.issuedAt ? new Date(asked.issuedAt) : undefined,
    expirationTime: asked.expirationTime ? new Date(asked.expirationTime) : undefined,
    resources: asked.resources,
  });
  const signature = await w.account.signMessage({ message });
  return {
    accounts: [{ address, capabilities: { signInWithEthereum: { message, signature: w.wrap ? w.wrap(signature) : signature } } }],
  };
}

/** A browser context whose pages carry the test wallet; `wallet` is read at each request. */
export async function contextWithWallet(
  browser: Browser,
  wallet: () => WalletBehaviour,
  options: Parameters<Browser['newContext']>[0] = {},
): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  await context.exposeFunction('__signetTestWallet', async (method: string, params: unknown[] = []) => {
    const w = wallet();
    if (PROMPTING.has(method) && (method !== 'wallet_connect' || w.walletConnect)) w.prompts?.push(method);
    switch (method) {
      case 'eth_requestAccounts':
      case 'eth_accounts':
        return [w.address ?? w.account.address];
      case 'eth_chainId':
        return `0x${w.chainId.toString(16)}`;
      case 'wallet_switchEthereumChain': {
        if (!w.allowSwitch) return { error: { code: 4001, message: 'User rejected the request.' } };
        w.chainId = Number.parseInt((params[0] as { chainId: string }).chainId, 16);
        return null;
      }
      case 'personal_sign': {
        if (w.rejectSignature) return { error: { code: 4001, message: 'User rejected the request.' } };
        const signature = await w.account.signMessage({ message: { raw: params[0] as Hex } });
        return w.wrap ? w.wrap(signature) : signature;
      }
      case 'wallet_connect':
        if (!w.walletConnect) return { error: { code: 4200, message: `unsupported method ${method}` } };
        return walletConnect(w, params);
      default:
        return { error: { code: 4200, message: `unsupported method ${method}` } };
    }
  });
  await context.exposeFunction('__signetWalletAbsent', () => wallet().absent === true);
  await context.addInitScript(() => {
    const call = (window as unknown as { __signetTestWallet(method: string, params?: unknown[]): Promise<unknown> })
      .__signetTestWallet;
    const provider = {
      isSignetTestWallet: true,
      async request({ method, params }: { method: string; params?: unknown[] }) {
        const result = (await call(method, params)) as { error?: { code: number; message: string } } | unknown;
        if (result && typeof result === 'object' && 'error' in (result as object)) {
          const { code, message } = (result as { error: { code: number; message: string } }).error;
          throw Object.assign(new Error(message), { code });
        }
        return result;
      },
      on() {},
      removeListener() {},
    };
    const info = {
      uuid: '6c2f3e8a-0000-4000-8000-000000000001',
      name: 'Test Wallet',
      icon: 'data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22 viewBox=%220 0 24 24%22%3E%3Crect width=%2224%22 height=%2224%22 rx=%225%22 fill=%22%23f6851b%22/%3E%3C/svg%3E',
      rdns: 'org.signet.testwallet',
    };
    (window as unknown as { __signetWalletAbsent(): Promise<boolean> }).__signetWalletAbsent().then((absent) => {
      if (absent) return;
      const announce = () =>
        window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail: Object.freeze({ info, provider }) }));
      window.addEventListener('eip6963:requestProvider', announce);
      announce();
    });
  });
  return context;
}

/** axe-core run in the page (through the DevTools protocol, which its CSP does not block): nothing serious or critical. */
export async function noSeriousViolations(page: Page) {
  await page.evaluate(axe.source);
  const results = await page.evaluate(() =>
    (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] }),
  );
  const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
}
