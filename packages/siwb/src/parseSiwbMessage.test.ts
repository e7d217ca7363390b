/**
 * Parsing vectors: positive ones with the fields they give, negative ones each with the type,
 * field and line of its refusal. The layout is CAIP-122's (EIP-4361's fields, in its order)
 * with the Bitcoin namespace, one empty line between the address and the fields when there is
 * no statement.
 */
import { describe, expect, it } from 'vitest';
import { createSiwbMessage } from './createSiwbMessage.ts';
import { SiwbError, type SiwbErrorType, type SiwbField } from './errors.ts';
import { parseSiwbMessage } from './parseSiwbMessage.ts';
import type { SiwbMessage } from './types.ts';

/** BIP-322's test key as P2WPKH. */
const ADDRESS = 'bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l';
const MAINNET = '000000000019d6689c085ae165831e93';
const PREAMBLE = 'example.com wants you to sign in with your Bitcoin account:';

/** The maximal template: every field. */
const FULL_LINES = [
  'example.com:8443 wants you to sign in with your Bitcoin account:',
  ADDRESS,
  '',
  "I accept the Terms: https://example.com/tos (v2), isn't it?",
  '',
  'URI: https://example.com:8443/login?x=1#top',
  'Version: 1',
  `Chain ID: ${MAINNET}`,
  'Nonce: abcDEF12345',
  'Issued At: 2024-02-29T23:59:60.123456+05:30',
  'Expiration Time: 2024-03-01T00:00:00Z',
  'Not Before: 2024-02-29t00:00:00z',
  "Request ID: req-1_~!$&'()*+,;=:@%20",
  'Resources:',
  '- ipfs://Qme7ss3ARVgxv6rXqVPiikMJ8u2NLgmgszg13pYrDKEoiu',
  '- https://example.com/cb',
];
const FULL = FULL_LINES.join('\n');
const FULL_FIELDS: SiwbMessage = {
  domain: 'example.com:8443',
  address: ADDRESS,
  statement: "I accept the Terms: https://example.com/tos (v2), isn't it?",
  uri: 'https://example.com:8443/login?x=1#top',
  version: '1',
  chainId: MAINNET,
  nonce: 'abcDEF12345',
  issuedAt: '2024-02-29T23:59:60.123456+05:30',
  expirationTime: '2024-03-01T00:00:00Z',
  notBefore: '2024-02-29t00:00:00z',
  requestId: "req-1_~!$&'()*+,;=:@%20",
  resources: ['ipfs://Qme7ss3ARVgxv6rXqVPiikMJ8u2NLgmgszg13pYrDKEoiu', 'https://example.com/cb'],
};
/** The minimal template: the required fields only. */
const MINIMAL_LINES = [
  PREAMBLE,
  ADDRESS,
  '',
  'URI: https://example.com/login',
  'Version: 1',
  `Chain ID: ${MAINNET}`,
  'Nonce: abcdefgh',
  'Issued At: 2025-01-01T00:00:00Z',
];
const MINIMAL = MINIMAL_LINES.join('\n');
const MINIMAL_FIELDS: SiwbMessage = {
  domain: 'example.com',
  address: ADDRESS,
  uri: 'https://example.com/login',
  version: '1',
  chainId: MAINNET,
  nonce: 'abcdefgh',
  issuedAt: '2025-01-01T00:00:00Z',
};

/** `lines` with line `index` (0-based) replaced by `line`, or removed when `line` is undefined. */
const withLine = (lines: string[], index: number, line: string | undefined) => {
  const copy = [...lines];
  if (line === undefined) copy.splice(index, 1);
  else copy[index] = line;
  return copy.join('\n');
};

function parseError(text: unknown): SiwbError {
  try {
    parseSiwbMessage(text as string);
  } catch (error) {
    expect(error).toBeInstanceOf(SiwbError);
    return error as SiwbError;
  }
  throw new Error(`expected parse to fail for:\n${String(text)}`);
}

