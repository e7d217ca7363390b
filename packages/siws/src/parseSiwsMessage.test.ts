/**
 * Parsing vectors written from the SIWS specification (its ABNF, the minimal and maximal
 * message templates, and the wallet-standard input's field rules): positive ones with the
 * fields they give, negative ones each with the type, field and line of its refusal. The
 * grammar every CAIP-122 profile shares is tested once, in `@signet/siwe`'s `caip122.test.ts`;
 * these are what Solana puts in the namespace slot (first line, address, Chain ID, all fields
 * optional).
 */
import { describe, expect, it } from 'vitest';
import { createSiwsMessage } from './createSiwsMessage.ts';
import { SiwsError, type SiwsErrorType, type SiwsField } from './errors.ts';
import { parseSiwsMessage } from './parseSiwsMessage.ts';
import type { SiwsMessage } from './types.ts';

/** RFC 8032 test 1's public key, in base58. */
const ADDRESS = 'FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z';
const PREAMBLE = 'example.com wants you to sign in with your Solana account:';

/** The maximal template: every field. */
const FULL_LINES = [
  'example.com:8443 wants you to sign in with your Solana account:',
  ADDRESS,
  '',
  "I accept the Terms: https://example.com/tos (v2), isn't it?",
  '',
  'URI: https://example.com:8443/login?x=1#top',
  'Version: 1',
  'Chain ID: mainnet',
  'Nonce: abcDEF12345',
  'Issued At: 2024-02-29T23:59:60.123456+05:30',
  'Expiration Time: 2024-03-01T00:00:00Z',
  'Not Before: 2024-02-29t00:00:00z',
  "Request ID: req-1_~!$&'()*+,;=:@%20",
  'Resources:',
  '- ipfs://Qme7ss3ARVgxv6rXqVPiikMJ8u2NLgmgszg13pYrDKEoiu',
  '- https://example.com/cb',
  '- urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66',
];
const FULL = FULL_LINES.join('\n');
const FULL_FIELDS: SiwsMessage = {
  domain: 'example.com:8443',
  address: ADDRESS,
  statement: "I accept the Terms: https://example.com/tos (v2), isn't it?",
  uri: 'https://example.com:8443/login?x=1#top',
  version: '1',
  chainId: 'mainnet',
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
};

/** FULL with line `index` (0-based) replaced by `line`, or removed when `line` is undefined. */
const withLine = (index: number, line: string | undefined) => {
  const lines = [...FULL_LINES];
  if (line === undefined) lines.splice(index, 1);
  else lines[index] = line;
  return lines.join('\n');
};

function parseError(text: unknown): SiwsError {
  try {
    parseSiwsMessage(text as string);
  } catch (error) {
    expect(error).toBeInstanceOf(SiwsError);
    return error as SiwsError;
  }
  throw new Error(`expected parse to fail for:\n${String(text)}`);
}

describe('parseSiwsMessage: positive vectors', () => {
  const positive: Record<string, [string, SiwsMessage]> = {
    'the maximal template (every field)': [FULL, FULL_FIELDS],
    'the minimal template (domain and address only)': [`${PREAMBLE}\n${ADDRESS}`, { domain: 'example.com', address: ADDRESS }],
    'a statement and no fields': [
      `${PREAMBLE}\n${ADDRESS}\n\nSign in.`,
      { domain: 'example.com', address: ADDRESS, statement: 'Sign in.' },
    ],
    'fields and no statement (one empty line)': [
      `${PREAMBLE}\n${ADDRESS}\n\nURI: https://example.com\nNonce: 12345678`,
      { domain: 'example.com', address: ADDRESS, uri: 'https://example.com', nonce: '12345678' },
    ],
    'only resources, and an empty list': [
      `${PREAMBLE}\n${ADDRESS}\n\nResources:`,
      { domain: 'example.com', address: ADDRESS, resources: [] },
    ],
    'Chain ID in its solana: form': [
      `${PREAMBLE}\n${ADDRESS}\n\nChain ID: solana:devnet`,
      { domain: 'example.com', address: ADDRESS, chainId: 'solana:devnet' },
    ],
    'Chain ID localnet': [
      `${PREAMBLE}\n${ADDRESS}\n\nChain ID: localnet`,
      { domain: 'example.com', address: ADDRESS, chainId: 'localnet' },
    ],
    'the all-zero address (32 ones: leading zero bytes are ones in base58)': [
      `${PREAMBLE}\n11111111111111111111111111111111`,
      { domain: 'example.com', address: '11111111111111111111111111111111' },
    ],
    'an IPv6 literal domain with a port': [
      `[2001:db8::1]:8080 wants you to sign in with your Solana account:\n${ADDRESS}`,
      { domain: '[2001:db8::1]:8080', address: ADDRESS },
    ],
    'a statement of any printable ASCII (the shared grammar follows the draft erratum to EIP-4361)': [
      `${PREAMBLE}\n${ADDRESS}\n\nSay "hi" to 100% of <users> {now} | a\\b ^ \`code\``,
      { domain: 'example.com', address: ADDRESS, statement: 'Say "hi" to 100% of <users> {now} | a\\b ^ `code`' },
    ],
    'a statement that only looks like a field ("URI:" without its space)': [
      `${PREAMBLE}\n${ADDRESS}\n\nURI:https://example.com`,
      { domain: 'example.com', address: ADDRESS, statement: 'URI:https://example.com' },
    ],
  };
  for (const [name, [text, fields]] of Object.entries(positive)) {
    it(`parses ${name}, and formatting gives the same text`, () => {
      const parsed = parseSiwsMessage(text);
      expect(parsed).toStrictEqual(fields);
      expect(createSiwsMessage(parsed)).toBe(text);
    });
  }
});

