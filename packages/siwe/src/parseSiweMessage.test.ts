import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSiweMessage } from './createSiweMessage.ts';
import { SiweError, type SiweErrorType, type SiweField } from './errors.ts';
import { parseSiweMessage } from './parseSiweMessage.ts';

// The spruceid/siwe library's own vectors, copied into this package (test/vectors/spruceid-siwe, with their licence).
const vectors = join(import.meta.dirname, '..', 'test', 'vectors', 'spruceid-siwe');
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
  // Where we knowingly differ: a domain with userinfo, which EIP-4361 as published allows and the
  // maintainers' draft erratum drops (docs/conformance.md, "Sign-In with Ethereum").
  const userinfoRefused = new Set([
    'domain is RFC 3986 authority with userinfo',
    'domain is RFC 3986 authority with userinfo and port',
  ]);
  for (const [name, { message, fields }] of Object.entries(positive)) {
    if (userinfoRefused.has(name)) {
      it(`refuses "${name}": INVALID_DOMAIN (the draft erratum: no userinfo in a domain)`, () => {
        expect(fields.domain).toMatch(/^test@/);
        const error = parseError(message);
        expect({ type: error.type, field: error.field, line: error.line }).toEqual({
          type: 'INVALID_DOMAIN',
          field: 'domain',
          line: 1,
        });
      });
      continue;
    }
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
    // The fields in the message's order (what JSON of a parsed message shows), whichever are there.
    expect(Object.keys(parseSiweMessage(FULL))).toEqual([
      'scheme',
      'domain',
      'address',
      'statement',
      'uri',
      'version',
      'chainId',
      'nonce',
      'issuedAt',
      'expirationTime',
      'notBefore',
      'requestId',
      'resources',
    ]);
    expect(Object.keys(parseSiweMessage(minimal()))).toEqual([
      'domain',
      'address',
      'uri',
      'version',
      'chainId',
      'nonce',
      'issuedAt',
    ]);
  });

  it.each([
    ['[2001:db8::1]:443', '[2001:db8::1]:443'],
    ['[::ffff:192.0.2.1]', '[::ffff:192.0.2.1]'],
    ['[v7.fe80::1]', '[v7.fe80::1]'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['192.168.0.1:80', '192.168.0.1:80'],
  ])('accepts the authority %s', (domain, expected) => {
    expect(parseSiweMessage(minimal(domain)).domain).toBe(expected);
  });

  it('reads an empty "Resources:" list and an empty request id (the grammar allows them); formatting leaves them out', () => {
    const text = minimal('example.com', ['Request ID: ', 'Resources:']);
    const parsed = parseSiweMessage(text);
    expect(parsed.requestId).toBe('');
    expect(parsed.resources).toEqual([]);
    expect(createSiweMessage(parsed)).toBe(minimal());
  });

  it('tells an empty statement from an absent one; formatting leaves the empty one out', () => {
    const withEmpty = minimal().replace('\n\n\nURI:', '\n\n\n\nURI:');
    expect(parseSiweMessage(withEmpty).statement).toBe('');
    expect(parseSiweMessage(minimal())).not.toHaveProperty('statement');
    expect(createSiweMessage(parseSiweMessage(withEmpty))).toBe(minimal());
  });

  it('a statement may hold any printable ASCII character (the draft erratum: %x20-7E), and round-trips', () => {
    for (const statement of [
      'say "hi" to 100% of <users> {now} | a\\b ^ `code`',
      ' !"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~',
      '"',
      '`',
    ]) {
      const text = minimal().replace('\n\n\nURI:', () => `\n\n${statement}\n\nURI:`);
      expect(parseSiweMessage(text).statement).toBe(statement);
      expect(createSiweMessage(parseSiweMessage(text))).toBe(text);
    }
  });

  it('reads a statement that itself starts with "URI: "', () => {
    const text = minimal().replace('\n\n\nURI:', '\n\nURI: is the word\n\nURI:');
    expect(parseSiweMessage(text).statement).toBe('URI: is the word');
  });
});

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
    'domain with userinfo',
    replaceLine(FULL, 1, 'user@example.com wants you to sign in with your Ethereum account:'),
    'INVALID_DOMAIN',
    'domain',
    1,
  ],
  [
    'domain with userinfo and a password',
    replaceLine(FULL, 1, 'user:pw@localhost:3000 wants you to sign in with your Ethereum account:'),
    'INVALID_DOMAIN',
    'domain',
    1,
  ],
  [
    'domain with userinfo after a scheme',
    replaceLine(FULL, 1, 'https://bank.example@evil.example wants you to sign in with your Ethereum account:'),
    'INVALID_DOMAIN',
    'domain',
    1,
  ],
  [
    'domain with an empty userinfo',
    replaceLine(FULL, 1, '@example.com wants you to sign in with your Ethereum account:'),
    'INVALID_DOMAIN',
    'domain',
    1,
  ],
  [
    'malformed scheme',
    replaceLine(FULL, 1, '1http://example.com wants you to sign in with your Ethereum account:'),
    'UNABLE_TO_PARSE',
    'scheme',
    1,
  ],
  ['short address', replaceLine(FULL, 2, '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc'), 'INVALID_ADDRESS', 'address', 2],
  ['lower-case address', replaceLine(FULL, 2, ADDRESS.toLowerCase()), 'INVALID_ADDRESS', 'address', 2],
  ['upper-case address', replaceLine(FULL, 2, `0x${ADDRESS.slice(2).toUpperCase()}`), 'INVALID_ADDRESS', 'address', 2],
  ['address without 0x', replaceLine(FULL, 2, ADDRESS.slice(2)), 'INVALID_ADDRESS', 'address', 2],
  ['missing blank line', replaceLine(FULL, 3, 'x'), 'UNABLE_TO_PARSE', 'statement', 3],
  ['statement with a tab', replaceLine(FULL, 4, 'say\thi'), 'INVALID_STATEMENT', 'statement', 4],
  ['statement with DEL', replaceLine(FULL, 4, 'say\x7Fhi'), 'INVALID_STATEMENT', 'statement', 4],
  ['statement with a control character', replaceLine(FULL, 4, 'say\x1Bhi'), 'INVALID_STATEMENT', 'statement', 4],
  ['statement with non-ASCII', replaceLine(FULL, 4, 'Grüße'), 'INVALID_STATEMENT', 'statement', 4],
  ['statement with a non-breaking space', replaceLine(FULL, 4, 'say\u00A0hi'), 'INVALID_STATEMENT', 'statement', 4],
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

