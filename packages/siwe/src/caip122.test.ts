/**
 * The CAIP-122 grammar every profile shares, tested once, against the core itself: a made-up
 * `example` namespace fills the slot twice, once with every tagged field optional (as Sign In With
 * Solana has them) and once with URI to Issued At required (as Sign in with Bitcoin has them).
 * What each real namespace adds (its addresses, chain ids, first line) is tested in its package.
 */
import { describe, expect, it } from 'vitest';
import type { Caip122Message, Caip122Namespace } from './caip122Namespace.ts';
import { createCaip122Message } from './createCaip122Message.ts';
import { parseCaip122Message } from './parseCaip122Message.ts';
import { SignInError } from './signInError.ts';

class ExampleError extends SignInError<string, string> {
  override readonly name = 'ExampleError';
}

const base: Omit<Caip122Namespace<string>, 'required' | 'name'> = {
  namespace: 'example',
  kind: 'Example',
  order: 'the example profile',
  Failure: ExampleError,
  addressProblem: (v) => (/^ex[0-9a-f]{8}$/.test(v) ? undefined : `address ${JSON.stringify(v)} is not an example address`),
  chainIdProblem: (v) => (v === 'main' || v === 'test' ? undefined : `Chain ID ${JSON.stringify(v)} is not main or test`),
  chainOfReference: (reference) => ({ a1b2c3: 'main', d4e5f6: 'test' })[reference],
};
const OPTIONAL: Caip122Namespace<string> = { ...base, name: 'EXO', required: [] };
const REQUIRED: Caip122Namespace<string> = { ...base, name: 'EXR', required: ['uri', 'version', 'chainId', 'nonce', 'issuedAt'] };

const ADDRESS = 'ex0123abcd';
const LINES = [
  'example.com:8443 wants you to sign in with your Example account:',
  ADDRESS,
  '',
  "I accept the Terms: https://example.com/tos (v2), isn't it?",
  '',
  'URI: https://example.com:8443/login?x=1#top',
  'Version: 1',
  'Chain ID: main',
  'Nonce: abcDEF12345',
  'Issued At: 2024-02-29T23:59:60.123456+05:30',
  'Expiration Time: 2024-03-01T00:00:00Z',
  'Not Before: 2024-02-29t00:00:00z',
  "Request ID: req-1_~!$&'()*+,;=:@%20",
  'Resources:',
  '- ipfs://Qme7ss3ARVgxv6rXqVPiikMJ8u2NLgmgszg13pYrDKEoiu',
  '- https://example.com/cb',
];
const FULL = LINES.join('\n');
const FIELDS: Caip122Message = {
  domain: 'example.com:8443',
  address: ADDRESS,
  statement: "I accept the Terms: https://example.com/tos (v2), isn't it?",
  uri: 'https://example.com:8443/login?x=1#top',
  version: '1',
  chainId: 'main',
  nonce: 'abcDEF12345',
  issuedAt: '2024-02-29T23:59:60.123456+05:30',
  expirationTime: '2024-03-01T00:00:00Z',
  notBefore: '2024-02-29t00:00:00z',
  requestId: "req-1_~!$&'()*+,;=:@%20",
  resources: ['ipfs://Qme7ss3ARVgxv6rXqVPiikMJ8u2NLgmgszg13pYrDKEoiu', 'https://example.com/cb'],
};

/** The full message with line `index` (0-based) replaced by `line`, or removed when `line` is undefined. */
const withLine = (index: number, line: string | undefined) => {
  const lines = [...LINES];
  if (line === undefined) lines.splice(index, 1);
  else lines[index] = line;
  return lines.join('\n');
};

function refusal(ns: Caip122Namespace<string>, text: unknown, options = {}) {
  try {
    parseCaip122Message(text, ns, options);
  } catch (error) {
    expect(error).toBeInstanceOf(ExampleError);
    const { type, field, line, message } = error as ExampleError;
    if (line !== undefined) expect(message).toMatch(new RegExp(`^line ${line}: `));
    return { type, field, line };
  }
  throw new Error(`expected a refusal of:\n${String(text)}`);
}

