/**
 * Properties (fast-check):
 *
 * - Valid fields format to a text that parses back to the same fields, and the text is the
 *   only spelling: formatting the parsed fields gives it back byte for byte.
 * - Whatever the input (mutated messages, random lines, random strings), the parser returns or
 *   throws SiwbError, nothing else; a mutated text it accepts is canonical too.
 * - Whatever the signature (random bytes, mutated valid signatures of every form), verification
 *   returns or throws SiwbError with a specific reason (never the catch-all); what it accepts,
 *   bip322-js accepts too (this package is the stricter of the two).
 */
import { base64 } from '@scure/base';
import { isFieldLine } from '@signet/siwe/caip122';
import { Verifier } from 'bip322-js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSiwbMessage } from './createSiwbMessage.ts';
import { SiwbError } from './errors.ts';
import { BITCOIN_CHAIN_REFERENCES, BITCOIN_NETWORKS } from './networks.ts';
import { parseSiwbMessage } from './parseSiwbMessage.ts';
import { addressOf, signBip137, signBip322, TEST_ADDRESS_TYPES, type TestAddressType, testKey } from './signers.testkit.ts';
import type { SiwbMessage } from './types.ts';
import { verifyBitcoinSignature } from './verifyBitcoinSignature.ts';

const STATEMENT_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;= ";
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const PCHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@";
const fromChars = (chars: string, minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...chars), minLength, maxLength });
const isoDate = fc
  .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2999-12-31T23:59:59Z'), noInvalidDate: true })
  .map((d) => d.toISOString());
const secretKeys = fc.uint8Array({ minLength: 32, maxLength: 32 }).filter((b) => b.some((x) => x !== 0) && b[0] !== 0xff);

/** An address of a network: any key, any address type. */
const networkAndAddress = fc
  .record({ network: fc.constantFrom(...BITCOIN_NETWORKS), seed: secretKeys, type: fc.constantFrom(...TEST_ADDRESS_TYPES) })
  .map(({ network, seed, type }) => ({
    chainId: BITCOIN_CHAIN_REFERENCES[network],
    address: addressOf(testKey(seed), type, network === 'mainnet' ? 'mainnet' : 'test'),
  }));

/** Random valid messages: the required fields always, every optional one maybe. */
const validFields: fc.Arbitrary<SiwbMessage> = fc
  .record(
    {
      domain: fc
        .tuple(fc.domain(), fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }))
        .map(([host, port]) => (port === undefined ? host : `${host}:${port}`)),
      account: networkAndAddress,
      statement: fromChars(STATEMENT_CHARS, 1, 120).filter((s) => !isFieldLine(s)),
      uri: fc.webUrl({ withQueryParameters: true, withFragments: true }),
      nonce: fromChars(ALNUM, 8, 40),
      issuedAt: isoDate,
      expirationTime: isoDate,
      notBefore: isoDate,
      requestId: fromChars(PCHARS, 1, 40),
      resources: fc.array(fc.webUrl(), { maxLength: 4 }),
    },
    { requiredKeys: ['domain', 'account', 'uri', 'nonce', 'issuedAt'] },
  )
  .map(({ account, ...fields }) => {
    const message: SiwbMessage = {
      domain: fields.domain,
      address: account.address,
      ...(fields.statement === undefined ? {} : { statement: fields.statement }),
      uri: fields.uri,
      version: '1',
      chainId: account.chainId,
      nonce: fields.nonce,
      issuedAt: fields.issuedAt,
    };
    for (const key of ['expirationTime', 'notBefore', 'requestId', 'resources'] as const) {
      if (fields[key] !== undefined) Object.assign(message, { [key]: fields[key] });
    }
    return message;
  });

/** Parses, or returns undefined on SiwbError; any other error fails the property. */
function parseOrRefuse(text: string): SiwbMessage | undefined {
  try {
    return parseSiwbMessage(text);
  } catch (error) {
    if (!(error instanceof SiwbError)) throw error;
    return undefined;
  }
}

