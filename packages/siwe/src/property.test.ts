import fc from 'fast-check';
import { bytesToHex, checksumAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { type CreateSiweMessageParameters, createSiweMessage } from './createSiweMessage.ts';
import { SiweError } from './errors.ts';
import { parseSiweMessage } from './parseSiweMessage.ts';

/** Every printable ASCII character (%x20-7E): what a statement may hold (the draft erratum to EIP-4361). */
const STATEMENT_CHARS = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join('');
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

/** The fields without an empty statement, request ID or resource list: createSiweMessage leaves those out. */
const withoutEmpty = <T extends object>(fields: T): T =>
  Object.fromEntries(
    Object.entries(fields).filter(
      ([key, value]) =>
        !((key === 'statement' || key === 'requestId') && value === '') &&
        !(key === 'resources' && Array.isArray(value) && value.length === 0),
    ),
  ) as T;

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
        expect(parsed).toEqual(withoutEmpty({ ...fields, version: '1' }));
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

  it('a statement is accepted exactly when each of its characters is printable ASCII (%x20-7E), and round-trips', () => {
    const base = createSiweMessage({
      domain: 'example.com',
      address: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
      uri: 'https://example.com',
      chainId: 1,
      nonce: '12345678',
      issuedAt: '2024-01-01T00:00:00Z',
    });
    fc.assert(
      fc.property(
        fc.oneof(
          fc.constantFrom(...STATEMENT_CHARS),
          fc.constantFrom('\t', '\r', '\x00', '\x1b', '\x7f', '\u0085', '\u00a0', '\u2028', '\u{1F600}'),
          fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
        ),
        fc.string({ maxLength: 20 }),
        (char, rest) => {
          const statement = `${char}${rest.replace(/[^\x20-\x7E]/g, '')}`;
          const text = base.replace('\n\n\nURI:', () => `\n\n${statement}\n\nURI:`); // a function: `$` in the statement is literal
          const code = char.codePointAt(0) as number;
          const parsed = parseOrTypedError(text);
          if (code >= 0x20 && code <= 0x7e) {
            expect(parsed?.statement).toBe(statement);
            expect(createSiweMessage(parsed as NonNullable<typeof parsed>)).toBe(text);
          } else {
            expect(parsed).toBeUndefined();
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('mutated valid messages either fail with SiweError or still round-trip (an empty statement, request ID or resource list comes back left out)', () => {
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
        if (!parsed) return;
        const again = createSiweMessage(parsed);
        if (JSON.stringify(withoutEmpty(parsed)) === JSON.stringify(parsed)) expect(again).toBe(text);
        else expect(parseSiweMessage(again)).toEqual(withoutEmpty(parsed));
      }),
      { numRuns: 2000 },
    );
  });
});
