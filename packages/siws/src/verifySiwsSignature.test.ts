/**
 * Verification vectors. Signatures are made by Node's own Ed25519 (OpenSSL), a second
 * implementation beside the @noble/curves code that verifies them, with RFC 8032's first test
 * key; the negative ones each name the type and field of the refusal.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import { base58, base64, base64urlnopad } from '@scure/base';
import { verifyMessageSignature } from '@solana/wallet-standard-util';
import { describe, expect, it } from 'vitest';
import { createSiwsMessage } from './createSiwsMessage.ts';
import { SiwsError, type SiwsErrorType, type SiwsField } from './errors.ts';
import { parseSiwsMessage } from './parseSiwsMessage.ts';
import { verifySiws } from './verifySiws.ts';
import { verifySiwsSignature } from './verifySiwsSignature.ts';

const hex = (text: string) => Uint8Array.from(Buffer.from(text, 'hex'));
/** RFC 8032 §7.1, TEST 1. */
const SECRET = hex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
const PUBLIC = hex('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
const ADDRESS = base58.encode(PUBLIC);
const KEY = createPrivateKey({
  key: { kty: 'OKP', crv: 'Ed25519', d: base64urlnopad.encode(SECRET), x: base64urlnopad.encode(PUBLIC) },
  format: 'jwk',
});
/** Another key, for signatures by someone else. */
const OTHER = generateKeyPairSync('ed25519').privateKey;

const encoder = new TextEncoder();
const signText = (text: string, key = KEY) => new Uint8Array(sign(null, encoder.encode(text), key));

const NOW = Date.parse('2025-01-01T00:05:00Z');
const FIELDS = {
  domain: 'login.example.com',
  address: ADDRESS,
  statement: 'Sign in to Example.',
  uri: 'https://login.example.com/interaction/abc',
  version: '1',
  chainId: 'mainnet',
  nonce: 'abcdef0123456789',
  issuedAt: '2025-01-01T00:00:00.000Z',
  resources: ['https://rp.example.org/cb'],
} as const;
const TEXT = createSiwsMessage({ ...FIELDS, resources: [...FIELDS.resources] });
const SIGNATURE = signText(TEXT);

function verifyError(run: () => unknown): SiwsError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SiwsError);
    return error as SiwsError;
  }
  throw new Error('expected verification to fail');
}

describe('verifySiwsSignature: positive vectors', () => {
  it('the key is RFC 8032 test 1 (Node derives the same public key)', () => {
    const jwk = createPublicKey(KEY).export({ format: 'jwk' });
    expect(jwk.x).toBe(base64urlnopad.encode(PUBLIC));
  });

  it('accepts the signature in base58, in padded base64 and as bytes; returns network and CAIP-10 account id', () => {
    for (const signature of [base58.encode(SIGNATURE), base64.encode(SIGNATURE), SIGNATURE]) {
      expect(verifySiwsSignature({ message: TEXT, signature })).toEqual({
        message: parseSiwsMessage(TEXT),
        address: ADDRESS,
        network: 'mainnet',
        accountId: `solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:${ADDRESS}`,
        method: 'ed25519',
      });
    }
  });

  it('accepts a parsed message (formatted back to the signed text)', () => {
    expect(verifySiwsSignature({ message: parseSiwsMessage(TEXT), signature: SIGNATURE }).address).toBe(ADDRESS);
  });

  it('maps each network to its genesis-hash reference; localnet and no Chain ID have none', () => {
    const accountOf = (chainId: string | undefined) => {
      const text = createSiwsMessage({
        domain: 'a.example',
        address: ADDRESS,
        ...(chainId ? { chainId: chainId as 'mainnet' } : {}),
      });
      const { network, accountId } = verifySiwsSignature({ message: text, signature: signText(text) });
      return [network, accountId];
    };
    expect(accountOf('devnet')).toEqual(['devnet', `solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1:${ADDRESS}`]);
    expect(accountOf('solana:testnet')).toEqual(['testnet', `solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z:${ADDRESS}`]);
    expect(accountOf('localnet')).toEqual(['localnet', undefined]);
    expect(accountOf(undefined)).toEqual([undefined, undefined]);
  });

  it('verifySiws: parse, validate and verify with the expectations a provider sets', () => {
    const result = verifySiws({
      message: TEXT,
      signature: base58.encode(SIGNATURE),
      expect: {
        domain: 'login.example.com',
        origin: 'https://login.example.com',
        nonce: 'abcdef0123456789',
        networks: ['mainnet'],
        resource: 'https://rp.example.org/cb',
        time: NOW,
        maxAge: 600_000,
      },
    });
    expect(result).toMatchObject({ address: ADDRESS, network: 'mainnet', method: 'ed25519' });
  });
});