/** The shared grammar's refusals, each with its type, field and line, whether the profile's fields are optional or required. */
const NEGATIVE: Record<string, [text: unknown, type: string, field: string, line?: number]> = {
  'not a string': [42, 'UNABLE_TO_PARSE', 'message'],
  'longer than 10,000 characters': [`${FULL}\n- https://e.com/${'a'.repeat(10_000)}`, 'UNABLE_TO_PARSE', 'message'],
  'CRLF line ends': [FULL.replaceAll('\n', '\r\n'), 'UNABLE_TO_PARSE', 'message', 1],
  'the empty string': ['', 'UNABLE_TO_PARSE', 'domain', 1],
  'another kind of account': [
    withLine(0, 'example.com wants you to sign in with your Ethereum account:'),
    'WRONG_NAMESPACE',
    'message',
    1,
  ],
  'the kind in lower case': [
    withLine(0, 'example.com wants you to sign in with your example account:'),
    'WRONG_NAMESPACE',
    'message',
    1,
  ],
  'no preamble': [withLine(0, 'example.com wants you to sign in'), 'UNABLE_TO_PARSE', 'domain', 1],
  'no domain': [withLine(0, ' wants you to sign in with your Example account:'), 'INVALID_DOMAIN', 'domain', 1],
  'a domain with a scheme': [
    withLine(0, 'https://example.com wants you to sign in with your Example account:'),
    'INVALID_DOMAIN',
    'domain',
    1,
  ],
  'a domain with userinfo (the draft erratum to EIP-4361)': [
    withLine(0, 'bank.example:pw@evil.example:443 wants you to sign in with your Example account:'),
    'INVALID_DOMAIN',
    'domain',
    1,
  ],
  'a domain with a path': [
    withLine(0, 'example.com/x wants you to sign in with your Example account:'),
    'INVALID_DOMAIN',
    'domain',
    1,
  ],
  'no address': [withLine(1, ''), 'INVALID_ADDRESS', 'address', 2],
  'an address the namespace refuses': [
    withLine(1, '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'),
    'INVALID_ADDRESS',
    'address',
    2,
  ],
  'no empty line after the address': [withLine(2, undefined), 'UNABLE_TO_PARSE', 'statement', 3],
  'two empty lines and no statement (EIP-4361’s layout)': [withLine(3, ''), 'UNABLE_TO_PARSE', 'statement', 4],
  'a statement on two lines': [withLine(3, 'line one\nline two'), 'UNABLE_TO_PARSE', 'statement', 5],
  'a statement with a control character': [withLine(3, 'say\x1Bhi'), 'INVALID_STATEMENT', 'statement', 4],
  'a statement with DEL': [withLine(3, 'say\x7Fhi'), 'INVALID_STATEMENT', 'statement', 4],
  'a statement with non-ASCII': [withLine(3, 'café'), 'INVALID_STATEMENT', 'statement', 4],
  'a statement with a tab': [withLine(3, 'a\tb'), 'INVALID_STATEMENT', 'statement', 4],
  'no empty line after the statement': [withLine(4, undefined), 'UNABLE_TO_PARSE', 'statement', 5],
  'an invalid URI': [withLine(5, 'URI: not a uri'), 'INVALID_URI', 'uri', 6],
  'an empty URI': [withLine(5, 'URI: '), 'INVALID_URI', 'uri', 6],
  'version 2': [withLine(6, 'Version: 2'), 'INVALID_MESSAGE_VERSION', 'version', 7],
  'a Chain ID the namespace refuses': [withLine(7, 'Chain ID: 1'), 'INVALID_CHAIN_ID', 'chainId', 8],
  'a CAIP-2 Chain ID (not without acceptCaip2ChainId)': [
    withLine(7, 'Chain ID: example:a1b2c3'),
    'INVALID_CHAIN_ID',
    'chainId',
    8,
  ],
  'a nonce of 7 characters': [withLine(8, 'Nonce: abc1234'), 'INVALID_NONCE', 'nonce', 9],
  'a nonce with a dash': [withLine(8, 'Nonce: abcd-12345'), 'INVALID_NONCE', 'nonce', 9],
  'Issued At without a time zone': [withLine(9, 'Issued At: 2024-02-29T12:00:00'), 'INVALID_TIME_FORMAT', 'issuedAt', 10],
  'Issued At on 30 February': [withLine(9, 'Issued At: 2023-02-30T12:00:00Z'), 'INVALID_TIME_FORMAT', 'issuedAt', 10],
  'Expiration Time as a Unix time': [withLine(10, 'Expiration Time: 1709251200'), 'INVALID_TIME_FORMAT', 'expirationTime', 11],
  'Not Before at hour 24': [withLine(11, 'Not Before: 2024-02-29T24:00:00Z'), 'INVALID_TIME_FORMAT', 'notBefore', 12],
  'an empty Request ID': [withLine(12, 'Request ID: '), 'INVALID_REQUEST_ID', 'requestId', 13],
  'a Request ID with a space': [withLine(12, 'Request ID: a b'), 'INVALID_REQUEST_ID', 'requestId', 13],
  'a resource that is not a URI': [withLine(14, '- not a uri'), 'INVALID_RESOURCE', 'resources', 15],
  'a resource line without its dash': [withLine(14, 'https://example.com/cb'), 'UNABLE_TO_PARSE', 'resources', 15],
  'fields out of order': [`${FULL.split('\nResources:')[0]}\nVersion: 1`, 'UNABLE_TO_PARSE', 'version', 14],
  'a field twice': [
    withLine(9, 'Issued At: 2024-02-29T12:00:00Z\nIssued At: 2024-02-29T12:00:00Z'),
    'UNABLE_TO_PARSE',
    'issuedAt',
    11,
  ],
  'an unknown field': [withLine(12, 'Network: mainnet'), 'UNABLE_TO_PARSE', 'message', 13],
  'an empty line between fields': [withLine(10, ''), 'UNABLE_TO_PARSE', 'message', 11],
  'a label without its space ("Request ID:r1")': [withLine(12, 'Request ID:r1'), 'UNABLE_TO_PARSE', 'message', 13],
  'a trailing newline after the resources': [`${FULL}\n`, 'UNABLE_TO_PARSE', 'resources', 17],
  'text after the fields': [withLine(13, 'Hello'), 'UNABLE_TO_PARSE', 'message', 14],
};