describe('parseSiwbMessage: positive vectors', () => {
  const positive: Record<string, [string, SiwbMessage]> = {
    'the maximal template (every field)': [FULL, FULL_FIELDS],
    'the minimal template (required fields, no statement: one empty line)': [MINIMAL, MINIMAL_FIELDS],
    'a statement': [withLine(MINIMAL_LINES, 2, '\nSign in.\n'), { ...MINIMAL_FIELDS, statement: 'Sign in.' }],
    'an empty resource list': [`${MINIMAL}\nResources:`, { ...MINIMAL_FIELDS, resources: [] }],
    'Taproot, P2PKH and P2SH addresses': [
      withLine(MINIMAL_LINES, 1, 'bc1ppv609nr0vr25u07u95waq5lucwfm6tde4nydujnu8npg4q75mr5sxq8lt3'),
      { ...MINIMAL_FIELDS, address: 'bc1ppv609nr0vr25u07u95waq5lucwfm6tde4nydujnu8npg4q75mr5sxq8lt3' },
    ],
    'a P2PKH address': [
      withLine(MINIMAL_LINES, 1, '14vV3aCHBeStb5bkenkNHbe2YAFinYdXgc'),
      { ...MINIMAL_FIELDS, address: '14vV3aCHBeStb5bkenkNHbe2YAFinYdXgc' },
    ],
    'a P2SH address': [
      withLine(MINIMAL_LINES, 1, '3HSVzEhCFuH9Z3wvoWTexy7BMVVp3PjS6f'),
      { ...MINIMAL_FIELDS, address: '3HSVzEhCFuH9Z3wvoWTexy7BMVVp3PjS6f' },
    ],
    'a test address on testnet4 (test networks share their addresses)': [
      withLine(
        withLine(MINIMAL_LINES, 1, 'tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c').split('\n'),
        5,
        'Chain ID: 00000000da84f2bafbbc53dee25a72ae',
      ),
      {
        ...MINIMAL_FIELDS,
        address: 'tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c',
        chainId: '00000000da84f2bafbbc53dee25a72ae',
      },
    ],
  };
  for (const [name, [text, fields]] of Object.entries(positive)) {
    it(`${name}: gives its fields, and formats back to the same text`, () => {
      expect(parseSiwbMessage(text)).toStrictEqual(fields);
      expect(createSiwbMessage(fields)).toBe(text);
    });
  }
});

