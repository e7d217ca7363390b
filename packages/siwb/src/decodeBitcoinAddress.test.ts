/**
 * Address decoding: BIP-350's segwit address vectors (valid and invalid, each with why), the
 * base58check addresses of private key 1, and a differential fuzz against @scure/btc-signer's
 * `Address().decode`, which the verifier uses (this module is its browser-sized twin).
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bech32, bech32m, hex } from '@scure/base';
import { Address, NETWORK, p2pkh, TEST_NETWORK } from '@scure/btc-signer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type DecodedBitcoinAddress,
  decodeBitcoinAddress,
  isBitcoinAddress,
  readBitcoinAddress,
} from './decodeBitcoinAddress.ts';

const shape = (decoded: DecodedBitcoinAddress | undefined) =>
  decoded && { type: decoded.type, family: decoded.family, data: hex.encode(decoded.data) };

describe('decodeBitcoinAddress: BIP-350 vectors', () => {
  // Valid segwit addresses and the scriptPubKey each translates to.
  const valid: [string, string][] = [
    ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', '0014751e76e8199196d454941c45d1b3a323f1433bd6'],
    [
      'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7',
      '00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262',
    ],
    [
      'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y',
      '5128751e76e8199196d454941c45d1b3a323f1433bd6751e76e8199196d454941c45d1b3a323f1433bd6',
    ],
    ['BC1SW50QGDZ25J', '6002751e'],
    ['bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs', '5210751e76e8199196d454941c45d1b3a323'],
    [
      'tb1qqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesrxh6hy',
      '0020000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433',
    ],
    [
      'tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c',
      '5120000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433',
    ],
    [
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
      '512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798',
    ],
  ];
  const expectedType = ['p2wpkh', 'p2wsh', 'witness', 'witness', 'witness', 'p2wsh', 'p2tr', 'p2tr'];

  it('reads every valid one: its witness version and program are those of its scriptPubKey', () => {
    valid.forEach(([address, script], i) => {
      const decoded = decodeBitcoinAddress(address);
      expect(decoded, address).toBeDefined();
      const { witnessVersion, data, type, family } = decoded as DecodedBitcoinAddress;
      const opcode = witnessVersion === 0 ? 0 : 0x50 + (witnessVersion as number);
      expect(hex.encode(Uint8Array.from([opcode, data.length, ...data]))).toBe(script);
      expect(type).toBe(expectedType[i]);
      expect(family).toBe(address.toLowerCase().startsWith('bc1') ? 'mainnet' : 'test');
    });
  });

  it('lets only lower-case P2WPKH and P2TR of them sign in (upper case is one address spelt twice; P2WSH and unknown versions cannot sign)', () => {
    expect(valid.map(([address]) => isBitcoinAddress(address))).toEqual([false, false, false, false, false, false, true, true]);
    expect(isBitcoinAddress('BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4'.toLowerCase())).toBe(true);
  });

  const invalid: [string, string][] = [
    ['tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut', 'Invalid human-readable part'],
    ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd', 'Bech32 instead of Bech32m'],
    ['tb1z0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqglt7rf', 'Bech32 instead of Bech32m'],
    ['BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL', 'Bech32 instead of Bech32m'],
    ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh', 'Bech32m instead of Bech32'],
    ['tb1q0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq24jc47', 'Bech32m instead of Bech32'],
    ['bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4', 'Invalid character in checksum'],
    ['BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R', 'Invalid witness version'],
    ['bc1pw5dgrnzv', 'Invalid program length (1 byte)'],
    ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav', 'Invalid program length (41 bytes)'],
    ['BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P', 'Invalid program length for witness version 0'],
    ['tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq', 'Mixed case'],
    ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf', 'zero padding of more than 4 bits'],
    ['tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vpggkg4j', 'Non-zero padding in 8-to-5 conversion'],
    ['bc1gmk9yu', 'Empty data section'],
  ];
  for (const [address, why] of invalid) {
    it(`refuses ${address.slice(0, 24)}… (${why}), as btc-signer does`, () => {
      expect(typeof readBitcoinAddress(address)).toBe('string');
      expect(() => Address(NETWORK).decode(address)).toThrow();
      expect(() => Address(TEST_NETWORK).decode(address)).toThrow();
    });
  }
});

describe('decodeBitcoinAddress: base58check', () => {
  it('reads the P2PKH addresses of private key 1 (compressed and uncompressed key) and test-network P2PKH / P2SH', () => {
    const one = new Uint8Array(32);
    one[31] = 1;
    const compressed = p2pkh(secp256k1.getPublicKey(one, true)).address;
    const uncompressed = p2pkh(secp256k1.getPublicKey(one, false)).address;
    expect([compressed, uncompressed]).toEqual(['1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH', '1EHNa6Q4Jz2uvNExL497mE43ikXhwF6kZm']);
    expect(shape(decodeBitcoinAddress('1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH'))).toEqual({
      type: 'p2pkh',
      family: 'mainnet',
      data: '751e76e8199196d454941c45d1b3a323f1433bd6',
    });
    const testPkh = p2pkh(secp256k1.getPublicKey(one, true), TEST_NETWORK).address as string;
    expect(testPkh[0]).toMatch(/[mn]/);
    expect(shape(decodeBitcoinAddress(testPkh))?.family).toBe('test');
    const sh = Address(TEST_NETWORK).encode({ type: 'sh', hash: new Uint8Array(20).fill(7) });
    expect(sh[0]).toBe('2');
    expect(shape(decodeBitcoinAddress(sh))).toEqual({ type: 'p2sh', family: 'test', data: '07'.repeat(20) });
  });

  it('refuses other base58check payloads (Litecoin-style versions, 20 or 22 bytes) and broken checksums', () => {
    const litecoin = Address({ ...NETWORK, pubKeyHash: 0x30 }).encode({ type: 'pkh', hash: new Uint8Array(20) });
    expect(readBitcoinAddress(litecoin)).toMatch(/another kind/);
    expect(readBitcoinAddress('1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMJ')).toMatch(/checksum/);
    expect(readBitcoinAddress('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080')).toMatch(/checksum|base58/);
    expect(readBitcoinAddress(42 as unknown as string)).toMatch(/string/);
  });
});

describe('decodeBitcoinAddress agrees with @scure/btc-signer', () => {
  const btcSigner = (address: string) => {
    for (const [family, network] of [
      ['mainnet', NETWORK],
      ['test', TEST_NETWORK],
    ] as const) {
      try {
        const value = Address(network).decode(address);
        const type = { pkh: 'p2pkh', sh: 'p2sh', wpkh: 'p2wpkh', wsh: 'p2wsh', tr: 'p2tr', p2a: 'witness' }[value.type as string];
        // (P2A's value is its script: OP_1, a push of the 2-byte program.)
        const data =
          value.type === 'tr'
            ? value.pubkey
            : 'hash' in value
              ? value.hash
              : (value as { script: Uint8Array }).script.subarray(2);
        return { type, family, data: hex.encode(data as Uint8Array) };
      } catch {
        // not this network's
      }
    }
    return undefined;
  };
  const addresses = fc.oneof(
    fc
      .record({
        type: fc.constantFrom('pkh', 'sh', 'wpkh', 'wsh', 'tr'),
        test: fc.boolean(),
        data: fc.uint8Array({ minLength: 32, maxLength: 32 }),
      })
      .map(({ type, test, data }) => {
        const network = test ? TEST_NETWORK : NETWORK;
        if (type === 'tr') return Address(network).encode({ type, pubkey: data });
        return Address(network).encode({ type, hash: type === 'wsh' ? data : data.subarray(0, 20) } as never);
      }),
    // Other witness versions and program lengths, in the right checksum or the wrong one.
    fc
      .record({
        version: fc.integer({ min: 0, max: 31 }),
        data: fc.uint8Array({ minLength: 0, maxLength: 42 }),
        hrp: fc.constantFrom('bc', 'tb', 'bcrt', 'ltc'),
        m: fc.boolean(),
      })
      .map(({ version, data, hrp, m }) => (m ? bech32m : bech32).encode(hrp, [version, ...bech32.toWords(data)], false)),
  );
  const edit = fc.oneof(
    fc.constant({ kind: 'none' as const }),
    fc.record({ kind: fc.constant('upper' as const) }),
    fc.record({ kind: fc.constant('flipCase' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), char: fc.constantFrom('q', 'p', '1', 'A', 'z', '0') }),
    fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  );
  const apply = (address: string, e: { kind: string; at?: number; char?: string }) => {
    if (e.kind === 'upper') return address.toUpperCase();
    const at = (e.at ?? 0) % address.length;
    const c = address[at] as string;
    if (e.kind === 'flipCase')
      return address.slice(0, at) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + address.slice(at + 1);
    if (e.kind === 'replace') return address.slice(0, at) + e.char + address.slice(at + 1);
    if (e.kind === 'delete') return address.slice(0, at) + address.slice(at + 1);
    return address;
  };

  it('on generated and edited addresses: the same type, network family and payload, or both refuse', () => {
    let read = 0;
    fc.assert(
      fc.property(addresses, edit, (address, e) => {
        const text = apply(address, e);
        const ours = shape(decodeBitcoinAddress(text));
        const theirs = btcSigner(text);
        if (ours !== undefined) read += 1;
        // btc-signer describes no witness version above 1 (nor v1 programs of other lengths than 32): it throws.
        if (ours?.type === 'witness' && theirs === undefined) return;
        expect(ours, text).toEqual(theirs);
      }),
      { numRuns: 3000 },
    );
    // Both sides are reached: about a fifth of the edited addresses stay valid.
    expect(read).toBeGreaterThan(400);
  });
});