describe('parseSiwsMessage: negative vectors', () => {
  const negative: Record<string, [text: unknown, type: SiwsErrorType, field: SiwsField, line?: number]> = {
    'a Sign-In with Ethereum message': [
      'example.com wants you to sign in with your Ethereum account:\n0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
      'WRONG_NAMESPACE',
      'message',
      1,
    ],
    'a preamble in lower case': [
      withLine(0, 'example.com wants you to sign in with your solana account:'),
      'WRONG_NAMESPACE',
      'message',
      1,
    ],
    'a domain with a scheme (SIWS has none)': [
      withLine(0, 'https://example.com wants you to sign in with your Solana account:'),
      'INVALID_DOMAIN',
      'domain',
      1,
    ],
    'no address line': [PREAMBLE, 'INVALID_ADDRESS', 'address', 2],
    'an empty address': [withLine(1, ''), 'INVALID_ADDRESS', 'address', 2],
    'an Ethereum address': [withLine(1, '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'), 'INVALID_ADDRESS', 'address', 2],
    'an address with a character outside base58 (0)': [withLine(1, `0${ADDRESS.slice(1)}`), 'INVALID_ADDRESS', 'address', 2],
    'an address with a character outside base58 (l)': [withLine(1, `l${ADDRESS.slice(1)}`), 'INVALID_ADDRESS', 'address', 2],
    'an address of 31 bytes (43 characters)': [
      withLine(1, '4uQeVj5tqViQh7yWWGStvkEG1Zmhx6uasJtWCJziofL'),
      'INVALID_ADDRESS',
      'address',
      2,
    ],
    'an address of 33 bytes': [withLine(1, '2K3n5t4wSaF5mj27Tw9vStXWLWyRjjiH5Cp3CFLpKVCr1c'), 'INVALID_ADDRESS', 'address', 2],
    'an address with a trailing space': [withLine(1, `${ADDRESS} `), 'INVALID_ADDRESS', 'address', 2],
    'a trailing newline after the address': [`${PREAMBLE}\n${ADDRESS}\n`, 'UNABLE_TO_PARSE', 'message', 3],
    'an EIP-155 chain id': [withLine(7, 'Chain ID: 1'), 'INVALID_CHAIN_ID', 'chainId', 8],
    'a network in capitals': [withLine(7, 'Chain ID: Mainnet'), 'INVALID_CHAIN_ID', 'chainId', 8],
    'mainnet-beta (the cluster name, not a SIWS Chain ID)': [
      withLine(7, 'Chain ID: mainnet-beta'),
      'INVALID_CHAIN_ID',
      'chainId',
      8,
    ],
    'solana:localnet (not in the ABNF)': [withLine(7, 'Chain ID: solana:localnet'), 'INVALID_CHAIN_ID', 'chainId', 8],
    'a CAIP-2 chain id': [withLine(7, 'Chain ID: solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'), 'INVALID_CHAIN_ID', 'chainId', 8],
  };
  for (const [name, [text, type, field, line]] of Object.entries(negative)) {
    it(`refuses ${name}: ${type} on ${field}${line ? ` at line ${line}` : ''}`, () => {
      const error = parseError(text);
      expect({ type: error.type, field: error.field, line: error.line }).toEqual({ type, field, line });
      if (line !== undefined) expect(error.message).toMatch(new RegExp(`^line ${line}: `));
    });
  }

  it('says what namespace a message for another chain asks for', () => {
    const error = parseError('example.com wants you to sign in with your Ethereum account:\n0xabc');
    expect(error.received).toBe('Ethereum');
    expect(error.message).toMatch(/Ethereum account, not a Solana account/);
  });
});

describe('parseSiwsMessage with acceptCaip2ChainId: a cluster’s CAIP-2 id, as Reown AppKit writes it', () => {
  const withChain = (chainId: string) => `${PREAMBLE}\n${ADDRESS}\n\nChain ID: ${chainId}`;
  const parse = (chainId: string) => parseSiwsMessage(withChain(chainId), { acceptCaip2ChainId: true });
  it('reads solana:<genesis hash> and the bare genesis hash as the cluster’s name; the SIWS forms as written', () => {
    expect(parse('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp').chainId).toBe('mainnet');
    expect(parse('5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp').chainId).toBe('mainnet');
    expect(parse('solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1').chainId).toBe('devnet');
    expect(parse('4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z').chainId).toBe('testnet');
    expect(parse('solana:mainnet').chainId).toBe('solana:mainnet');
    expect(parse('devnet').chainId).toBe('devnet');
  });
  const refused: Record<string, string> = {
    'an Ethereum chain': 'eip155:1',
    'a Bitcoin chain': 'bip122:000000000019d6689c085ae165831e93',
    'the whole 44-character genesis hash (CAIP-2 takes its first 32)': '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d',
    'a reference in other case (base58 is case-sensitive)': 'solana:5EYKT4USFV8P8NJDTREPY1VZQKQZKVDP',
    'a genesis hash no cluster has': 'solana:11111111111111111111111111111111',
    'solana:localnet (no genesis hash, not in the ABNF)': 'solana:localnet',
    'the namespace in capitals': 'Solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  };
  for (const [name, chainId] of Object.entries(refused)) {
    it(`refuses ${name}: INVALID_CHAIN_ID`, () => {
      expect(() => parse(chainId)).toThrow(expect.objectContaining({ name: 'SiwsError', type: 'INVALID_CHAIN_ID', line: 4 }));
    });
  }
  it('without the option, a CAIP-2 id stays refused (the SIWS ABNF has none)', () => {
    expect(() => parseSiwsMessage(withChain('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'))).toThrow(
      expect.objectContaining({ type: 'INVALID_CHAIN_ID' }),
    );
  });
});