describe('parseSiwbMessage: negative vectors', () => {
  const negative: Record<string, [unknown, SiwbErrorType, SiwbField, number | undefined]> = {
    'not a string': [42, 'UNABLE_TO_PARSE', 'message', undefined],
    'CR LF line ends': [MINIMAL.replaceAll('\n', '\r\n'), 'UNABLE_TO_PARSE', 'message', 1],
    'longer than 10,000 characters': [
      `${MINIMAL}\nResources:\n${'- https://a.example\n'.repeat(600)}`,
      'UNABLE_TO_PARSE',
      'message',
      undefined,
    ],
    'an Ethereum message': [
      withLine(MINIMAL_LINES, 0, 'example.com wants you to sign in with your Ethereum account:'),
      'WRONG_NAMESPACE',
      'message',
      1,
    ],
    'no preamble': [withLine(MINIMAL_LINES, 0, 'example.com wants you to sign in'), 'UNABLE_TO_PARSE', 'domain', 1],
    'a domain with a scheme': [withLine(MINIMAL_LINES, 0, `https://${PREAMBLE}`), 'INVALID_DOMAIN', 'domain', 1],
    'an empty domain': [withLine(MINIMAL_LINES, 0, PREAMBLE.replace('example.com', '')), 'INVALID_DOMAIN', 'domain', 1],
    'no address': [withLine(MINIMAL_LINES, 1, ''), 'INVALID_ADDRESS', 'address', 2],
    'an Ethereum address': [
      withLine(MINIMAL_LINES, 1, '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'),
      'INVALID_ADDRESS',
      'address',
      2,
    ],
    'a bech32 checksum error': [
      withLine(MINIMAL_LINES, 1, 'bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0m'),
      'INVALID_ADDRESS',
      'address',
      2,
    ],
    'an upper-case bech32 address (one spelling per account)': [
      withLine(MINIMAL_LINES, 1, ADDRESS.toUpperCase()),
      'INVALID_ADDRESS',
      'address',
      2,
    ],
    'a mixed-case bech32 address (BIP-173 forbids it)': [
      withLine(MINIMAL_LINES, 1, `B${ADDRESS.slice(1)}`),
      'INVALID_ADDRESS',
      'address',
      2,
    ],
    'a regtest address': [
      withLine(MINIMAL_LINES, 1, 'bcrt1q6rhpng9evdsfnn833a4f4vej0asu6dk5srld6x'),
      'INVALID_ADDRESS',
      'address',
      2,
    ],
    'a P2WSH address': [
      withLine(MINIMAL_LINES, 1, 'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3'),
      'UNSUPPORTED_ADDRESS_TYPE',
      'address',
      2,
    ],
    'a witness version 2 address': [
      withLine(MINIMAL_LINES, 1, 'bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs'),
      'UNSUPPORTED_ADDRESS_TYPE',
      'address',
      2,
    ],
    'a statement without the empty line before it': [withLine(MINIMAL_LINES, 2, 'Sign in.'), 'UNABLE_TO_PARSE', 'statement', 3],
    'two empty lines and no statement (EIP-4361’s layout)': [withLine(MINIMAL_LINES, 2, '\n'), 'UNABLE_TO_PARSE', 'statement', 4],
    'a statement over two lines': [withLine(MINIMAL_LINES, 2, '\nSign\nin.\n'), 'UNABLE_TO_PARSE', 'statement', 5],
    'a statement with a forbidden character': [
      withLine(MINIMAL_LINES, 2, '\nSign in — now.\n'),
      'INVALID_STATEMENT',
      'statement',
      4,
    ],
    'a statement not followed by an empty line': [withLine(MINIMAL_LINES, 2, '\nSign in.'), 'UNABLE_TO_PARSE', 'statement', 5],
    'no URI': [withLine(MINIMAL_LINES, 3, undefined), 'UNABLE_TO_PARSE', 'uri', 4],
    'an invalid URI': [withLine(MINIMAL_LINES, 3, 'URI: not a uri'), 'INVALID_URI', 'uri', 4],
    'version 2': [withLine(MINIMAL_LINES, 4, 'Version: 2'), 'INVALID_MESSAGE_VERSION', 'version', 5],
    'no Chain ID': [withLine(MINIMAL_LINES, 5, undefined), 'UNABLE_TO_PARSE', 'chainId', 6],
    'an EIP-155 Chain ID': [withLine(MINIMAL_LINES, 5, 'Chain ID: 1'), 'INVALID_CHAIN_ID', 'chainId', 6],
    'a whole CAIP-2 id as the Chain ID': [
      withLine(MINIMAL_LINES, 5, `Chain ID: bip122:${MAINNET}`),
      'INVALID_CHAIN_ID',
      'chainId',
      6,
    ],
    'an upper-case Chain ID': [
      withLine(MINIMAL_LINES, 5, `Chain ID: ${MAINNET.toUpperCase()}`),
      'INVALID_CHAIN_ID',
      'chainId',
      6,
    ],
    'a whole genesis hash as the Chain ID': [
      withLine(MINIMAL_LINES, 5, 'Chain ID: 000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f'),
      'INVALID_CHAIN_ID',
      'chainId',
      6,
    ],
    'regtest’s Chain ID': [
      withLine(MINIMAL_LINES, 5, 'Chain ID: 0f9188f13cb7b2c71f2a335e3a4fc328'),
      'INVALID_CHAIN_ID',
      'chainId',
      6,
    ],
    'a mainnet address with testnet’s Chain ID': [
      withLine(MINIMAL_LINES, 5, 'Chain ID: 000000000933ea01ad0ee984209779ba'),
      'NETWORK_MISMATCH',
      'address',
      6,
    ],
    'a test address with mainnet’s Chain ID': [
      withLine(MINIMAL_LINES, 1, 'tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c'),
      'NETWORK_MISMATCH',
      'address',
      6,
    ],
    'a short nonce': [withLine(MINIMAL_LINES, 6, 'Nonce: abc'), 'INVALID_NONCE', 'nonce', 7],
    'no Issued At': [withLine(MINIMAL_LINES, 7, undefined), 'UNABLE_TO_PARSE', 'issuedAt', 8],
    '30 February': [withLine(MINIMAL_LINES, 7, 'Issued At: 2025-02-30T00:00:00Z'), 'INVALID_TIME_FORMAT', 'issuedAt', 8],
    'an empty Request ID': [`${MINIMAL}\nRequest ID: `, 'INVALID_REQUEST_ID', 'requestId', 9],
    'fields out of order': [`${MINIMAL}\nRequest ID: r1\nNot Before: 2025-01-01T00:00:00Z`, 'UNABLE_TO_PARSE', 'notBefore', 10],
    'a repeated field': [`${MINIMAL}\nNonce: abcdefgh`, 'UNABLE_TO_PARSE', 'nonce', 9],
    'a resource line without "- "': [`${MINIMAL}\nResources:\nhttps://a.example`, 'UNABLE_TO_PARSE', 'resources', 10],
    'an invalid resource': [`${MINIMAL}\nResources:\n- not a uri`, 'INVALID_RESOURCE', 'resources', 10],
    'a trailing newline': [`${MINIMAL}\n`, 'UNABLE_TO_PARSE', 'message', 9],
    'text after the fields': [`${MINIMAL}\nHello`, 'UNABLE_TO_PARSE', 'message', 9],
    'the message ends after the address': [MINIMAL_LINES.slice(0, 2).join('\n'), 'UNABLE_TO_PARSE', 'statement', 3],
    'the message ends after the empty line': [MINIMAL_LINES.slice(0, 3).join('\n'), 'UNABLE_TO_PARSE', 'uri', 4],
  };
  for (const [name, [text, type, field, line]] of Object.entries(negative)) {
    it(`${name}: ${type} on ${field}${line === undefined ? '' : `, line ${line}`}`, () => {
      const error = parseError(text);
      expect({ type: error.type, field: error.field, line: error.line }).toEqual({ type, field, line });
      if (line !== undefined) expect(error.message).toMatch(new RegExp(`^line ${line}: `));
    });
  }
});