const mutation = fc.oneof(
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    char: fc.constantFrom('\n', ' ', ':', '-', 'A', '\r', '1', 'é', 'q'),
  }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('swapLines' as const), a: fc.nat(), b: fc.nat() }),
  fc.record({ kind: fc.constant('dropLine' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('repeatLine' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('upperCase' as const), at: fc.nat() }),
);
type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

function mutate(text: string, mutations: readonly Mutation[]): string {
  let out = text;
  for (const m of mutations) {
    const lines = out.split('\n');
    const pick = (n: number) => n % lines.length;
    if (m.kind === 'swapLines') {
      const [a, b] = [pick(m.a), pick(m.b)];
      [lines[a], lines[b]] = [lines[b] as string, lines[a] as string];
      out = lines.join('\n');
    } else if (m.kind === 'dropLine') {
      lines.splice(pick(m.at), 1);
      out = lines.join('\n');
    } else if (m.kind === 'repeatLine') {
      const at = pick(m.at);
      lines.splice(at, 0, lines[at] as string);
      out = lines.join('\n');
    } else if (m.kind === 'upperCase') {
      const at = pick(m.at);
      lines[at] = (lines[at] as string).toUpperCase();
      out = lines.join('\n');
    } else {
      const at = m.at % (out.length + 1);
      out = m.kind === 'insert' ? out.slice(0, at) + m.char + out.slice(at) : out.slice(0, at) + out.slice(at + 1);
    }
  }
  return out;
}

describe('message properties', () => {
  it('parse(create(fields)) gives the fields; create(parse(text)) gives the text', () => {
    fc.assert(
      fc.property(validFields, (fields) => {
        const text = createSiwbMessage(fields);
        expect(parseSiwbMessage(text)).toStrictEqual(fields);
        expect(createSiwbMessage(parseSiwbMessage(text))).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it('mutated messages: only SiwbError, and what is accepted is canonical', () => {
    let accepted = 0;
    fc.assert(
      fc.property(validFields, fc.array(mutation, { minLength: 1, maxLength: 3 }), (fields, mutations) => {
        const text = mutate(createSiwbMessage(fields), mutations);
        const parsed = parseOrRefuse(text);
        if (parsed) {
          accepted += 1;
          expect(createSiwbMessage(parsed)).toBe(text);
        }
      }),
      { numRuns: 2000 },
    );
    // Both sides are reached: some mutations keep a valid message (a dropped optional line, say).
    expect(accepted).toBeGreaterThan(50);
  });

  it('random lines under a valid preamble and address: only SiwbError', () => {
    const line = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constantFrom(
        '',
        'Resources:',
        '- https://a.example',
        'URI: https://a.example',
        'Nonce: abcdefgh',
        'Version: 1',
        `Chain ID: ${BITCOIN_CHAIN_REFERENCES.mainnet}`,
        `Chain ID: ${BITCOIN_CHAIN_REFERENCES.signet}`,
        'Issued At: 2025-01-01T00:00:00Z',
      ),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), (lines) => {
        const text = [
          'a.example wants you to sign in with your Bitcoin account:',
          'bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l',
          ...lines,
        ].join('\n');
        const parsed = parseOrRefuse(text);
        if (parsed) expect(createSiwbMessage(parsed)).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it('random strings and values: only SiwbError, from the parser and the formatter', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        parseOrRefuse(text);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expect(() => parseSiwbMessage(value as string)).toThrow(SiwbError);
        try {
          createSiwbMessage(value as never);
        } catch (error) {
          expect(error).toBeInstanceOf(SiwbError);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('signature properties', () => {
  /** Verifies, or returns the refusal's type; anything but a specific SiwbError fails the property. */
  function outcome(address: string, message: string, signature: string | Uint8Array): string {
    try {
      return verifyBitcoinSignature(address, message, signature).method;
    } catch (error) {
      expect(error).toBeInstanceOf(SiwbError);
      expect((error as SiwbError).message).not.toBe('the signature could not be read');
      return (error as SiwbError).type;
    }
  }
  type Form = readonly [TestAddressType, 'bip137' | 'simple' | 'full'];
  const forms = fc.constantFrom(
    ...TEST_ADDRESS_TYPES.flatMap((type): Form[] =>
      type.startsWith('p2pkh')
        ? [[type, 'bip137']]
        : [
            [type, 'simple'],
            [type, 'full'],
          ],
    ),
  );
  const edits = fc.oneof(
    fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
    fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('append' as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 4 }) }),
    fc.record({ kind: fc.constant('set' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
  );

  it('mutated valid signatures of every form: a specific SiwbError, or accepted only where bip322-js accepts too', () => {
    let refused = 0;
    fc.assert(
      fc.property(secretKeys, forms, fc.array(edits, { minLength: 1, maxLength: 3 }), (seed, [type, form], changes) => {
        const key = testKey(seed);
        const address = addressOf(key, type);
        const message = 'a.example wants you to sign in';
        const signature =
          form === 'bip137'
            ? signBip137(key, message, { compressed: type === 'p2pkh' })
            : signBip322(key, type as 'p2wpkh', message, { form: form as 'simple' | 'full' });
        expect(outcome(address, message, signature)).toBe(form === 'bip137' ? 'bip137' : `bip322-${form}`);
        let bytes = base64.decode(signature);
        for (const change of changes) {
          if (change.kind === 'flip')
            bytes[change.at % bytes.length] = (bytes[change.at % bytes.length] as number) ^ (1 << change.bit);
          else if (change.kind === 'set') bytes[change.at % bytes.length] = change.value;
          else if (change.kind === 'truncate') bytes = bytes.slice(0, change.at % bytes.length);
          else bytes = Uint8Array.from([...bytes, ...change.bytes]);
        }
        const result = outcome(address, message, base64.encode(bytes));
        if (result.startsWith('bip')) {
          // Accepted after the change: only where another implementation agrees (full signatures it cannot read).
          if (form !== 'full') expect(Verifier.verifySignature(address, message, base64.encode(bytes))).toBe(true);
        } else refused += 1;
      }),
      { numRuns: 1500 },
    );
    expect(refused).toBeGreaterThan(1200);
  });

  it('random bytes and strings as signatures, for every address type: a specific SiwbError', () => {
    const key = testKey(new Uint8Array(32).fill(9));
    const addresses = TEST_ADDRESS_TYPES.map((type) => addressOf(key, type));
    fc.assert(
      fc.property(
        fc.constantFrom(...addresses),
        fc.oneof(
          fc.uint8Array({ maxLength: 320 }),
          fc.uint8Array({ maxLength: 300 }).map((bytes) => base64.encode(bytes)),
          fc.string({ maxLength: 500 }),
          // Shapes that reach the deeper checks: a witness stack of random items, a BIP-137 header.
          fc
            .array(fc.uint8Array({ maxLength: 80 }), { minLength: 1, maxLength: 4 })
            .map((items) => Uint8Array.from([items.length, ...items.flatMap((item) => [item.length, ...item])])),
          fc
            .uint8Array({ minLength: 64, maxLength: 64 })
            .chain((rs) => fc.integer({ min: 27, max: 42 }).map((h) => Uint8Array.from([h, ...rs]))),
        ),
        (address, signature) => {
          expect(outcome(address, 'm', signature)).not.toMatch(/^bip/);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
