import { base58 } from '@scure/base';
import { parseSiwsMessage, validateSiwsMessage, verifySiws } from '@signet/siws';
import { solanaKeypair } from '@signet/testkit';
import { createSignInMessageText } from '@solana/wallet-standard-util';
import { describe, expect, it } from 'vitest';
import { buildDetails } from '../details.ts';
import { notAsGiven, solanaExpectationsFor, solanaMessageFromDetails, solanaSignInInput } from './contract.ts';

const started = Date.parse('2026-11-22T10:00:00Z');
// The details as the provider builds them for a sign-in to "Shop" that began at `started`.
const details = buildDetails(
  {
    domain: 'id.example.com',
    origin: 'https://id.example.com',
    chainIds: [1],
    solanaNetworks: ['mainnet', 'devnet'],
    profile: 'self-hosted',
    emailScope: false,
  },
  {
    uid: 'abcd1234',
    iat: started / 1000,
    exp: started / 1000 + 600,
    params: { client_id: 'c', redirect_uri: 'https://shop.example/callback', scope: 'openid' },
    prompt: { name: 'login' },
  },
  { client_id: 'c', client_name: 'Shop' },
);
const keypair = solanaKeypair(new Uint8Array(32).fill(3));

describe('the Solana interaction contract, written once', () => {
  it('the details offer Solana with its networks', () => {
    expect(details).toMatchObject({
      namespaces: ['eip155', 'solana'],
      solanaNetworks: ['mainnet', 'devnet'],
      nonce: '6162636431323334',
      statement: 'Sign in to Shop with id.example.com.',
      resources: ['https://shop.example/callback'],
    });
  });

  it('a message built from the details meets the expectations built from the same details, and verifies', () => {
    const now = started + 5_000;
    const message = solanaMessageFromDetails(details, { address: keypair.address, network: 'devnet', now });
    const verified = verifySiws({
      message,
      signature: base58.encode(keypair.sign(message)),
      expect: solanaExpectationsFor(details, { now, clockSkewMs: 60_000 }),
    });
    expect(verified).toMatchObject({ address: keypair.address, network: 'devnet', method: 'ed25519' });
    expect(notAsGiven(details, verified.message)).toBeUndefined();
  });

  it('is exactly the text a Wallet Standard wallet writes for the input (the reference createSignInMessageText)', () => {
    const input = solanaSignInInput(details, { network: 'mainnet', now: started + 1000 });
    expect(createSignInMessageText({ ...input, address: keypair.address })).toBe(
      solanaMessageFromDetails(details, { address: keypair.address, network: 'mainnet', now: started + 1000 }),
    );
  });

  it('issuedAt is never before the sign-in began, even from a clock that runs behind; the expiry is the sign-in’s', () => {
    expect(solanaSignInInput(details, { network: 'mainnet', now: started - 30_000 }).issuedAt).toBe(details.issuedAfter);
    const input = solanaSignInInput(details, { network: 'devnet', now: started + 1000 });
    expect(input).toMatchObject({
      issuedAt: new Date(started + 1000).toISOString(),
      expirationTime: details.expiresAt,
      chainId: 'devnet',
    });
  });

  it('the expectations refuse a message made for other details (another sign-in, another client)', () => {
    const other = { ...details, nonce: '6566676835363738', resources: ['https://evil.example/cb'] as [string] };
    const parsed = parseSiwsMessage(
      solanaMessageFromDetails(other, { address: keypair.address, network: 'mainnet', now: started }),
    );
    expect(() => validateSiwsMessage(parsed, solanaExpectationsFor(details, { now: started, clockSkewMs: 0 }))).toThrow(
      expect.objectContaining({ type: 'NONCE_MISMATCH' }),
    );
  });

  it('notAsGiven names the first field a wallet changed, added or left out; the address, network and time are the wallet’s', () => {
    const given = parseSiwsMessage(
      solanaMessageFromDetails(details, { address: keypair.address, network: 'mainnet', now: started }),
    );
    const other = solanaKeypair(new Uint8Array(32).fill(4)).address;
    expect(notAsGiven(details, { ...given, address: other, chainId: 'solana:devnet', issuedAt: '2026-11-22T10:01:00Z' })).toBe(
      undefined,
    );
    const changes: [Partial<typeof given>, string][] = [
      [{ domain: 'ID.example.com' }, 'domain'],
      [{ statement: 'Sign in to Bank with id.example.com.' }, 'statement'],
      [{ statement: undefined }, 'statement'],
      [{ uri: 'https://id.example.com/x' }, 'uri'],
      [{ version: undefined }, 'version'],
      [{ nonce: '6162636431323335' }, 'nonce'],
      // Later than the sign-in's own (a message may leave it out, or end earlier: see below).
      [{ expirationTime: '2026-11-22T10:10:00.001Z' }, 'expirationTime'],
      [{ expirationTime: 'tomorrow' }, 'expirationTime'],
      [{ notBefore: details.issuedAfter }, 'notBefore'],
      [{ requestId: 'r' }, 'requestId'],
      [{ resources: [...details.resources, 'https://x.example/'] }, 'resources'],
      [{ resources: undefined }, 'resources'],
    ];
    for (const [change, field] of changes) {
      expect(notAsGiven(details, { ...given, ...change })?.field, field).toBe(field);
    }
    // An expiration may be left out (the sign-in bounds the message), or say the sign-in's own or an earlier one.
    for (const expirationTime of [undefined, '2026-11-22T10:10:00Z', '2026-11-22T11:10:00+01:00', '2026-11-22T10:05:00Z'])
      expect(notAsGiven(details, { ...given, expirationTime }), String(expirationTime)).toBeUndefined();
  });
});