describe('verifySiwsSignature: negative vectors', () => {
  const identity = new Uint8Array(32);
  identity[0] = 1; // the neutral point's encoding (y = 1): a small-order "public key"
  const identityAddress = base58.encode(identity);
  const identityText = createSiwsMessage({ domain: 'a.example', address: identityAddress, nonce: 'anything1' });
  /** R = the neutral point, s = 0: [s]B = R + [k]A holds for every message when A is the neutral point. */
  const trivialSignature = new Uint8Array(64);
  trivialSignature.set(identity);

  const L = 2n ** 252n + 27742317777372353535851937790883648493n;
  const sPlusL = (() => {
    const s = SIGNATURE.slice(32).reduceRight((acc, byte) => (acc << 8n) | BigInt(byte), 0n) + L;
    const bytes = SIGNATURE.slice();
    for (let i = 0; i < 32; i++) bytes[32 + i] = Number((s >> BigInt(8 * i)) & 0xffn);
    return bytes;
  })();

  const offCurve = '8opHzTAnfzRpPEx21XtnrVTX28YQuCpAjcn1PczScKh'; // y = 2: no x on the curve
  const offCurveText = createSiwsMessage({ domain: 'a.example', address: offCurve });

  const cases: Record<string, [message: string, signature: unknown, type: SiwsErrorType, field: SiwsField, words?: RegExp]> = {
    'a signature by another key': [TEXT, signText(TEXT, OTHER), 'INVALID_SIGNATURE', 'signature', /not made by/],
    'the signed text with its nonce changed': [
      TEXT.replace('abcdef0123456789', 'abcdef0123456780'),
      SIGNATURE,
      'INVALID_SIGNATURE',
      'signature',
      /not made by/,
    ],
    'the signed text with another network': [
      TEXT.replace('Chain ID: mainnet', 'Chain ID: devnet'),
      SIGNATURE,
      'INVALID_SIGNATURE',
      'signature',
    ],
    'one bit of the signature flipped': [TEXT, SIGNATURE.map((b, i) => (i === 40 ? b ^ 1 : b)), 'INVALID_SIGNATURE', 'signature'],
    '63 bytes': [TEXT, base58.encode(SIGNATURE.slice(0, 63)), 'INVALID_SIGNATURE', 'signature', /64 bytes.*63/],
    '65 bytes': [TEXT, base58.encode(new Uint8Array([...SIGNATURE, 0])), 'INVALID_SIGNATURE', 'signature', /64 bytes.*65/],
    '65 bytes as a Uint8Array': [TEXT, new Uint8Array(65), 'INVALID_SIGNATURE', 'signature'],
    'base64 without its padding': [TEXT, base64.encode(SIGNATURE).replace(/=+$/, ''), 'INVALID_SIGNATURE', 'signature'],
    base64url: [TEXT, base64urlnopad.encode(SIGNATURE), 'INVALID_SIGNATURE', 'signature'],
    hex: [TEXT, `0x${Buffer.from(SIGNATURE).toString('hex')}`, 'INVALID_SIGNATURE', 'signature'],
    'base64 with non-zero padding bits': [
      TEXT,
      `${base64.encode(SIGNATURE).slice(0, 85)}B==`,
      'INVALID_SIGNATURE',
      'signature',
      /canonical/,
    ],
    'the empty string': [TEXT, '', 'INVALID_SIGNATURE', 'signature'],
    'a number': [TEXT, 42, 'INVALID_SIGNATURE', 'signature'],
    'a malleable signature (s + L)': [TEXT, sPlusL, 'INVALID_SIGNATURE', 'signature'],
    "the neutral point's address with a trivial signature": [
      identityText,
      trivialSignature,
      'INVALID_SIGNATURE',
      'signature',
      /small-order/,
    ],
    "the neutral point's address written with y + p (non-canonical), with a trivial signature": [
      createSiwsMessage({
        domain: 'a.example',
        address: base58.encode(Uint8Array.from([0xee, ...new Array(30).fill(0xff), 0x7f])),
      }),
      trivialSignature,
      'INVALID_SIGNATURE',
      'signature',
      /not an Ed25519 public key/,
    ],
    "the neutral point's address with the sign bit set (x = 0, non-canonical), with a trivial signature": [
      createSiwsMessage({ domain: 'a.example', address: base58.encode(Uint8Array.from([1, ...new Array(30).fill(0), 0x80])) }),
      trivialSignature,
      'INVALID_SIGNATURE',
      'signature',
      /not an Ed25519 public key/,
    ],
    'an address off the curve (as program-derived addresses are)': [
      offCurveText,
      new Uint8Array(64),
      'INVALID_SIGNATURE',
      'signature',
      /not an Ed25519 public key/,
    ],
    'a message that does not parse': [TEXT.replace('\n', '\r\n'), SIGNATURE, 'UNABLE_TO_PARSE', 'message'],
  };
  for (const [name, [message, signature, type, field, words]] of Object.entries(cases)) {
    it(`refuses ${name}: ${type} on ${field}`, () => {
      const error = verifyError(() => verifySiwsSignature({ message, signature: signature as string }));
      expect({ type: error.type, field: error.field }).toEqual({ type, field });
      if (words) expect(error.message).toMatch(words);
    });
  }

  it('where the wallet-standard reference (ZIP-215 rules) accepts the trivial signature, this package does not', () => {
    // A deliberate difference: no one holds the neutral point's key, so ZIP-215 lets anyone sign as its address.
    expect(
      verifyMessageSignature({
        message: encoder.encode(identityText),
        signedMessage: encoder.encode(identityText),
        signature: trivialSignature,
        publicKey: identity,
      }),
    ).toBe(true);
    expect(() => verifySiwsSignature({ message: identityText, signature: trivialSignature })).toThrow(
      expect.objectContaining({ type: 'INVALID_SIGNATURE' }),
    );
  });

  it('verifySiws checks the message before the signature: a wrong nonce is NONCE_MISMATCH even with a bad signature', () => {
    expect(() => verifySiws({ message: TEXT, signature: new Uint8Array(64), expect: { nonce: 'other0000', time: NOW } })).toThrow(
      expect.objectContaining({ type: 'NONCE_MISMATCH' }),
    );
  });
});
