import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSiweMessage } from './createSiweMessage.ts';
import { SiweError, type SiweErrorType, type SiweField } from './errors.ts';
import { parseSiweMessage } from './parseSiweMessage.ts';

const vectors = join(import.meta.dirname, '..', '..', '..', '..', 'shared', 'vectors', 'spruceid-siwe');
const load = <T>(file: string): Record<string, T> => JSON.parse(readFileSync(join(vectors, file), 'utf8'));

const ADDRESS = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2';

/** A message with every field; tests derive variants from it line by line. */
const FULL = [
  'https://example.com:8443 wants you to sign in with your Ethereum account:',
  ADDRESS,
  '',
  "I accept the Terms: https://example.com/tos (v2), isn't it?",
  '',
  'URI: https://example.com:8443/login?x=1#top',
  'Version: 1',
  'Chain ID: 137',
  'Nonce: abcDEF12345',
  'Issued At: 2024-02-29T23:59:60.123456+05:30',
  'Expiration Time: 2024-03-01T00:00:00Z',
  'Not Before: 2024-02-29t00:00:00z',
  "Request ID: req-1_~!$&'()*+,;=:@%20",
  'Resources:',
  '- ipfs://Qme7ss3ARVgxv6rXqVPiikMJ8u2NLgmgszg13pYrDKEoiu',
  '- https://example.com/cb',
  '- urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66',
].join('\n');

const minimal = (first = 'example.com', fields: string[] = []) =>
  [
    `${first} wants you to sign in with your Ethereum account:`,
    ADDRESS,
    '',
    '',
    'URI: https://example.com',
    'Version: 1',
    'Chain ID: 1',
    'Nonce: 12345678',
    'Issued At: 2024-01-01T00:00:00Z',
    ...fields,
  ].join('\n');

function parseError(text: string): SiweError {
  try {
    parseSiweMessage(text);
  } catch (error) {
    expect(error).toBeInstanceOf(SiweError);
    return error as SiweError;
  }
  throw new Error(`expected parse to fail for:\n${text}`);
}

describe('parseSiweMessage: spruceid/siwe vectors', () => {
  const positive = load<{ message: string; fields: Record<string, unknown> }>('parsing_positive.json');
  for (const [name, { message, fields }] of Object.entries(positive)) {
    it(`parses "${name}" and round-trips`, () => {
      const parsed = parseSiweMessage(message);
      for (const [key, value] of Object.entries(fields)) {
        if (value === null) expect(parsed).not.toHaveProperty(key);
        else expect(parsed[key as keyof typeof parsed]).toEqual(value);
      }
      expect(createSiweMessage(parsed)).toBe(message);
    });
  }

  const negative = load<string>('parsing_negative.json');
  for (const [name, message] of Object.entries(negative)) {
    it(`rejects "${name}" with a typed error`, () => {
      const error = parseError(message);
      expect(error.line).toBeGreaterThan(0);
      expect(error.message).toMatch(/^line \d+: /);
    });
  }

  // Where we knowingly differ from the vectors: `version` may be omitted when formatting,
  // because "1" is the only version there is; it is still written into the message.
  const formatsAnyway = new Set(['missing version']);
  const negativeObjects = load<Record<string, unknown>>('parsing_negative_objects.json');
  for (const [name, fields] of Object.entries(negativeObjects)) {
    if (formatsAnyway.has(name)) {
      it(`formats "${name}" with version 1 (deliberate difference)`, () => {
        expect(createSiweMessage(fields as never)).toContain('\nVersion: 1\n');
      });
      continue;
    }
    it(`refuses to format "${name}"`, () => {
      expect(() => createSiweMessage(fields as never)).toThrow(SiweError);
    });
  }
});

