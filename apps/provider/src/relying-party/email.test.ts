import { describe, expect, it } from 'vitest';
import { emailClaims, inMailDomain } from './email.ts';

const ADDRESS = '0x5B38Da6a701c568545dCfcB03FcB875f56beddC4';
const MAILBOX = ADDRESS.toLowerCase();

describe('emailClaims: an ENS record never falls in the operator’s synthetic namespace', () => {
  const both = { ens: true, syntheticDomain: 'wallet.example.com' };

  it.each([
    `${MAILBOX}@wallet.example.com`,
    `${MAILBOX}@Wallet.Example.Com`,
    `${MAILBOX}@wallet.example.com.`,
    `${MAILBOX}@login.wallet.example.com`,
    `someone@wallet.example.com`,
  ])('the record %s is not used: the signer gets its own synthetic address', (record) => {
    const attacker = '0x0000000000000000000000000000000000000001';
    expect(emailClaims(both, { address: attacker, email: record })).toEqual({
      email: `${attacker}@wallet.example.com`,
      email_verified: false,
    });
  });

  it('a record elsewhere is used as before (unverified); without a synthetic domain nothing changes', () => {
    for (const record of ['me@example.org', 'me@notwallet.example.com', 'me@wallet.example.community']) {
      expect(emailClaims(both, { address: ADDRESS, email: record })?.email).toBe(record);
    }
    expect(emailClaims({ ens: true }, { address: ADDRESS, email: `${MAILBOX}@wallet.example.com` })?.email).toBe(
      `${MAILBOX}@wallet.example.com`,
    );
  });

  it('inMailDomain folds Unicode and punycode spellings, and counts an unreadable domain as inside', () => {
    expect(inMailDomain('a@bücher.example', 'xn--bcher-kva.example')).toBe(true);
    expect(inMailDomain('a@xn--bcher-kva.example', 'xn--bcher-kva.example')).toBe(true);
    expect(inMailDomain('a@exa mple', 'wallet.example.com')).toBe(true);
    expect(inMailDomain('a@other.example', 'wallet.example.com')).toBe(false);
  });
});

describe('emailClaims: a Bitcoin sign-in’s synthetic address', () => {
  const sources = { ens: false, syntheticDomain: 'wallet.example.com' };

  it('bech32 in lower case; base58 (case-sensitive) as the hex of its version byte and hash', () => {
    const bech32 = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
    expect(emailClaims(sources, { address: bech32, namespace: 'bip122' })?.email).toBe(`${bech32}@wallet.example.com`);
    // 1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2: P2PKH of this hash on mainnet (version 0x00).
    expect(emailClaims(sources, { address: '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', namespace: 'bip122' })?.email).toBe(
      '0077bff20c60e522dfaa3350c39b030a5d004e839a@wallet.example.com',
    );
    // The same hash as P2SH (3…) is another mailbox.
    expect(emailClaims(sources, { address: '3CMNFxN1oHBc4R1EpboAL5yzHGgE611Xou', namespace: 'bip122' })?.email).toMatch(
      /^05[0-9a-f]{40}@wallet\.example\.com$/,
    );
  });
});
