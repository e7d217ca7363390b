import { BITCOIN_CHAIN_REFERENCES, parseSiwbMessage, validateSiwbMessage, verifySiwb } from '@signet/siwb';
import { bitcoinKey } from '@signet/testkit';
import { describe, expect, it } from 'vitest';
import { buildDetails } from '../details.ts';
import { bitcoinExpectationsFor, bitcoinMessageFields, bitcoinMessageFromDetails, bitcoinNotAsGiven } from './contract.ts';

const started = Date.parse('2026-11-22T10:00:00Z');
// The details as the provider builds them for a sign-in to "Shop" that began at `started`.
const details = buildDetails(
  {
    domain: 'id.example.com',
    origin: 'https://id.example.com',
    chainIds: [1],
    solanaNetworks: [],
    bitcoinNetworks: ['mainnet', 'signet'],
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
const key = bitcoinKey(new Uint8Array(32).fill(3));

describe('the Bitcoin interaction contract, written once', () => {
  it('the details offer Bitcoin (bip122) with its networks', () => {
    expect(details).toMatchObject({
      namespaces: ['eip155', 'bip122'],
      bitcoinNetworks: ['mainnet', 'signet'],
      nonce: '6162636431323334',
      statement: 'Sign in to Shop with id.example.com.',
      resources: ['https://shop.example/callback'],
    });
    expect(details.solanaNetworks).toBeUndefined();
  });

  it('the message is CAIP-122 text with the network’s CAIP-2 reference as Chain ID and the details’ values', () => {
    const address = key.address('p2tr');
    const message = bitcoinMessageFromDetails(details, { address, network: 'mainnet', now: started + 1000 });
    expect(message).toBe(
      [
        'id.example.com wants you to sign in with your Bitcoin account:',
        address,
        '',
        'Sign in to Shop with id.example.com.',
        '',
        'URI: https://id.example.com',
        'Version: 1',
        'Chain ID: 000000000019d6689c085ae165831e93',
        'Nonce: 6162636431323334',
        `Issued At: ${new Date(started + 1000).toISOString()}`,
        `Expiration Time: ${details.expiresAt}`,
        'Resources:',
        '- https://shop.example/callback',
      ].join('\n'),
    );
  });

  it('a message built from the details meets the expectations built from the same details, and verifies (every address type)', () => {
    const now = started + 5_000;
    for (const type of ['p2wpkh', 'p2tr', 'p2sh-p2wpkh', 'p2pkh'] as const) {
      for (const network of ['mainnet', 'signet'] as const) {
        const address = key.address(type, network);
        const message = bitcoinMessageFromDetails(details, { address, network, now });
        const verified = verifySiwb({
          message,
          signature: key.sign(type, message, { network }),
          expect: bitcoinExpectationsFor(details, { now, clockSkewMs: 60_000 }),
        });
        expect(verified.accountId, `${type} on ${network}`).toBe(`bip122:${BITCOIN_CHAIN_REFERENCES[network]}:${address}`);
        expect(bitcoinNotAsGiven(details, verified.message)).toBeUndefined();
      }
    }
  });

  it('issuedAt is never before the sign-in began, even from a clock that runs behind; the expiry is the sign-in’s', () => {
    expect(bitcoinMessageFields(details, { network: 'mainnet', now: started - 30_000 }).issuedAt).toBe(details.issuedAfter);
    expect(bitcoinMessageFields(details, { network: 'signet', now: started + 1000 })).toMatchObject({
      issuedAt: new Date(started + 1000).toISOString(),
      expirationTime: details.expiresAt,
      chainId: BITCOIN_CHAIN_REFERENCES.signet,
    });
  });

  it('the expectations refuse a message made for other details (another sign-in, a network not offered)', () => {
    const address = key.address('p2wpkh');
    const other = { ...details, nonce: '6566676835363738' };
    const parsed = parseSiwbMessage(bitcoinMessageFromDetails(other, { address, network: 'mainnet', now: started }));
    const expect0 = bitcoinExpectationsFor(details, { now: started, clockSkewMs: 0 });
    expect(() => validateSiwbMessage(parsed, expect0)).toThrow(expect.objectContaining({ type: 'NONCE_MISMATCH' }));
    const testnet = parseSiwbMessage(
      bitcoinMessageFromDetails(details, { address: key.address('p2wpkh', 'testnet'), network: 'testnet', now: started }),
    );
    expect(() => validateSiwbMessage(testnet, expect0)).toThrow(expect.objectContaining({ type: 'CHAIN_NOT_ALLOWED' }));
  });
});

describe('the Bitcoin message holds every field the details give', () => {
  it('bitcoinNotAsGiven names the first field that is not the details’ own; the address, network and time are the signer’s', () => {
    const given = parseSiwbMessage(
      bitcoinMessageFromDetails(details, { address: key.address('p2wpkh'), network: 'mainnet', now: started }),
    );
    expect(
      bitcoinNotAsGiven(details, {
        ...given,
        address: key.address('p2tr', 'signet'),
        chainId: BITCOIN_CHAIN_REFERENCES.signet,
        issuedAt: '2026-11-22T10:01:00Z',
      }),
    ).toBeUndefined();
    const changes: [Partial<typeof given>, string][] = [
      [{ domain: 'ID.example.com' }, 'domain'],
      [{ statement: 'Sign in to Bank with id.example.com.' }, 'statement'],
      [{ statement: undefined }, 'statement'],
      [{ uri: 'https://id.example.com/x' }, 'uri'],
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
      expect(bitcoinNotAsGiven(details, { ...given, ...change })?.field, field).toBe(field);
    }
    // An expiration may be left out (the sign-in bounds the message), or say the sign-in's own or an earlier one.
    for (const expirationTime of [undefined, '2026-11-22T10:10:00Z', '2026-11-22T11:10:00+01:00', '2026-11-22T10:05:00Z'])
      expect(bitcoinNotAsGiven(details, { ...given, expirationTime }), String(expirationTime)).toBeUndefined();
  });
});
