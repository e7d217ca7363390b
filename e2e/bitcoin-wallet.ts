/**
 * A Bitcoin wallet for the browser tests, injected into every page in one of the shapes real
 * wallets have, whose key lives in the test: its requests are answered in Node, signing with the
 * testkit's Bitcoin key (`@signet/siwb`'s test signer: @scure/btc-signer's own BIP-322 signing,
 * BIP-137 for P2PKH).
 *
 * - `standard`: a Wallet Standard wallet with `bitcoin:connect` and `bitcoin:signMessage`
 *   (registered by the `wallet-standard:register-wallet` / `wallet-standard:app-ready` events, as
 *   an extension does); the signature comes back as bytes.
 * - `unisat`: `window.unisat` (`requestAccounts`, `getChain`, `signMessage(text, type)`), base64 back.
 * - `sats`: a sats-connect provider listed in `window.btc_providers` (WBIP004) and set as
 *   `window.XverseProviders.BitcoinProvider` (as Xverse does), answering JSON-RPC
 *   `request('getAddresses' | 'signMessage', params)`.
 */

import type { BitcoinAddressKind, BitcoinKey } from '@signet/testkit';
import type { BrowserContext } from 'playwright-core';

export type BitcoinWalletShape = 'standard' | 'unisat' | 'sats';

export type BitcoinWalletBehaviour = {
  key: BitcoinKey;
  shape: BitcoinWalletShape;
  /** The address type of the account the wallet shares (default P2WPKH). */
  type?: BitcoinAddressKind;
  /** The network the wallet is on (its address's encoding; default mainnet). */
  network?: 'mainnet' | 'testnet' | 'signet';
  name?: string;
  /** The user declines in the wallet. */
  rejectSignature?: boolean;
  /** The wallet signs with the form of another address type (a Taproot signature for a bc1q address). */
  signAs?: BitcoinAddressKind;
  /** Register no wallet. */
  absent?: boolean;
  /** Every request the page made of the wallet, in order, with the form it asked for (the test reads it). */
  calls?: string[];
};

type Answer = { error: string; code?: number } | Record<string, unknown>;

const WALLET_STANDARD_CHAIN = { mainnet: 'bitcoin:mainnet', testnet: 'bitcoin:testnet', signet: 'bitcoin:testnet' } as const;
const UNISAT_CHAIN = { mainnet: 'BITCOIN_MAINNET', testnet: 'BITCOIN_TESTNET', signet: 'BITCOIN_SIGNET' } as const;

/** Adds the Bitcoin test wallet to every page of the context; `wallet` is read at each request. */
export async function addBitcoinWallet(context: BrowserContext, wallet: () => BitcoinWalletBehaviour): Promise<void> {
  await context.exposeFunction(
    '__signetBitcoinWallet',
    async (method: string, input: Record<string, unknown> = {}): Promise<Answer> => {
      const w = wallet();
      const type = w.type ?? 'p2wpkh';
      const network = w.network ?? 'mainnet';
      const address = w.key.address(type, network);
      w.calls?.push(input.form ? `${method}:${String(input.form)}` : method);
      switch (method) {
        case 'describe':
          return {
            absent: w.absent === true,
            shape: w.shape,
            name: w.name ?? 'Test Bitcoin Wallet',
            chain: WALLET_STANDARD_CHAIN[network],
            unisatChain: UNISAT_CHAIN[network],
          };
        case 'connect':
          return { address, addressType: type, purpose: 'payment' };
        case 'sign': {
          if (w.rejectSignature) return { error: 'User rejected the request.', code: 4001 };
          const text = String(input.text);
          const signAs = w.signAs ?? type;
          return { signature: w.key.sign(signAs, text, { network }) };
        }
        default:
          return { error: `unsupported method ${method}` };
      }
    },
  );
  await context.addInitScript(() => {
    type Call = (method: string, input?: unknown) => Promise<Record<string, unknown>>;
    const call = (window as unknown as { __signetBitcoinWallet: Call }).__signetBitcoinWallet;
    const ask = async (method: string, input?: unknown) => {
      const answer = await call(method, input);
      if (typeof answer.error === 'string') throw Object.assign(new Error(answer.error), { code: answer.code });
      return answer;
    };
    const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    const icon =
      'data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22 viewBox=%220 0 24 24%22%3E%3Crect width=%2224%22 height=%2224%22 rx=%225%22 fill=%22%23f7931a%22/%3E%3C/svg%3E';
    call('describe').then((description) => {
      if (description.absent) return;
      const name = description.name as string;
      const w = window as unknown as Record<string, unknown>;
      if (description.shape === 'unisat') {
        w.unisat = {
          requestAccounts: async () => [(await ask('connect')).address],
          getChain: async () => ({ enum: description.unisatChain }),
          signMessage: async (text: string, form: string) => (await ask('sign', { text, form })).signature,
        };
        return;
      }
      if (description.shape === 'sats') {
        w.TestSatsProvider = {
          async request(method: string, params: Record<string, unknown> = {}) {
            try {
              if (method === 'getAddresses') return { jsonrpc: '2.0', id: '1', result: { addresses: [await ask('connect')] } };
              if (method === 'signMessage') {
                const { signature } = await ask('sign', { text: params.message, form: params.protocol });
                return {
                  jsonrpc: '2.0',
                  id: '1',
                  result: { signature, address: params.address, messageHash: '', protocol: params.protocol },
                };
              }
              return { jsonrpc: '2.0', id: '1', error: { code: -32601, message: 'Method not found' } };
            } catch (error) {
              // sats-connect's USER_REJECTION.
              return { jsonrpc: '2.0', id: '1', error: { code: -32000, message: (error as Error).message } };
            }
          },
        };
        w.btc_providers = [{ id: 'TestSatsProvider', name, icon, webUrl: 'https://wallet.example' }];
        // As Xverse does: its provider is also sats-connect's default, listed under another name.
        w.XverseProviders = { BitcoinProvider: w.TestSatsProvider };
        return;
      }
      // The Wallet Standard, with the Bitcoin features @exodus/bitcoin-wallet-standard names.
      const chains = [description.chain as string];
      let accounts: Record<string, unknown>[] = [];
      const wallet = {
        version: '1.0.0',
        name,
        icon,
        chains,
        get accounts() {
          return accounts;
        },
        features: {
          'bitcoin:connect': {
            version: '1.0.0',
            async connect() {
              const { address } = await ask('connect');
              accounts = [Object.freeze({ address, publicKey: new Uint8Array(33), chains, features: ['bitcoin:signMessage'] })];
              return { accounts };
            },
          },
          'bitcoin:signMessage': {
            version: '1.0.0',
            async signMessage(...inputs: { account: { address: string }; message: Uint8Array }[]) {
              return Promise.all(
                inputs.map(async ({ account, message }) => {
                  if (!accounts.includes(account)) throw new Error('unknown account');
                  const { signature } = await ask('sign', { text: new TextDecoder().decode(message) });
                  return { signedMessage: message, signature: fromBase64(signature as string) };
                }),
              );
            },
          },
          'standard:events': { version: '1.0.0', on: () => () => {} },
        },
      };
      const callback = ({ register }: { register(w: unknown): void }) => register(wallet);
      window.addEventListener('wallet-standard:app-ready', (event) =>
        callback((event as unknown as { detail: { register(w: unknown): void } }).detail),
      );
      window.dispatchEvent(new CustomEvent('wallet-standard:register-wallet', { detail: callback }));
    });
  });
}
