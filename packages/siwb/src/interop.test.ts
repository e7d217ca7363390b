/**
 * Interoperability with two independent implementations, in both directions, for every
 * address type on mainnet and the test networks:
 *
 * - bip322-js (BIP-322 simple for P2WPKH, P2SH-P2WPKH, P2TR; BIP-137 for P2PKH): what it signs,
 *   this package verifies; what this package's test signer makes, it verifies.
 * - bitcoinjs-message (BIP-137): the same for P2PKH. For segwit addresses it writes BIP-137
 *   signatures with segwit headers, which this package refuses by design (SIGNATURE_TYPE_MISMATCH).
 *
 * bip322-js does not verify full signatures; for those, the witness inside the full `to_sign`
 * is checked by bip322-js as a simple signature (the same witness signs the same hash).
 */
import { base64 } from '@scure/base';
import { RawTx, RawWitness } from '@scure/btc-signer';
import { Signer, Verifier } from 'bip322-js';
import * as bitcoinMessage from 'bitcoinjs-message';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSiwbMessage } from './createSiwbMessage.ts';
import { SiwbError } from './errors.ts';
import { BITCOIN_CHAIN_REFERENCES, type BitcoinNetwork } from './networks.ts';
import { addressOf, signBip137, signBip322, TEST_ADDRESS_TYPES, type TestAddressType, testKey } from './signers.testkit.ts';
import { verifyBitcoinSignature } from './verifyBitcoinSignature.ts';
import { verifySiwbSignature } from './verifySiwbSignature.ts';

const networks = fc.constantFrom<BitcoinNetwork>('mainnet', 'testnet', 'testnet4', 'signet');
const keys = fc.uint8Array({ minLength: 32, maxLength: 32 }).filter((bytes) => bytes.some((b) => b !== 0) && bytes[0] !== 0xff);
const statements = fc
  .string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz ABC.,:/?#'), minLength: 1, maxLength: 40 })
  .filter((s) => !/^(URI|Version|Chain ID|Nonce|Issued At|Expiration Time|Not Before|Request ID): |^Resources:$/.test(s));
const familyOf = (network: BitcoinNetwork) => (network === 'mainnet' ? 'mainnet' : 'test');
const messageFor = (address: string, network: BitcoinNetwork, statement: string) =>
  createSiwbMessage({
    domain: 'login.example.com',
    address,
    statement,
    uri: 'https://login.example.com/interaction/abc',
    chainId: BITCOIN_CHAIN_REFERENCES[network],
    nonce: 'abcdef0123456789',
    issuedAt: '2025-01-01T00:00:00.000Z',
  });
const compressedType = (type: TestAddressType) => type !== 'p2pkh-uncompressed';

describe.each(TEST_ADDRESS_TYPES)('%s', (type) => {
  it('bip322-js signs, this package verifies (the whole SIWB check, with the account id)', () => {
    fc.assert(
      fc.property(keys, networks, statements, (seed, network, statement) => {
        const key = testKey(seed);
        const address = addressOf(key, type, familyOf(network));
        const text = messageFor(address, network, statement);
        const signature = Signer.sign(key.wif(familyOf(network), compressedType(type)), address, text);
        const result = verifySiwbSignature({ message: text, signature });
        expect(result.accountId).toBe(`bip122:${BITCOIN_CHAIN_REFERENCES[network]}:${address}`);
        expect(result.method).toBe(type.startsWith('p2pkh') ? 'bip137' : 'bip322-simple');
      }),
      { numRuns: 25 },
    );
  });

  it('this package’s signer signs, bip322-js verifies, and so does this package; a changed message fails both', () => {
    fc.assert(
      fc.property(keys, networks, statements, (seed, network, statement) => {
        const key = testKey(seed);
        const address = addressOf(key, type, familyOf(network));
        const text = messageFor(address, network, statement);
        const signature = type.startsWith('p2pkh')
          ? signBip137(key, text, { compressed: compressedType(type) })
          : signBip322(key, type as 'p2wpkh', text, { family: familyOf(network) });
        expect(Verifier.verifySignature(address, text, signature)).toBe(true);
        expect(verifySiwbSignature({ message: text, signature }).address).toBe(address);
        const other = text.replace('abcdef0123456789', 'abcdef0123456788');
        expect(Verifier.verifySignature(address, other, signature)).toBe(false);
        expect(() => verifySiwbSignature({ message: other, signature })).toThrow(SiwbError);
      }),
      { numRuns: 25 },
    );
  });

  if (type.startsWith('p2pkh')) {
    it('bitcoinjs-message signs, this package verifies; this package’s BIP-137, bitcoinjs-message verifies', () => {
      fc.assert(
        fc.property(keys, networks, statements, (seed, network, statement) => {
          const key = testKey(seed);
          const address = addressOf(key, type, familyOf(network));
          const text = messageFor(address, network, statement);
          const theirs = bitcoinMessage.sign(text, Buffer.from(key.privateKey), compressedType(type)).toString('base64');
          expect(verifySiwbSignature({ message: text, signature: theirs }).method).toBe('bip137');
          const ours = signBip137(key, text, { compressed: compressedType(type) });
          expect(bitcoinMessage.verify(text, address, ours)).toBe(true);
        }),
        { numRuns: 25 },
      );
    });
  } else {
    it('a full signature’s witness is one bip322-js accepts as a simple signature', () => {
      fc.assert(
        fc.property(keys, networks, statements, (seed, network, statement) => {
          const key = testKey(seed);
          const address = addressOf(key, type, familyOf(network));
          const text = messageFor(address, network, statement);
          const full = signBip322(key, type as 'p2wpkh', text, { family: familyOf(network), form: 'full' });
          expect(verifySiwbSignature({ message: text, signature: full }).method).toBe('bip322-full');
          const witness = RawTx.decode(base64.decode(full)).witnesses?.[0] ?? [];
          expect(Verifier.verifySignature(address, text, base64.encode(RawWitness.encode(witness)))).toBe(true);
        }),
        { numRuns: 15 },
      );
    });
  }
});

describe('where this package is stricter than the others, on purpose', () => {
  const key = testKey(new Uint8Array(32).fill(3));
  const text = 'Hello World';

  it('bitcoinjs-message’s BIP-137 signatures for segwit addresses verify there, and are refused here (SIGNATURE_TYPE_MISMATCH)', () => {
    for (const [type, segwitType] of [
      ['p2wpkh', 'p2wpkh'],
      ['p2sh-p2wpkh', 'p2sh(p2wpkh)'],
    ] as const) {
      const address = addressOf(key, type);
      const signature = bitcoinMessage.sign(text, Buffer.from(key.privateKey), true, { segwitType }).toString('base64');
      expect(bitcoinMessage.verify(text, address, signature)).toBe(true);
      expect(() => verifyBitcoinSignature(address, text, signature)).toThrow(
        expect.objectContaining({ type: 'SIGNATURE_TYPE_MISMATCH' }),
      );
    }
  });

  it('bip322-js (loose mode, its default) takes a P2PKH-header BIP-137 signature for the same key’s segwit addresses; this package does not', () => {
    const signature = signBip137(key, text);
    for (const type of ['p2wpkh', 'p2sh-p2wpkh'] as const) {
      const address = addressOf(key, type);
      expect(Verifier.verifySignature(address, text, signature)).toBe(true);
      expect(() => verifyBitcoinSignature(address, text, signature)).toThrow(
        expect.objectContaining({ type: 'SIGNATURE_TYPE_MISMATCH' }),
      );
    }
  });
});
