import fc from 'fast-check';
import { bytesToHex, checksumAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { type CreateSiweMessageParameters, createSiweMessage } from './createSiweMessage.ts';
import { SiweError } from './errors.ts';
import { parseSiweMessage } from './parseSiweMessage.ts';

const STATEMENT_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;= ";
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const PCHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@";

const fromChars = (chars: string, minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...chars), minLength, maxLength });

const isoDate = fc
  .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2999-12-31T23:59:59Z'), noInvalidDate: true })
  .map((d) => d.toISOString());

const validFields: fc.Arbitrary<CreateSiweMessageParameters> = fc.record(
  {
    scheme: fc.constantFrom('https', 'http', 'app+x.y-z'),
    domain: fc
      .tuple(fc.domain(), fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }))
      .map(([host, port]) => (port === undefined ? host : `${host}:${port}`)),
    address: fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => checksumAddress(bytesToHex(bytes))),
    statement: fromChars(STATEMENT_CHARS, 0, 120),
    uri: fc.webUrl({ withQueryParameters: true, withFragments: true }),
    chainId: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
    nonce: fromChars(ALNUM, 8, 40),
    issuedAt: isoDate,
    expirationTime: isoDate,
    notBefore: isoDate,
    requestId: fromChars(PCHARS, 0, 40),
    resources: fc.array(fc.webUrl(), { maxLength: 4 }),
  },
  { requiredKeys: ['domain', 'address', 'uri', 'chainId', 'nonce', 'issuedAt'] },
);

/** parse either succeeds or throws a SiweError: nothing else, whatever the input. */
function parseOrTypedError(text: string) {
  try {
    return parseSiweMessage(text);
  } catch (error) {
    if (!(error instanceof SiweError)) throw error;
    expect(typeof error.type).toBe('string');
    return undefined;
  }
}

describe('properties', () => {
  it('valid messages round-trip: format → parse → format gives the same text and fields', () => {
    fc.assert(
      fc.property(validFields, (fields) => {
        const text = createSiweMessage(fields);
        const parsed = parseSiweMessage(text);
        expect(createSiweMessage(parsed)).toBe(text);
        expect(parsed).toEqual({ ...fields, version: '1' });
      }),
      { numRuns: 500 },
    );
  });

  it('random strings never throw anything but SiweError', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        parseOrTypedError(text);
      }),
      { numRuns: 2000 },
    );
  });

  it('random lines under a valid preamble never throw anything but SiweError', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 60 }), { maxLength: 20 }), (lines) => {
        parseOrTypedError(['example.com wants you to sign in with your Ethereum account:', ...lines].join('\n'));
      }),
      { numRuns: 1000 },
    );
  });

  it('mutated valid messages either fail with SiweError or still round-trip', () => {
    const mutation = fc.oneof(
      fc.record({
        kind: fc.constant('insert' as const),
        at: fc.nat(),
        char: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
      }),
      fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
      fc.record({
        kind: fc.constant('replace' as const),
        at: fc.nat(),
        char: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
      }),
      fc.record({ kind: fc.constant('swapLines' as const), a: fc.nat(), b: fc.nat() }),
      fc.record({ kind: fc.constant('dropLine' as const), at: fc.nat() }),
    );
    fc.assert(
      fc.property(validFields, fc.array(mutation, { minLength: 1, maxLength: 3 }), (fields, mutations) => {
        let text = createSiweMessage(fields);
        for (const m of mutations) {
          if (m.kind === 'swapLines' || m.kind === 'dropLine') {
            const lines = text.split('\n');
            if (m.kind === 'swapLines') {
              const a = m.a % lines.length;
              const b = m.b % lines.length;
              [lines[a], lines[b]] = [lines[b] as string, lines[a] as string];
            } else {
              lines.splice(m.at % lines.length, 1);
            }
            text = lines.join('\n');
          } else {
            const at = m.at % (text.length + 1);
            text =
              m.kind === 'insert'
                ? text.slice(0, at) + m.char + text.slice(at)
                : m.kind === 'delete'
                  ? text.slice(0, at) + text.slice(at + 1)
                  : text.slice(0, at) + m.char + text.slice(at + 1);
          }
        }
        const parsed = parseOrTypedError(text);
        if (parsed) expect(createSiweMessage(parsed)).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });
});