describe('parseCaip122Message and createCaip122Message: the shared grammar', () => {
  for (const ns of [OPTIONAL, REQUIRED]) {
    it(`${ns.name}: every field parses to its value, and writes back to the same text`, () => {
      expect(parseCaip122Message(FULL, ns)).toStrictEqual(FIELDS);
      expect(createCaip122Message(ns, FIELDS)).toBe(FULL);
      const bare = withLine(3, undefined).replace('\n\n\n', '\n\n'); // no statement: one empty line
      const { statement: _, ...rest } = FIELDS;
      expect(parseCaip122Message(bare, ns)).toStrictEqual(rest);
      expect(createCaip122Message(ns, rest)).toBe(bare);
    });
  }

  for (const [name, [text, type, field, line]] of Object.entries(NEGATIVE)) {
    it(`refuses ${name}: ${type} on ${field}${line ? ` at line ${line}` : ''}, whether the fields are optional or required`, () => {
      // A missing required field fails first for REQUIRED where a field is removed; every vector here keeps them.
      expect(refusal(OPTIONAL, text)).toEqual({ type, field, line });
      expect(refusal(REQUIRED, text)).toEqual({ type, field, line });
    });
  }

  it('says which kind of account a message for another namespace asks for, and explains one empty line', () => {
    const other = (() => {
      try {
        parseCaip122Message(withLine(0, 'example.com wants you to sign in with your Ethereum account:'), OPTIONAL);
      } catch (error) {
        return error as ExampleError;
      }
    })();
    expect(other?.received).toBe('Ethereum');
    expect(other?.message).toMatch(/Ethereum account, not a Example account/);
    const blank = () => parseCaip122Message(withLine(3, ''), OPTIONAL);
    expect(blank).toThrow(/one empty line before the fields, not two as EIP-4361 has/);
  });
});

describe('the namespace slot: which fields a profile requires', () => {
  const minimal = `example.com wants you to sign in with your Example account:\n${ADDRESS}`;
  it('all optional: the message may end after the address or the statement, and any field may be left out', () => {
    expect(parseCaip122Message(minimal, OPTIONAL)).toStrictEqual({ domain: 'example.com', address: ADDRESS });
    expect(parseCaip122Message(`${minimal}\n\nSign in.`, OPTIONAL)).toMatchObject({ statement: 'Sign in.' });
    expect(parseCaip122Message(`${minimal}\n\nNonce: 12345678`, OPTIONAL)).toStrictEqual({
      domain: 'example.com',
      address: ADDRESS,
      nonce: '12345678',
    });
    expect(createCaip122Message(OPTIONAL, { domain: 'example.com', address: ADDRESS })).toBe(minimal);
    expect(refusal(OPTIONAL, `${minimal}\n\nSign in.\n`)).toEqual({ type: 'UNABLE_TO_PARSE', field: 'message', line: 5 });
    expect(refusal(OPTIONAL, `${minimal}\n\nSign in.\n\nmore`)).toEqual({ type: 'UNABLE_TO_PARSE', field: 'statement', line: 6 });
  });

  it('URI to Issued At required: each must be there, in its place, and the writer refuses to leave one out', () => {
    expect(refusal(REQUIRED, minimal)).toEqual({ type: 'UNABLE_TO_PARSE', field: 'statement', line: 3 });
    expect(refusal(REQUIRED, `${minimal}\n`)).toEqual({ type: 'UNABLE_TO_PARSE', field: 'uri', line: 4 });
    expect(refusal(REQUIRED, withLine(7, undefined))).toEqual({ type: 'UNABLE_TO_PARSE', field: 'chainId', line: 8 });
    expect(refusal(REQUIRED, withLine(9, undefined))).toEqual({ type: 'UNABLE_TO_PARSE', field: 'issuedAt', line: 10 });
    const { nonce: _, ...noNonce } = FIELDS;
    expect(() => createCaip122Message(REQUIRED, noNonce)).toThrow(
      expect.objectContaining({ type: 'INVALID_NONCE', field: 'nonce' }),
    );
    expect(createCaip122Message(OPTIONAL, noNonce)).not.toContain('Nonce:');
  });
});

