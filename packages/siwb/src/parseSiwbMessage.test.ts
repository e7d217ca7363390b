/**
 * Parsing vectors: positive ones with the fields they give, negative ones each with the type,
 * field and line of its refusal. The layout is CAIP-122's (EIP-4361's fields, in its order)
 * with the Bitcoin namespace, one empty line between the address and the fields when there is
 * no statement. The grammar every CAIP-122 profile shares is tested once, in `@signet/siwe`'s
 * `caip122.test.ts`; these are what Bitcoin puts in the namespace slot (first line, address,
 * Chain ID and its network, URI to Issued At required).
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

const NEGATIVE: Record<string, [unknown, SiwbErrorType, SiwbField, number | undefined]> = {
  'an Ethereum message': [
    withLine(MINIMAL_LINES, 0, 'example.com wants you to sign in with your Ethereum account:'),
    'WRONG_NAMESPACE',
    'message',
    1,
  ],
  'a domain with a scheme': [withLine(MINIMAL_LINES, 0, `https://${PREAMBLE}`), 'INVALID_DOMAIN', 'domain', 1],
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
  'no URI': [withLine(MINIMAL_LINES, 3, undefined), 'UNABLE_TO_PARSE', 'uri', 4],
  'no Chain ID': [withLine(MINIMAL_LINES, 5, undefined), 'UNABLE_TO_PARSE', 'chainId', 6],
  'an EIP-155 Chain ID': [withLine(MINIMAL_LINES, 5, 'Chain ID: 1'), 'INVALID_CHAIN_ID', 'chainId', 6],
  'a whole CAIP-2 id as the Chain ID': [
    withLine(MINIMAL_LINES, 5, `Chain ID: bip122:${MAINNET}`),
    'INVALID_CHAIN_ID',
    'chainId',
    6,
  ],
  'an upper-case Chain ID': [withLine(MINIMAL_LINES, 5, `Chain ID: ${MAINNET.toUpperCase()}`), 'INVALID_CHAIN_ID', 'chainId', 6],
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
  'no Issued At': [withLine(MINIMAL_LINES, 7, undefined), 'UNABLE_TO_PARSE', 'issuedAt', 8],
  'the message ends after the address': [MINIMAL_LINES.slice(0, 2).join('\n'), 'UNABLE_TO_PARSE', 'statement', 3],
  'the message ends after the empty line': [MINIMAL_LINES.slice(0, 3).join('\n'), 'UNABLE_TO_PARSE', 'uri', 4],
};

describe('parseSiwbMessage: negative vectors', () => {
  for (const [name, [text, type, field, line]] of Object.entries(NEGATIVE)) {
    it(`${name}: ${type} on ${field}${line === undefined ? '' : `, line ${line}`}`, () => {
      const error = parseError(text);
      expect({ type: error.type, field: error.field, line: error.line }).toEqual({ type, field, line });
      if (line !== undefined) expect(error.message).toMatch(new RegExp(`^line ${line}: `));
    });
  }
});

describe('parseSiwbMessage with acceptCaip2ChainId: a network’s whole CAIP-2 id, as Reown AppKit writes it', () => {
  const parse = (chainId: string, lines = MINIMAL_LINES) =>
    parseSiwbMessage(withLine(lines, 5, `Chain ID: ${chainId}`), { acceptCaip2ChainId: true });
  it('reads bip122:<reference> as the bare reference; the bare reference as written', () => {
    expect(parse(`bip122:${MAINNET}`)).toStrictEqual(MINIMAL_FIELDS);
    expect(parse(MAINNET)).toStrictEqual(MINIMAL_FIELDS);
    const test = withLine(MINIMAL_LINES, 1, 'tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c').split('\n');
    expect(parse('bip122:00000008819873e925422c1ff0f99f7c', test).chainId).toBe('00000008819873e925422c1ff0f99f7c');
  });
  const refused: Record<string, [string, string]> = {
    'an Ethereum chain': ['eip155:1', 'INVALID_CHAIN_ID'],
    'a Solana chain': ['solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', 'INVALID_CHAIN_ID'],
    'a reference in upper case': [`bip122:${MAINNET.toUpperCase()}`, 'INVALID_CHAIN_ID'],
    'regtest’s reference': ['bip122:0f9188f13cb7b2c71f2a335e3a4fc328', 'INVALID_CHAIN_ID'],
    'the whole genesis hash': ['bip122:000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f', 'INVALID_CHAIN_ID'],
    'the namespace in capitals': [`BIP122:${MAINNET}`, 'INVALID_CHAIN_ID'],
    'a mainnet address under testnet’s CAIP-2 id': ['bip122:000000000933ea01ad0ee984209779ba', 'NETWORK_MISMATCH'],
  };
  for (const [name, [chainId, type]] of Object.entries(refused)) {
    it(`refuses ${name}: ${type}`, () => {
      expect(() => parse(chainId)).toThrow(expect.objectContaining({ name: 'SiwbError', type, line: 6 }));
    });
  }
});
