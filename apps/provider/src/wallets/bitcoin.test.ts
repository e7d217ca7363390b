import { createHash } from 'node:crypto';
import { base58check } from '@scure/base';
import { BITCOIN_CHAIN_REFERENCES, bitcoinAccountId } from '@signet/siwb';
import { bitcoinKey } from '@signet/testkit';
import { describe, expect, it } from 'vitest';
import { bitcoinMailbox, parseBitcoinAccountId } from './bitcoin.ts';
import { solanaAddressHex } from './solana.ts';

const key = bitcoinKey(new Uint8Array(32).fill(7));
const MAINNET = BITCOIN_CHAIN_REFERENCES.mainnet;
const b58 = base58check((data: Uint8Array) => new Uint8Array(createHash('sha256').update(data).digest()));

describe('Bitcoin account ids', () => {
  it('reads back the ids Signet writes, on every network and address type', () => {
    for (const network of ['mainnet', 'testnet', 'testnet4', 'signet'] as const) {
      for (const type of ['p2pkh', 'p2sh-p2wpkh', 'p2wpkh', 'p2tr'] as const) {
        const address = key.address(type, network);
        expect(parseBitcoinAccountId(bitcoinAccountId(network, address))).toEqual({ network, address });
      }
    }
  });

  it('refuses what Signet never writes: upper-case bech32, another network’s address, unknown references, other namespaces', () => {
    const address = key.address('p2wpkh');
    expect(parseBitcoinAccountId(`bip122:${MAINNET}:${address.toUpperCase()}`)).toBeUndefined();
    expect(parseBitcoinAccountId(`bip122:${MAINNET}:${key.address('p2wpkh', 'testnet')}`)).toBeUndefined();
    expect(parseBitcoinAccountId(`bip122:${BITCOIN_CHAIN_REFERENCES.signet}:${address}`)).toBeUndefined();
    expect(parseBitcoinAccountId(`bip122:0f9188f13cb7b2c71f2a335e3a4fc328:${address}`)).toBeUndefined();
    expect(parseBitcoinAccountId(`eip155:1:${address}`)).toBeUndefined();
    expect(parseBitcoinAccountId(`bip122:${MAINNET}:${address}x`)).toBeUndefined();
  });
});

describe('bitcoinMailbox: a case-free form of an address for synthetic e-mail', () => {
  it('bech32 in lower case (one address in either case)', () => {
    const address = key.address('p2tr');
    expect(bitcoinMailbox(address)).toBe(address);
    expect(bitcoinMailbox(address.toUpperCase())).toBe(address);
  });

  it('base58 as the hex of its version byte and hash: P2PKH and P2SH of one hash, mainnet and test, never share one', () => {
    const hash = new Uint8Array(20).fill(0xab);
    const addresses = [0x00, 0x05, 0x6f, 0xc4].map((version) => b58.encode(Uint8Array.from([version, ...hash])));
    const mailboxes = addresses.map(bitcoinMailbox);
    expect(mailboxes).toEqual(['00', '05', '6f', 'c4'].map((version) => version + 'ab'.repeat(20)));
    expect(new Set(mailboxes).size).toBe(4);
    // Base58 is case-sensitive: an address whose case changed is another address (or none), never the same mailbox.
    const p2pkh = key.address('p2pkh');
    expect(bitcoinMailbox(p2pkh)).toMatch(/^00[0-9a-f]{40}$/);
  });

  it('many keys and every address type: no two addresses share a mailbox, and none looks like an Ethereum or Solana one', () => {
    const seen = new Map<string, string>();
    for (let i = 0; i < 40; i++) {
      const k = bitcoinKey();
      for (const network of ['mainnet', 'testnet'] as const) {
        for (const type of ['p2pkh', 'p2pkh-uncompressed', 'p2sh-p2wpkh', 'p2wpkh', 'p2tr'] as const) {
          const address = k.address(type, network);
          const mailbox = bitcoinMailbox(address);
          expect(seen.get(mailbox) ?? address, mailbox).toBe(address);
          seen.set(mailbox, address);
          expect(mailbox).not.toMatch(/^0x/); // Ethereum: 0x + 40 hex
          expect(mailbox).not.toMatch(/^[0-9a-f]{64}$/); // Solana: the hex of 32 bytes
          expect(mailbox).toBe(mailbox.toLowerCase());
        }
      }
    }
    expect(seen.size).toBe(40 * 2 * 5);
    expect(solanaAddressHex('11111111111111111111111111111111')).toHaveLength(64);
  });

  it('refuses what is not a Bitcoin address', () => {
    expect(() => bitcoinMailbox('0x5B38Da6a701c568545dCfcB03FcB875f56beddC4')).toThrow(RangeError);
  });
});
