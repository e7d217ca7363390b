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