describe('parseSiweMessage: every field', () => {
  it('reads a message with every optional field, ports, offsets and three resources', () => {
    expect(parseSiweMessage(FULL)).toEqual({
      scheme: 'https',
      domain: 'example.com:8443',
      address: ADDRESS,
      statement: "I accept the Terms: https://example.com/tos (v2), isn't it?",
      uri: 'https://example.com:8443/login?x=1#top',
      version: '1',
      chainId: 137,
      nonce: 'abcDEF12345',
      issuedAt: '2024-02-29T23:59:60.123456+05:30',
      expirationTime: '2024-03-01T00:00:00Z',
      notBefore: '2024-02-29t00:00:00z',
      requestId: "req-1_~!$&'()*+,;=:@%20",
      resources: [
        'ipfs://Qme7ss3ARVgxv6rXqVPiikMJ8u2NLgmgszg13pYrDKEoiu',
        'https://example.com/cb',
        'urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66',
      ],
    });
    expect(createSiweMessage(parseSiweMessage(FULL))).toBe(FULL);
  });

  it.each([
    ['[2001:db8::1]:443', '[2001:db8::1]:443'],
    ['[::ffff:192.0.2.1]', '[::ffff:192.0.2.1]'],
    ['[v7.fe80::1]', '[v7.fe80::1]'],
    ['user:pw@localhost:3000', 'user:pw@localhost:3000'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['192.168.0.1:80', '192.168.0.1:80'],
  ])('accepts the authority %s', (domain, expected) => {
    expect(parseSiweMessage(minimal(domain)).domain).toBe(expected);
  });

  it('keeps an empty "Resources:" list and an empty request id', () => {
    const text = minimal('example.com', ['Request ID: ', 'Resources:']);
    const parsed = parseSiweMessage(text);
    expect(parsed.requestId).toBe('');
    expect(parsed.resources).toEqual([]);
    expect(createSiweMessage(parsed)).toBe(text);
  });

  it('tells an empty statement from an absent one', () => {
    const withEmpty = minimal().replace('\n\n\nURI:', '\n\n\n\nURI:');
    expect(parseSiweMessage(withEmpty).statement).toBe('');
    expect(parseSiweMessage(minimal())).not.toHaveProperty('statement');
    expect(createSiweMessage(parseSiweMessage(withEmpty))).toBe(withEmpty);
  });

  it('reads a statement that itself starts with "URI: "', () => {
    const text = minimal().replace('\n\n\nURI:', '\n\nURI: is the word\n\nURI:');
    expect(parseSiweMessage(text).statement).toBe('URI: is the word');
  });
});

describe('parseSiweMessage: each malformation has its type, field and line', () => {
  const replaceLine = (text: string, line: number, value: string | null) => {
    const lines = text.split('\n');
    if (value === null) lines.splice(line - 1, 1);
    else lines[line - 1] = value;
    return lines.join('\n');
  };

  const cases: [string, string, SiweErrorType, SiweField, number][] = [
    ['empty text', '', 'UNABLE_TO_PARSE', 'domain', 1],
    [
      'wrong preamble',
      replaceLine(FULL, 1, 'example.com wants you to sign in with your Bitcoin account:'),
      'UNABLE_TO_PARSE',
      'domain',
      1,
    ],
    ['empty domain', replaceLine(FULL, 1, ' wants you to sign in with your Ethereum account:'), 'INVALID_DOMAIN', 'domain', 1],
    [
      'domain with a path',
      replaceLine(FULL, 1, 'example.com/x wants you to sign in with your Ethereum account:'),
      'INVALID_DOMAIN',
      'domain',
      1,
    ],
    [
      'domain with a space',
      replaceLine(FULL, 1, 'exa mple.com wants you to sign in with your Ethereum account:'),
      'INVALID_DOMAIN',
      'domain',
      1,
    ],
    [
      'bad IPv6 literal',
      replaceLine(FULL, 1, '[2001:db8:::1] wants you to sign in with your Ethereum account:'),
      'INVALID_DOMAIN',
      'domain',
      1,
    ],
    ['port only', replaceLine(FULL, 1, ':8080 wants you to sign in with your Ethereum account:'), 'INVALID_DOMAIN', 'domain', 1],
    [
      'malformed scheme',
      replaceLine(FULL, 1, '1http://example.com wants you to sign in with your Ethereum account:'),
      'UNABLE_TO_PARSE',
      'scheme',
      1,
    ],
    ['short address', replaceLine(FULL, 2, '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc'), 'INVALID_ADDRESS', 'address', 2],
    ['lower-case address', replaceLine(FULL, 2, ADDRESS.toLowerCase()), 'INVALID_ADDRESS', 'address', 2],
    ['address without 0x', replaceLine(FULL, 2, ADDRESS.slice(2)), 'INVALID_ADDRESS', 'address', 2],
    ['missing blank line', replaceLine(FULL, 3, 'x'), 'UNABLE_TO_PARSE', 'statement', 3],
    ['statement with a quote', replaceLine(FULL, 4, 'say "hi"'), 'INVALID_STATEMENT', 'statement', 4],
    ['statement with non-ASCII', replaceLine(FULL, 4, 'Grüße'), 'INVALID_STATEMENT', 'statement', 4],
    ['two-line statement', replaceLine(FULL, 5, 'second line'), 'UNABLE_TO_PARSE', 'statement', 5],
    ['URI with a space', replaceLine(FULL, 6, 'URI: https://exa mple.com'), 'INVALID_URI', 'uri', 6],
    ['relative URI', replaceLine(FULL, 6, 'URI: /login'), 'INVALID_URI', 'uri', 6],
    ['bad percent escape in URI', replaceLine(FULL, 6, 'URI: https://example.com/%zz'), 'INVALID_URI', 'uri', 6],
    ['version 2', replaceLine(FULL, 7, 'Version: 2'), 'INVALID_MESSAGE_VERSION', 'version', 7],
    ['lower-case label', replaceLine(FULL, 7, 'version: 1'), 'UNABLE_TO_PARSE', 'version', 7],
    ['chain id 0', replaceLine(FULL, 8, 'Chain ID: 0'), 'INVALID_CHAIN_ID', 'chainId', 8],
    ['chain id with leading zero', replaceLine(FULL, 8, 'Chain ID: 01'), 'INVALID_CHAIN_ID', 'chainId', 8],
    ['chain id in hex', replaceLine(FULL, 8, 'Chain ID: 0x1'), 'INVALID_CHAIN_ID', 'chainId', 8],
    ['chain id beyond 2^53', replaceLine(FULL, 8, 'Chain ID: 9007199254740993'), 'INVALID_CHAIN_ID', 'chainId', 8],
    ['nonce of 7', replaceLine(FULL, 9, 'Nonce: 1234567'), 'INVALID_NONCE', 'nonce', 9],
    ['nonce with a dash', replaceLine(FULL, 9, 'Nonce: 1234-5678'), 'INVALID_NONCE', 'nonce', 9],
    ['30 February', replaceLine(FULL, 10, 'Issued At: 2024-02-30T00:00:00Z'), 'INVALID_TIME_FORMAT', 'issuedAt', 10],
    ['hour 24', replaceLine(FULL, 10, 'Issued At: 2024-02-01T24:00:00Z'), 'INVALID_TIME_FORMAT', 'issuedAt', 10],
    ['no offset', replaceLine(FULL, 10, 'Issued At: 2024-02-01T10:00:00'), 'INVALID_TIME_FORMAT', 'issuedAt', 10],
    ['date only', replaceLine(FULL, 11, 'Expiration Time: 2024-02-01'), 'INVALID_TIME_FORMAT', 'expirationTime', 11],
    ['offset minutes 60', replaceLine(FULL, 12, 'Not Before: 2024-02-01T00:00:00+01:60'), 'INVALID_TIME_FORMAT', 'notBefore', 12],
    ['request id with a space', replaceLine(FULL, 13, 'Request ID: a b'), 'INVALID_REQUEST_ID', 'requestId', 13],
    ['resource without dash', replaceLine(FULL, 15, 'https://example.com'), 'UNABLE_TO_PARSE', 'resources', 15],
    ['resource not a URI', replaceLine(FULL, 16, '- not a uri'), 'INVALID_RESOURCE', 'resources', 16],
    ['missing URI line', replaceLine(FULL, 6, null), 'UNABLE_TO_PARSE', 'uri', 6],
    ['missing nonce line', replaceLine(FULL, 9, null), 'UNABLE_TO_PARSE', 'nonce', 9],
    [
      'swapped optional fields',
      FULL.replace(
        'Expiration Time: 2024-03-01T00:00:00Z\nNot Before: 2024-02-29t00:00:00z',
        'Not Before: 2024-02-29t00:00:00z\nExpiration Time: 2024-03-01T00:00:00Z',
      ),
      'UNABLE_TO_PARSE',
      'message',
      12,
    ],
    ['trailing newline', `${minimal()}\n`, 'UNABLE_TO_PARSE', 'message', 10],
    ['unknown trailing field', minimal('example.com', ['Foo: bar']), 'UNABLE_TO_PARSE', 'message', 10],
    ['CRLF line endings', minimal().replaceAll('\n', '\r\n'), 'UNABLE_TO_PARSE', 'message', 1],
    ['stops after the address', FULL.split('\n').slice(0, 2).join('\n'), 'UNABLE_TO_PARSE', 'statement', 3],
  ];

  it.each(cases)('%s', (_name, text, type, field, line) => {
    const error = parseError(text);
    expect({ type: error.type, field: error.field, line: error.line }).toEqual({ type, field, line });
  });

  it('never throws anything but SiweError for non-string input', () => {
    expect(() => parseSiweMessage(42 as never)).toThrow(SiweError);
  });
});

describe('parseSiweMessage: hostile sizes', () => {
  it('a text over MAX_SIWE_MESSAGE_LENGTH is UNABLE_TO_PARSE at once, never a RangeError (9 MB, and 9 MB of one repeated line)', async () => {
    const { MAX_SIWE_MESSAGE_LENGTH, SiweError } = await import('./index.ts');
    for (const text of [
      'a'.repeat(9 * 1024 * 1024),
      'Resources:\n- https://a.example\n'.repeat(300_000),
      'x'.repeat(MAX_SIWE_MESSAGE_LENGTH + 1),
    ]) {
      let thrown: unknown;
      try {
        parseSiweMessage(text);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(SiweError);
      expect(thrown).toMatchObject({ type: 'UNABLE_TO_PARSE', field: 'message' });
      expect((thrown as Error).message).toMatch(/longer than 10000 characters/);
    }
  });
});
