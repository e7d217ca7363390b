/**
 * Verification: every address type on every network in every accepted form, then each refusal
 * with its type. Signatures are made by @scure/btc-signer's signer (`signers.testkit.ts`) and
 * @noble/curves; interop.test.ts holds them to bip322-js and bitcoinjs-message.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { base64 } from '@scure/base';
import { RawTx, RawWitness, Script, SigHash, WIF } from '@scure/btc-signer';
import { describe, expect, it } from 'vitest';
import { bip322ToSign, bip322ToSpend } from './bip322.ts';
import { MAX_SIWB_SIGNATURE_LENGTH } from './constants.ts';
import { type CreateSiwbMessageParameters, createSiwbMessage } from './createSiwbMessage.ts';
import { SiwbError, type SiwbErrorType } from './errors.ts';
import { BITCOIN_CHAIN_REFERENCES, type BitcoinNetwork } from './networks.ts';
import { parseSiwbMessage } from './parseSiwbMessage.ts';
import { addressOf, editSignature, payment, signBip137, signBip322, TEST_ADDRESS_TYPES, testKey } from './signers.testkit.ts';
import { verifyBitcoinSignature } from './verifyBitcoinSignature.ts';
import { verifySiwb } from './verifySiwb.ts';
import { verifySiwbSignature } from './verifySiwbSignature.ts';

/** BIP-322's test key. */
const KEY = testKey(WIF().decode('L3VFeEujGtevx9w18HD1fhRbCH67Az2dpCymeRE1SoPK6XQtaN2k'));
const OTHER = testKey(new Uint8Array(32).fill(7));
const NOW = Date.parse('2025-01-01T00:05:00Z');

const fields = (address: string, network: BitcoinNetwork = 'mainnet'): CreateSiwbMessageParameters => ({
  domain: 'login.example.com',
  address,
  statement: 'Sign in to Example.',
  uri: 'https://login.example.com/interaction/abc',
  chainId: BITCOIN_CHAIN_REFERENCES[network],
  nonce: 'abcdef0123456789',
  issuedAt: '2025-01-01T00:00:00.000Z',
  resources: ['https://rp.example.org/cb'],
});
const P2WPKH = addressOf(KEY, 'p2wpkh');
const P2TR = addressOf(KEY, 'p2tr');
const P2SH = addressOf(KEY, 'p2sh-p2wpkh');
const P2PKH = addressOf(KEY, 'p2pkh');
const textFor = (address: string, network?: BitcoinNetwork) => createSiwbMessage(fields(address, network));

function refusal(run: () => unknown): { type: SiwbErrorType; field: string | undefined } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SiwbError);
    return { type: (error as SiwbError).type, field: (error as SiwbError).field };
  }
  throw new Error('expected a refusal');
}
const refused = (address: string, signature: string, network?: BitcoinNetwork) =>
  refusal(() => verifySiwbSignature({ message: textFor(address, network), signature }));
const witnessOf = (signature: string) => RawWitness.decode(base64.decode(signature));
const asWitness = (items: Uint8Array[]) => base64.encode(RawWitness.encode(items));