describe('acceptCaip2ChainId: the CAIP-2 forms of a chain the namespace knows, read as its own spelling', () => {
  const parse = (chainId: string) =>
    parseCaip122Message(withLine(7, `Chain ID: ${chainId}`), REQUIRED, { acceptCaip2ChainId: true });
  it('takes namespace:reference and the bare reference, and gives the profile’s spelling; its own form stays as written', () => {
    expect(parse('example:a1b2c3').chainId).toBe('main');
    expect(parse('a1b2c3').chainId).toBe('main');
    expect(parse('example:d4e5f6').chainId).toBe('test');
    expect(parse('test').chainId).toBe('test');
  });
  const refused: Record<string, string> = {
    'a chain of another namespace': 'eip155:1',
    'another namespace with a known reference': 'solana:a1b2c3',
    'a reference the namespace does not know': 'example:ffffff',
    'the namespace in capitals (CAIP-2 namespaces are lower case)': 'EXAMPLE:a1b2c3',
    'a reference in other case': 'example:A1B2C3',
    'nothing after the colon': 'example:',
  };
  for (const [name, chainId] of Object.entries(refused)) {
    it(`refuses ${name} (${chainId}): INVALID_CHAIN_ID`, () => {
      expect(() => parse(chainId)).toThrow(expect.objectContaining({ type: 'INVALID_CHAIN_ID', field: 'chainId', line: 8 }));
    });
  }
  it('says which namespace a chain of another one belongs to', () => {
    expect(() => parse('eip155:1')).toThrow(/names a chain of the eip155 namespace, not of example \(Example\)/);
  });
});

describe('createCaip122Message refuses what would not parse back to the same fields', () => {
  const refused: Record<string, [Partial<Record<keyof Caip122Message, unknown>>, string, string]> = {
    'an empty statement': [{ statement: '' }, 'INVALID_STATEMENT', 'statement'],
    'a statement on two lines': [{ statement: 'a\nb' }, 'INVALID_STATEMENT', 'statement'],
    'a statement that begins like a field (it would read back as the URI)': [
      { statement: 'URI: https://evil.example' },
      'INVALID_STATEMENT',
      'statement',
    ],
    'a statement that is "Resources:"': [{ statement: 'Resources:' }, 'INVALID_STATEMENT', 'statement'],
    'an empty URI': [{ uri: '' }, 'INVALID_URI', 'uri'],
    'version 2': [{ version: '2' }, 'INVALID_MESSAGE_VERSION', 'version'],
    'a short nonce': [{ nonce: 'abc' }, 'INVALID_NONCE', 'nonce'],
    'a nonce that is a number': [{ nonce: 12345678 }, 'INVALID_NONCE', 'nonce'],
    'an invalid Date': [{ issuedAt: new Date('nope') }, 'INVALID_TIME_FORMAT', 'issuedAt'],
    'an expiration time that is not RFC 3339': [{ expirationTime: 'tomorrow' }, 'INVALID_TIME_FORMAT', 'expirationTime'],
    'an empty Request ID': [{ requestId: '' }, 'INVALID_REQUEST_ID', 'requestId'],
    'resources that are not a list': [{ resources: 'https://a.example' }, 'INVALID_RESOURCE', 'resources'],
    'a resource with a line break': [{ resources: ['https://a.example\n- https://b.example'] }, 'INVALID_RESOURCE', 'resources'],
    'a CAIP-2 Chain ID (the writer writes the profile’s own form only)': [
      { chainId: 'example:a1b2c3' },
      'INVALID_CHAIN_ID',
      'chainId',
    ],
  };
  for (const [name, [change, type, field]] of Object.entries(refused)) {
    it(`refuses ${name}: ${type}`, () => {
      expect(() => createCaip122Message(OPTIONAL, { ...FIELDS, ...change } as Caip122Message)).toThrow(
        expect.objectContaining({ name: 'ExampleError', type, field }),
      );
    });
  }
  it('refuses fields that are not an object', () => {
    expect(() => createCaip122Message(OPTIONAL, null as unknown as Caip122Message)).toThrow(
      expect.objectContaining({ type: 'UNABLE_TO_PARSE', field: 'message' }),
    );
  });
});
