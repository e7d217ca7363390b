/**
 * A Solana wallet for the browser tests: a Wallet Standard wallet registered in every page (the
 * `wallet-standard:register-wallet` / `wallet-standard:app-ready` events, as a browser extension
 * does), whose Ed25519 key lives in the test. Its requests are answered in Node: `solana:signIn`
 * writes the message with the Wallet Standard's reference (`createSignInMessageText`, what real
 * wallets use) and signs it; `solana:signMessage` signs the bytes it is given.
 */

import type { SolanaKeypair } from '@signet/testkit';
import { createSignInMessageText } from '@solana/wallet-standard-util';
import type { BrowserContext } from 'playwright-core';

export type SolanaWalletBehaviour = {
  keypair: SolanaKeypair;
  name?: string;
  /** What the wallet offers; default both. */
  features?: ('signIn' | 'signMessage')[];
  /** Default every cluster. */
  chains?: string[];
  /** The user declines in the wallet (Wallet Standard errors carry words, no code). */
  rejectSignature?: boolean;
  /** The wallet signs a changed text (`solana:signIn`) or other bytes (`solana:signMessage`). */
  tamper?: (text: string) => string;
  /** The wallet signs with another key than the account it reports. */
  signWith?: SolanaKeypair;
  /** Register no wallet. */
  absent?: boolean;
  /** Every request the page made of the wallet, in order (the test reads it). */
  calls?: string[];
};

type Answer = { error: string } | Record<string, unknown>;

/** Adds the Solana test wallet to every page of the context; `wallet` is read at each request. */
export async function addSolanaWallet(context: BrowserContext, wallet: () => SolanaWalletBehaviour): Promise<void> {
  await context.exposeFunction(
    '__signetSolanaWallet',
    async (method: string, input: Record<string, unknown> = {}): Promise<Answer> => {
      const w = wallet();
      w.calls?.push(method);
      const account = { address: w.keypair.address, publicKey: [...w.keypair.publicKey] };
      const signer = w.signWith ?? w.keypair;
      switch (method) {
        case 'describe':
          return {
            absent: w.absent === true,
            name: w.name ?? 'Test Solana Wallet',
            features: w.features ?? ['signIn', 'signMessage'],
            chains: w.chains ?? ['solana:mainnet', 'solana:devnet', 'solana:testnet'],
          };
        case 'connect':
          return { account };
        case 'signIn': {
          if (w.rejectSignature) return { error: 'User rejected the request.' };
          const text = createSignInMessageText({
            ...(input as Record<string, string>),
            domain: String(input.domain),
            address: w.keypair.address,
          });
          const signed = new TextEncoder().encode(w.tamper ? w.tamper(text) : text);
          return { account, signedMessage: [...signed], signature: [...signer.sign(signed)] };
        }
        case 'signMessage': {
          if (w.rejectSignature) return { error: 'User rejected the request.' };
          const given = Uint8Array.from(input.message as number[]);
          const signed = w.tamper ? new TextEncoder().encode(w.tamper(new TextDecoder().decode(given))) : given;
          return { signedMessage: [...signed], signature: [...signer.sign(signed)] };
        }
        default:
          return { error: `unsupported method ${method}` };
      }
    },
  );
  await context.addInitScript(() => {
    type Call = (method: string, input?: unknown) => Promise<Record<string, unknown>>;
    const call = (window as unknown as { __signetSolanaWallet: Call }).__signetSolanaWallet;
    const ask = async (method: string, input?: unknown) => {
      const answer = await call(method, input);
      if (typeof answer.error === 'string') throw new Error(answer.error);
      return answer;
    };
    call('describe').then((description) => {
      if (description.absent) return;
      const chains = description.chains as string[];
      const features = description.features as string[];
      const accountOf = (a: { address: string; publicKey: number[] }) =>
        Object.freeze({
          address: a.address,
          publicKey: Uint8Array.from(a.publicKey),
          chains,
          features: ['solana:signMessage', 'solana:signIn'],
        });
      let accounts: ReturnType<typeof accountOf>[] = [];
      const wallet = {
        version: '1.0.0',
        name: description.name as string,
        icon: 'data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22 viewBox=%220 0 24 24%22%3E%3Crect width=%2224%22 height=%2224%22 rx=%225%22 fill=%22%239945ff%22/%3E%3C/svg%3E',
        chains,
        get accounts() {
          return accounts;
        },
        features: {
          'standard:connect': {
            version: '1.0.0',
            async connect() {
              const { account } = await ask('connect');
              accounts = [accountOf(account as { address: string; publicKey: number[] })];
              return { accounts };
            },
          },
          'standard:events': { version: '1.0.0', on: () => () => {} },
          ...(features.includes('signIn')
            ? {
                'solana:signIn': {
                  version: '1.0.0',
                  async signIn(...inputs: Record<string, unknown>[]) {
                    return Promise.all(
                      inputs.map(async (input) => {
                        const out = await ask('signIn', input);
                        accounts = [accountOf(out.account as { address: string; publicKey: number[] })];
                        return {
                          account: accounts[0],
                          signedMessage: Uint8Array.from(out.signedMessage as number[]),
                          signature: Uint8Array.from(out.signature as number[]),
                          signatureType: 'ed25519',
                        };
                      }),
                    );
                  },
                },
              }
            : {}),
          ...(features.includes('signMessage')
            ? {
                'solana:signMessage': {
                  version: '1.0.0',
                  async signMessage(...inputs: { message: Uint8Array }[]) {
                    return Promise.all(
                      inputs.map(async ({ message }) => {
                        const out = await ask('signMessage', { message: [...message] });
                        return {
                          signedMessage: Uint8Array.from(out.signedMessage as number[]),
                          signature: Uint8Array.from(out.signature as number[]),
                        };
                      }),
                    );
                  },
                },
              }
            : {}),
        },
      };
      // The Wallet Standard's registration, both ways: announce now, and answer the app's ready event.
      const callback = ({ register }: { register(w: unknown): void }) => register(wallet);
      window.addEventListener('wallet-standard:app-ready', (event) =>
        callback((event as unknown as { detail: { register(w: unknown): void } }).detail),
      );
      window.dispatchEvent(new CustomEvent('wallet-standard:register-wallet', { detail: callback }));
    });
  });
}