describe('parseSiweMessage: each malformation has its type, field and line', () => {
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

describe('the draft erratum to EIP-4361, and the choices around it (docs/conformance.md, "Sign-In with Ethereum")', () => {
  const fields = {
    domain: 'example.com',
    address: ADDRESS,
    uri: 'https://example.com',
    chainId: 1,
    nonce: '12345678',
    issuedAt: '2024-01-01T00:00:00Z',
  } as const;

  it('a domain with userinfo is INVALID_DOMAIN, saying so, when parsing and when formatting', () => {
    const error = parseError(minimal('user@example.com'));
    expect(error.message).toBe(
      'line 1: domain "user@example.com" carries userinfo (the part up to "@"): a sign-in domain is host[:port] alone',
    );
    expect(error.received).toBe('user@example.com');
    expect(() => createSiweMessage({ ...fields, domain: 'bank.example@evil.example' })).toThrow(
      expect.objectContaining({ type: 'INVALID_DOMAIN', field: 'domain' }),
    );
    // A URI keeps its userinfo: the erratum is about the domain line only.
    expect(parseSiweMessage(minimal().replace('URI: https://example.com', 'URI: https://user@example.com')).uri).toBe(
      'https://user@example.com',
    );
  });

  it('createSiweMessage leaves out an empty statement, an empty request ID and an empty resource list', () => {
    const bare = createSiweMessage(fields);
    expect(bare).toBe(minimal());
    expect(createSiweMessage({ ...fields, statement: '' })).toBe(bare);
    expect(createSiweMessage({ ...fields, requestId: '' })).toBe(bare);
    expect(createSiweMessage({ ...fields, resources: [] })).toBe(bare);
    expect(createSiweMessage({ ...fields, statement: '', requestId: '', resources: [] })).toBe(bare);
    expect(bare).not.toMatch(/\n\n\n\n|Request ID|Resources/);
    // Not empty: written as before.
    expect(createSiweMessage({ ...fields, statement: ' ', requestId: 'r', resources: ['https://a.example'] })).toBe(
      minimal('example.com', ['Request ID: r', 'Resources:', '- https://a.example']).replace('\n\n\nURI:', '\n\n \n\nURI:'),
    );
  });

  it('createSiweMessage writes a statement with any printable ASCII character, and refuses a line break or non-ASCII', () => {
    const statement = 'Accept "Terms" <v2> {all} | 100% ^ `now` \\ done';
    expect(parseSiweMessage(createSiweMessage({ ...fields, statement })).statement).toBe(statement);
    for (const bad of ['one\ntwo', 'tab\there', 'café']) {
      expect(() => createSiweMessage({ ...fields, statement: bad })).toThrow(
        expect.objectContaining({ type: 'INVALID_STATEMENT' }),
      );
    }
  });

  it('all-lower-case and all-upper-case addresses are refused (EIP-55 is required by EIP-4361; spruceid warns instead)', () => {
    const vector = load<string>('parsing_negative.json')['address not EIP-55'] as string;
    const line = vector.split('\n')[1] as string;
    expect(line).toBe(line.toLowerCase()); // the vector's address is all lower case
    const error = parseError(vector);
    expect({ type: error.type, line: error.line }).toEqual({ type: 'INVALID_ADDRESS', line: 2 });
    expect(error.message).toBe(
      `line 2: address ${line} is not EIP-55 checksummed (expected 0xe5A12547fe4E872D192E3eCecb76F2Ce1aeA4946)`,
    );
    const upper = `0x${ADDRESS.slice(2).toUpperCase()}` as `0x${string}`;
    expect(parseError(minimal().replace(ADDRESS, upper)).type).toBe('INVALID_ADDRESS');
    expect(() => createSiweMessage({ ...fields, address: upper })).toThrow(expect.objectContaining({ type: 'INVALID_ADDRESS' }));
    expect(() => createSiweMessage({ ...fields, address: ADDRESS.toLowerCase() as `0x${string}` })).toThrow(
      expect.objectContaining({ type: 'INVALID_ADDRESS' }),
    );
  });

  it('the message-length bound is Signet’s own: 10,000 characters, and its documentation does not call it the spec’s', async () => {
    const { MAX_SIWE_MESSAGE_LENGTH } = await import('./constants.ts');
    expect(MAX_SIWE_MESSAGE_LENGTH).toBe(10_000);
    const { readFile } = await import('node:fs/promises');
    const source = await readFile(join(import.meta.dirname, 'constants.ts'), 'utf8');
    const readme = await readFile(join(import.meta.dirname, '..', 'README.md'), 'utf8');
    for (const text of [source, readme]) expect(text).not.toMatch(/spec'?s recommendation/i);
    expect(source).toMatch(/EIP-4361 names no maximum length/);
  });
});

describe('parseSiweMessage with acceptCaip2ChainId: Chain ID as eip155:<id>, as CAIP-122 writers (Reown AppKit) put it', () => {
  const withChain = (chainId: string) => minimal().replace('Chain ID: 1', `Chain ID: ${chainId}`);
  const lenient = { acceptCaip2ChainId: true };
  it('reads eip155:<id> as the number; the decimal form as before', () => {
    expect(parseSiweMessage(withChain('eip155:1'), lenient).chainId).toBe(1);
    expect(parseSiweMessage(withChain('eip155:8453'), lenient).chainId).toBe(8453);
    expect(parseSiweMessage(withChain('137'), lenient).chainId).toBe(137);
  });
  it('not by default: EIP-4361’s grammar has no CAIP-2 chain id', () => {
    const error = parseError(withChain('eip155:1'));
    expect({ type: error.type, field: error.field, line: error.line }).toEqual({
      type: 'INVALID_CHAIN_ID',
      field: 'chainId',
      line: 7,
    });
  });
  const refused: Record<string, string> = {
    'a Solana chain': 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    'a Bitcoin chain': 'bip122:000000000019d6689c085ae165831e93',
    'a leading zero (one spelling per chain)': 'eip155:01',
    'a hex id': 'eip155:0x1',
    'chain 0': 'eip155:0',
    'past 2^53 - 1': 'eip155:9007199254740993',
    'the namespace in capitals': 'EIP155:1',
    'nothing after the colon': 'eip155:',
  };
  for (const [name, chainId] of Object.entries(refused)) {
    it(`refuses ${name} (${chainId}): INVALID_CHAIN_ID on line 7`, () => {
      expect(() => parseSiweMessage(withChain(chainId), lenient)).toThrow(
        expect.objectContaining({ name: 'SiweError', type: 'INVALID_CHAIN_ID', field: 'chainId', line: 7 }),
      );
    });
  }
  it('says a chain of another namespace is not an Ethereum one', () => {
    expect(() => parseSiweMessage(withChain('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'), lenient)).toThrow(
      /names a chain of the solana namespace, not of eip155 \(Ethereum\)/,
    );
  });
});