describe('verifySiwbSignature: accepted', () => {
  const cases: [BitcoinNetwork, (typeof TEST_ADDRESS_TYPES)[number]][] = [];
  for (const network of ['mainnet', 'testnet', 'testnet4', 'signet'] as const) {
    for (const type of TEST_ADDRESS_TYPES) cases.push([network, type]);
  }
  for (const [network, type] of cases) {
    const family = network === 'mainnet' ? 'mainnet' : 'test';
    const address = addressOf(KEY, type, family);
    const text = textFor(address, network);
    const forms: [string, string][] = type.startsWith('p2pkh')
      ? [['bip137', signBip137(KEY, text, { compressed: type === 'p2pkh' })]]
      : [
          ['bip322-simple', signBip322(KEY, type as 'p2wpkh', text, { family })],
          ['bip322-full', signBip322(KEY, type as 'p2wpkh', text, { family, form: 'full' })],
        ];
    for (const [method, signature] of forms) {
      it(`${type} on ${network}, ${method}: verifies, with the network and the CAIP-10 account id`, () => {
        expect(verifySiwbSignature({ message: text, signature })).toEqual({
          message: parseSiwbMessage(text),
          address,
          network,
          accountId: `bip122:${BITCOIN_CHAIN_REFERENCES[network]}:${address}`,
          addressType: type === 'p2pkh-uncompressed' ? 'p2pkh' : type,
          method,
        });
      });
    }
  }

  it('accepts a Taproot signature with an explicit SIGHASH_ALL byte (65 bytes), as bip322-js writes them', () => {
    const text = textFor(P2TR);
    const signature = signBip322(KEY, 'p2tr', text, { sighash: SigHash.ALL });
    expect(witnessOf(signature)[0]?.length).toBe(65);
    expect(verifySiwbSignature({ message: text, signature }).method).toBe('bip322-simple');
  });

  it('accepts a parsed message (formatted back to the signed text), and bytes for the signature', () => {
    const text = textFor(P2WPKH);
    const signature = signBip322(KEY, 'p2wpkh', text);
    expect(verifySiwbSignature({ message: parseSiwbMessage(text), signature }).address).toBe(P2WPKH);
    expect(verifySiwbSignature({ message: text, signature: base64.decode(signature) }).address).toBe(P2WPKH);
  });

  it('verifySiwb: parse, validate and verify with the expectations a provider sets', () => {
    const text = textFor(P2TR);
    const result = verifySiwb({
      message: text,
      signature: signBip322(KEY, 'p2tr', text),
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
    expect(result).toMatchObject({ address: P2TR, network: 'mainnet', addressType: 'p2tr', method: 'bip322-simple' });
    expect(
      refusal(() => verifySiwb({ message: text, signature: signBip322(KEY, 'p2tr', text), expect: { networks: ['signet'] } })),
    ).toEqual({
      type: 'CHAIN_NOT_ALLOWED',
      field: 'chainId',
    });
  });
});

describe('verifySiwbSignature: refused, each with its reason (signer and type)', () => {
  it('a signature by another key, or of another message: INVALID_SIGNATURE (401)', () => {
    const text = textFor(P2WPKH);
    const otherText = text.replace('abcdef0123456789', 'abcdef0123456780');
    for (const [address, type] of [
      [P2WPKH, 'p2wpkh'],
      [P2TR, 'p2tr'],
      [P2SH, 'p2sh-p2wpkh'],
    ] as const) {
      expect(refused(address, signBip322(OTHER, type, textFor(address))), type).toEqual({
        type: 'INVALID_SIGNATURE',
        field: 'signature',
      });
      const ofOther = signBip322(KEY, type, textFor(address).replace('abcdef0123456789', 'abcdef0123456780'));
      expect(refused(address, ofOther), type).toEqual({ type: 'INVALID_SIGNATURE', field: 'signature' });
      const fullOfOther = signBip322(KEY, type, textFor(address).replace('abcdef0123456789', 'abcdef0123456780'), {
        form: 'full',
      });
      expect(refused(address, fullOfOther), type).toEqual({ type: 'INVALID_SIGNATURE', field: 'signature' });
    }
    expect(refused(P2PKH, signBip137(OTHER, textFor(P2PKH)))).toEqual({ type: 'INVALID_SIGNATURE', field: 'signature' });
    expect(refused(P2PKH, signBip137(KEY, otherText))).toEqual({ type: 'INVALID_SIGNATURE', field: 'signature' });
  });

  it('a signature for another address type than the address: SIGNATURE_TYPE_MISMATCH', () => {
    // The same key's Taproot signature offered for its bc1q address, and the reverse.
    expect(refused(P2WPKH, signBip322(KEY, 'p2tr', textFor(P2WPKH)))).toEqual({
      type: 'SIGNATURE_TYPE_MISMATCH',
      field: 'signature',
    });
    expect(refused(P2SH, signBip322(KEY, 'p2tr', textFor(P2SH)))).toEqual({
      type: 'SIGNATURE_TYPE_MISMATCH',
      field: 'signature',
    });
    expect(refused(P2TR, signBip322(KEY, 'p2wpkh', textFor(P2TR)))).toEqual({
      type: 'SIGNATURE_TYPE_MISMATCH',
      field: 'signature',
    });
    // BIP-322 for a P2PKH address (BIP-137 only here).
    expect(refused(P2PKH, signBip322(KEY, 'p2wpkh', textFor(P2PKH)))).toEqual({
      type: 'SIGNATURE_TYPE_MISMATCH',
      field: 'signature',
    });
    expect(refused(P2PKH, signBip322(KEY, 'p2wpkh', textFor(P2PKH), { form: 'full' }))).toEqual({
      type: 'SIGNATURE_TYPE_MISMATCH',
      field: 'signature',
    });
  });

  it('BIP-137 for a segwit or Taproot address, even with an honest header: SIGNATURE_TYPE_MISMATCH', () => {
    expect(refused(P2WPKH, signBip137(KEY, textFor(P2WPKH), { claim: 'p2wpkh' }))).toEqual({
      type: 'SIGNATURE_TYPE_MISMATCH',
      field: 'signature',
    });
    expect(refused(P2SH, signBip137(KEY, textFor(P2SH), { claim: 'p2sh-p2wpkh' }))).toEqual({
      type: 'SIGNATURE_TYPE_MISMATCH',
      field: 'signature',
    });
    expect(refused(P2WPKH, signBip137(KEY, textFor(P2WPKH)))).toEqual({ type: 'SIGNATURE_TYPE_MISMATCH', field: 'signature' });
    expect(refused(P2TR, signBip137(KEY, textFor(P2TR)))).toEqual({ type: 'SIGNATURE_TYPE_MISMATCH', field: 'signature' });
  });

  it('a BIP-137 header that lies about the address type or the key’s compression: SIGNATURE_TYPE_MISMATCH', () => {
    const text = textFor(P2PKH);
    expect(refused(P2PKH, signBip137(KEY, text, { claim: 'p2wpkh' }))).toEqual({
      type: 'SIGNATURE_TYPE_MISMATCH',
      field: 'signature',
    });
    expect(refused(P2PKH, signBip137(KEY, text, { claim: 'p2sh-p2wpkh' }))).toEqual({
      type: 'SIGNATURE_TYPE_MISMATCH',
      field: 'signature',
    });
    // Header 27–30 (uncompressed) for the address of the compressed key.
    expect(refused(P2PKH, signBip137(KEY, text, { compressed: false }))).toEqual({
      type: 'SIGNATURE_TYPE_MISMATCH',
      field: 'signature',
    });
    const uncompressed = addressOf(KEY, 'p2pkh-uncompressed');
    expect(refused(uncompressed, signBip137(KEY, textFor(uncompressed), { compressed: true }))).toEqual({
      type: 'SIGNATURE_TYPE_MISMATCH',
      field: 'signature',
    });
  });
});

describe('verifySiwbSignature: refused, each with its reason (network and encoding)', () => {
  it('a test-network address under mainnet’s Chain ID, or the reverse: NETWORK_MISMATCH (before any signature is read)', () => {
    const testAddress = addressOf(KEY, 'p2wpkh', 'test');
    const onMainnet = textFor(P2WPKH).replace(P2WPKH, testAddress);
    expect(refusal(() => verifySiwbSignature({ message: onMainnet, signature: 'AA==' }))).toEqual({
      type: 'NETWORK_MISMATCH',
      field: 'address',
    });
    const onSignet = textFor(testAddress, 'signet').replace(testAddress, P2WPKH);
    expect(refusal(() => verifySiwbSignature({ message: onSignet, signature: 'AA==' }))).toEqual({
      type: 'NETWORK_MISMATCH',
      field: 'address',
    });
  });

  it('a high-S or non-strict-DER ECDSA signature: NON_CANONICAL_SIGNATURE (though the high-S one is valid arithmetic)', () => {
    const text = textFor(P2WPKH);
    const [sig, key] = witnessOf(signBip322(KEY, 'p2wpkh', text)) as [Uint8Array, Uint8Array];
    const low = secp256k1.Signature.fromBytes(sig.subarray(0, -1), 'der');
    const high = new secp256k1.Signature(low.r, secp256k1.Point.CURVE().n - low.s);
    const highDer = high.toBytes('der');
    const toSign = bip322ToSign(bip322ToSpend(text, payment(KEY, 'p2wpkh').script), payment(KEY, 'p2wpkh').script);
    const sighash = toSign.preimageWitnessV0(0, payment(KEY, 'p2pkh').script, SigHash.ALL, 0n);
    expect(secp256k1.verify(highDer, sighash, key, { prehash: false, lowS: false, format: 'der' })).toBe(true);
    expect(refused(P2WPKH, asWitness([Uint8Array.from([...highDer, 1]), key]))).toEqual({
      type: 'NON_CANONICAL_SIGNATURE',
      field: 'signature',
    });
    // r with an unnecessary leading zero (lengths adjusted): BER, not DER.
    const rLength = sig[3] as number;
    const padded = Uint8Array.from([0x30, (sig[1] as number) + 1, 0x02, rLength + 1, 0x00, ...sig.subarray(4)]);
    expect(refused(P2WPKH, asWitness([padded, key]))).toEqual({ type: 'NON_CANONICAL_SIGNATURE', field: 'signature' });
    // Garbage where the DER signature goes, and a DER signature past 72 bytes.
    expect(refused(P2WPKH, asWitness([new Uint8Array([0x30, 1, 2, 1]), key]))).toEqual({
      type: 'NON_CANONICAL_SIGNATURE',
      field: 'signature',
    });
    expect(refused(P2WPKH, asWitness([new Uint8Array(74).fill(0x30), key]))).toEqual({
      type: 'NON_CANONICAL_SIGNATURE',
      field: 'signature',
    });
    // BIP-137 with s flipped to n − s (and the recovery id flipped to match): the same key recovers, refused all the same.
    const legacy = base64.decode(signBip137(KEY, textFor(P2PKH)));
    const compact = secp256k1.Signature.fromBytes(legacy.subarray(1), 'compact');
    const flipped = Uint8Array.from([
      (((legacy[0] as number) - 27) ^ 1) + 27,
      ...new secp256k1.Signature(compact.r, secp256k1.Point.CURVE().n - compact.s).toBytes('compact'),
    ]);
    expect(refused(P2PKH, base64.encode(flipped))).toEqual({ type: 'NON_CANONICAL_SIGNATURE', field: 'signature' });
  });

  it('a signature hash type other than SIGHASH_ALL or Taproot’s default: UNSUPPORTED_SIGHASH (though valid under its own type)', () => {
    const text = textFor(P2WPKH);
    for (const sighash of [SigHash.NONE, SigHash.SINGLE, SigHash.ALL_ANYONECANPAY]) {
      const signature = signBip322(KEY, 'p2wpkh', text, { sighash });
      const [sig, key] = witnessOf(signature) as [Uint8Array, Uint8Array];
      const toSign = bip322ToSign(bip322ToSpend(text, payment(KEY, 'p2wpkh').script), payment(KEY, 'p2wpkh').script);
      const preimage = toSign.preimageWitnessV0(0, payment(KEY, 'p2pkh').script, sighash, 0n);
      expect(secp256k1.verify(sig.subarray(0, -1), preimage, key, { prehash: false, format: 'der' })).toBe(true);
      expect(refused(P2WPKH, signature)).toEqual({ type: 'UNSUPPORTED_SIGHASH', field: 'signature' });
    }
    const taprootText = textFor(P2TR);
    for (const sighash of [SigHash.NONE, SigHash.SINGLE_ANYONECANPAY]) {
      expect(refused(P2TR, signBip322(KEY, 'p2tr', taprootText, { sighash }))).toEqual({
        type: 'UNSUPPORTED_SIGHASH',
        field: 'signature',
      });
    }
    // SIGHASH_DEFAULT written out as a 65th byte 0x00: BIP-341 forbids it.
    const [schnorrSig] = witnessOf(signBip322(KEY, 'p2tr', taprootText)) as [Uint8Array];
    expect(refused(P2TR, asWitness([Uint8Array.from([...schnorrSig, 0])]))).toEqual({
      type: 'UNSUPPORTED_SIGHASH',
      field: 'signature',
    });
  });
});

describe('verifySiwbSignature: refused, each with its reason (witness and size)', () => {
  it('a witness with extra or missing items: MALFORMED_SIGNATURE (a P2SH witness of a script: UNSUPPORTED_ADDRESS_TYPE)', () => {
    const witness = witnessOf(signBip322(KEY, 'p2wpkh', textFor(P2WPKH)));
    expect(refused(P2WPKH, asWitness([...witness, new Uint8Array([1])]))).toEqual({
      type: 'MALFORMED_SIGNATURE',
      field: 'signature',
    });
    expect(refused(P2WPKH, asWitness([witness[0] as Uint8Array]))).toEqual({ type: 'MALFORMED_SIGNATURE', field: 'signature' });
    const taproot = witnessOf(signBip322(KEY, 'p2tr', textFor(P2TR)));
    // An annex (0x50…) after the signature, and a script-path-shaped witness.
    expect(refused(P2TR, asWitness([...taproot, new Uint8Array([0x50, 1])]))).toEqual({
      type: 'MALFORMED_SIGNATURE',
      field: 'signature',
    });
    expect(refused(P2TR, asWitness([...taproot, new Uint8Array([0x51]), new Uint8Array(33).fill(0xc0)]))).toEqual({
      type: 'MALFORMED_SIGNATURE',
      field: 'signature',
    });
    expect(refused(P2TR, asWitness([new Uint8Array(63)]))).toEqual({ type: 'MALFORMED_SIGNATURE', field: 'signature' });
    const p2sh = witnessOf(signBip322(KEY, 'p2sh-p2wpkh', textFor(P2SH)));
    expect(refused(P2SH, asWitness([new Uint8Array(), ...p2sh]))).toEqual({ type: 'UNSUPPORTED_ADDRESS_TYPE', field: 'address' });
    // A 33-byte key that is no point on the curve (x = 0), and an uncompressed key in a segwit witness.
    const offCurve = Uint8Array.from([2, ...new Uint8Array(32)]);
    expect(() => secp256k1.Point.fromBytes(offCurve)).toThrow();
    expect(refused(P2SH, asWitness([p2sh[0] as Uint8Array, offCurve]))).toEqual({
      type: 'MALFORMED_SIGNATURE',
      field: 'signature',
    });
    expect(refused(P2WPKH, asWitness([witness[0] as Uint8Array, offCurve]))).toEqual({
      type: 'MALFORMED_SIGNATURE',
      field: 'signature',
    });
    expect(refused(P2WPKH, asWitness([witness[0] as Uint8Array, secp256k1.getPublicKey(KEY.privateKey, false)]))).toEqual({
      type: 'MALFORMED_SIGNATURE',
      field: 'signature',
    });
  });

  it('an oversized, empty, non-base64 or truncated signature: MALFORMED_SIGNATURE', () => {
    const signature = signBip322(KEY, 'p2wpkh', textFor(P2WPKH));
    const long = 'A'.repeat(MAX_SIWB_SIGNATURE_LENGTH + 4);
    for (const bad of [
      long,
      '',
      'AA==',
      signature.replace(/=+$/, ''),
      `${signature}\n`,
      signature.replaceAll('+', '-'),
      signature.slice(0, 40),
    ]) {
      expect(refused(P2WPKH, bad), JSON.stringify(bad)).toEqual({ type: 'MALFORMED_SIGNATURE', field: 'signature' });
    }
    expect(
      refused(
        P2WPKH,
        editSignature(signature, (bytes) => Uint8Array.from([...bytes, 0])),
      ),
    ).toEqual({
      type: 'MALFORMED_SIGNATURE',
      field: 'signature',
    });
    expect(refusal(() => verifySiwbSignature({ message: textFor(P2WPKH), signature: new Uint8Array(301) }))).toEqual({
      type: 'MALFORMED_SIGNATURE',
      field: 'signature',
    });
    expect(refusal(() => verifySiwbSignature({ message: textFor(P2WPKH), signature: 42 as unknown as string }))).toEqual({
      type: 'MALFORMED_SIGNATURE',
      field: 'signature',
    });
  });
});

describe('verifySiwbSignature: refused, each with its reason (full signatures)', () => {
  it('a full signature that is not the single-input template: MALFORMED_SIGNATURE, even when validly signed', () => {
    const text = textFor(P2WPKH);
    for (const template of [
      { version: 2 },
      { lockTime: 2016 },
      { sequence: 2016 },
      { version: 2, lockTime: 2016, sequence: 2016 },
    ]) {
      expect(refused(P2WPKH, signBip322(KEY, 'p2wpkh', text, { form: 'full', ...template })), JSON.stringify(template)).toEqual({
        type: 'MALFORMED_SIGNATURE',
        field: 'signature',
      });
    }
    const full = RawTx.decode(base64.decode(signBip322(KEY, 'p2wpkh', text, { form: 'full' })));
    const edited = (edit: (tx: typeof full) => void) => {
      const copy = RawTx.decode(RawTx.encode(full));
      edit(copy);
      return base64.encode(RawTx.encode(copy));
    };
    const input = full.inputs[0] as (typeof full.inputs)[number];
    const output = full.outputs[0] as (typeof full.outputs)[number];
    const cases = {
      'a second input (proof of funds)': edited((tx) => {
        tx.inputs.push({ ...input, index: 1 });
        tx.witnesses?.push([new Uint8Array([1])]);
      }),
      'a second output': edited((tx) => tx.outputs.push(output)),
      'an output of value 1': edited((tx) => {
        (tx.outputs[0] as typeof output).amount = 1n;
      }),
      'an output other than OP_RETURN': edited((tx) => {
        (tx.outputs[0] as typeof output).script = Script.encode(['RETURN', new Uint8Array([1])]);
      }),
      'a scriptSig for a native segwit spend': edited((tx) => {
        (tx.inputs[0] as typeof input).finalScriptSig = new Uint8Array([0x51]);
      }),
      'no witness': base64.encode(RawTx.encode({ ...full, segwitFlag: false, witnesses: undefined })),
      'a trailing byte': base64.encode(Uint8Array.from([...RawTx.encode(full), 0])),
    };
    for (const [name, signature] of Object.entries(cases)) {
      expect(refused(P2WPKH, signature), name).toEqual({ type: 'MALFORMED_SIGNATURE', field: 'signature' });
    }
    // P2SH-P2WPKH: the scriptSig must push the redeem script (it is not under the signature hash).
    const p2sh = RawTx.decode(base64.decode(signBip322(KEY, 'p2sh-p2wpkh', textFor(P2SH), { form: 'full' })));
    (p2sh.inputs[0] as typeof input).finalScriptSig = Script.encode([new Uint8Array(22)]);
    expect(refused(P2SH, base64.encode(RawTx.encode(p2sh)))).toEqual({ type: 'MALFORMED_SIGNATURE', field: 'signature' });
  });

  it('a Taproot address whose output key is not a curve point: INVALID_SIGNATURE (no one can sign for it)', () => {
    const offCurve = 'bc1pqqqqqqqqzyzspqf9qsqsqqq2qqqqqpcvq2cnxqrqyuqy5qqqqqpsnz39k2';
    expect(parseSiwbMessage(textFor(offCurve)).address).toBe(offCurve);
    expect(refused(offCurve, asWitness([new Uint8Array(64)]))).toEqual({ type: 'INVALID_SIGNATURE', field: 'signature' });
  });

  it('a BIP-137 signature whose r or s is out of range: MALFORMED_SIGNATURE; one from which no key recovers: INVALID_SIGNATURE', () => {
    const zero = new Uint8Array(65);
    zero[0] = 31;
    expect(refused(P2PKH, base64.encode(zero))).toEqual({ type: 'MALFORMED_SIGNATURE', field: 'signature' });
    const legacy = base64.decode(signBip137(KEY, textFor(P2PKH)));
    // Recovery id 2 or 3 says r was reduced from x ≥ n: with an ordinary r, no point.
    legacy[0] = (legacy[0] as number) < 33 ? 33 : 34;
    expect(refused(P2PKH, base64.encode(legacy))).toEqual({ type: 'INVALID_SIGNATURE', field: 'signature' });
  });

  it('verifyBitcoinSignature (the message-independent part) refuses addresses it cannot use, with a type', () => {
    expect(refusal(() => verifyBitcoinSignature('not an address', 'x', 'AA=='))).toEqual({
      type: 'INVALID_ADDRESS',
      field: 'address',
    });
    expect(
      refusal(() => verifyBitcoinSignature('bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3', 'x', 'AA==')),
    ).toEqual({
      type: 'UNSUPPORTED_ADDRESS_TYPE',
      field: 'address',
    });
  });
});
