/**
 * Public vectors found in the registry's packages and in the specifications, each with what
 * this package does with it (and why, where it differs).
 *
 * - @solana/wallet-standard-util ships its own parse/format vectors (src/__tests__/signIn.ts):
 *   read from the installed package, so a new version's vectors are run too (and an unknown
 *   one fails here until it is looked at).
 * - The Solana namespace's CAIP-122 profile gives an example message and its bytes.
 * - Phantom's SIWS specification gives two example sign-in inputs (a valid one and a phishing one).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { base64urlnopad } from '@scure/base';
import { createSignInMessageText, parseSignInMessageText } from '@solana/wallet-standard-util';
import { describe, expect, it } from 'vitest';
import { createSiwsMessage } from './createSiwsMessage.ts';
import { SiwsError, type SiwsErrorType, type SiwsField } from './errors.ts';
import { parseSiwsMessage } from './parseSiwsMessage.ts';
import type { SiwsMessage } from './types.ts';

const ADDRESS = 'FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z';
const defined = (value: object) => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));

function refusal(run: () => unknown): Pick<SiwsError, 'type' | 'field'> {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SiwsError);
    return { type: (error as SiwsError).type, field: (error as SiwsError).field };
  }
  throw new Error('expected a refusal');
}

describe('@solana/wallet-standard-util: its own signIn vectors', () => {
  const require = createRequire(import.meta.url);
  const root = join(dirname(require.resolve('@solana/wallet-standard-util')), '..', '..');
  const source = readFileSync(join(root, 'src', '__tests__', 'signIn.ts'), 'utf8');
  const literal = source.split('const signInMessageTests = ')[1]?.split('\n};\n')[0];
  // Data only: an object literal of strings (the file itself is a Jest test and cannot be imported).
  const vectors = new Function(`return (${literal}\n});`)() as Record<string, { parsed: SiwsMessage; text: string }>;

  /** What we do with each, with the vectors' placeholder address "A" replaced by a real one. */
  const expected: Record<string, 'same' | [SiwsErrorType, SiwsField]> = {
    'with `domain` and `address`': 'same',
    'with `statement`': 'same',
    'with multi-line `statement`': ['UNABLE_TO_PARSE', 'statement'],
    'with fields': 'same',
    'with `statement` and fields': 'same',
    'with multi-line `statement` and fields': ['UNABLE_TO_PARSE', 'statement'],
  };

  it('are all known here', () => {
    expect(Object.keys(vectors).sort()).toEqual(Object.keys(expected).sort());
  });

  for (const [name, { parsed, text }] of Object.entries(vectors)) {
    it(`"${name}": its address "A" is refused (INVALID_ADDRESS: not 32 bytes of base58)`, () => {
      expect(parsed.address).toBe('A');
      expect(refusal(() => parseSiwsMessage(text))).toEqual({ type: 'INVALID_ADDRESS', field: 'address' });
    });

    const outcome = expected[name];
    if (outcome === undefined) continue; // "are all known here" fails
    const real = text.replace(/\nA(\n|$)/, `\n${ADDRESS}$1`);
    const fields = { ...parsed, address: ADDRESS };
    if (outcome === 'same') {
      it(`"${name}" with a real address: the same fields and the same text`, () => {
        expect(parseSiwsMessage(real)).toStrictEqual(defined(fields));
        expect(createSiwsMessage(fields)).toBe(real);
        expect(createSignInMessageText(fields)).toBe(real);
      });
    } else {
      it(`"${name}" with a real address: refused (${outcome.join(' on ')}), a statement is one line`, () => {
        expect(defined(parseSignInMessageText(real) ?? {})).toStrictEqual(defined(fields));
        expect(refusal(() => parseSiwsMessage(real))).toEqual({ type: outcome[0], field: outcome[1] });
        expect(refusal(() => createSiwsMessage(fields))).toEqual({ type: 'INVALID_STATEMENT', field: 'statement' });
      });
    }
  }
});

describe('CAIP-122, Solana namespace: the example message', () => {
  const text = [
    'service.org wants you to sign in with your Solana account:',
    'GwAF45zjfyGzUbd3i3hXxzGeuchzEZXwpRYHZM5912F1',
    '',
    'I accept the ServiceOrg Terms of Service: https://service.org/tos',
    '',
    'URI: https://service.org/login',
    'Version: 1',
    'Chain ID: 1',
    'Nonce: 32891757',
    'Issued At: 2021-09-30T16:25:24.000Z',
    'Resources:',
    '- ipfs://Qme7ss3ARVgxv6rXqVPiikMJ8u2NLgmgszg13pYrDKEoiu',
    '- https://example.com/my-web2-claim.json',
  ].join('\n');
  const bytes =
    'c2VydmljZS5vcmcgd2FudHMgeW91IHRvIHNpZ24gaW4gd2l0aCB5b3VyIFNvbGFuYSBhY2NvdW50OgpHd0FGNDV6amZ5R3pVYmQzaTNoWHh6R2V1Y2h6RVpYd3BSWUhaTTU5MTJGMQoKSSBhY2NlcHQgdGhlIFNlcnZpY2VPcmcgVGVybXMgb2YgU2VydmljZTogaHR0cHM6Ly9zZXJ2aWNlLm9yZy90b3MKClVSSTogaHR0cHM6Ly9zZXJ2aWNlLm9yZy9sb2dpbgpWZXJzaW9uOiAxCkNoYWluIElEOiAxCk5vbmNlOiAzMjg5MTc1NwpJc3N1ZWQgQXQ6IDIwMjEtMDktMzBUMTY6MjU6MjQuMDAwWgpSZXNvdXJjZXM6Ci0gaXBmczovL1FtZTdzczNBUlZneHY2clhxVlBpaWtNSjh1Mk5MZ21nc3pnMTNwWXJES0VvaXUKLSBodHRwczovL2V4YW1wbGUuY29tL215LXdlYjItY2xhaW0uanNvbg';

  it('is signed as the UTF-8 bytes of its text (the bytes the profile gives)', () => {
    expect(new TextDecoder().decode(base64urlnopad.decode(bytes))).toBe(text);
  });

  it('is refused as written: its "Chain ID: 1" is an EIP-155 id, not a SIWS Chain ID (line 8)', () => {
    expect(refusal(() => parseSiwsMessage(text))).toEqual({ type: 'INVALID_CHAIN_ID', field: 'chainId' });
  });

  it('with a SIWS Chain ID, every other line parses and round-trips', () => {
    const fixed = text.replace('Chain ID: 1', 'Chain ID: mainnet');
    expect(parseSiwsMessage(fixed)).toMatchObject({
      domain: 'service.org',
      address: 'GwAF45zjfyGzUbd3i3hXxzGeuchzEZXwpRYHZM5912F1',
      nonce: '32891757',
      chainId: 'mainnet',
      resources: ['ipfs://Qme7ss3ARVgxv6rXqVPiikMJ8u2NLgmgszg13pYrDKEoiu', 'https://example.com/my-web2-claim.json'],
    });
    expect(createSiwsMessage(parseSiwsMessage(fixed))).toBe(fixed);
  });
});

describe("Phantom's SIWS specification: its example inputs", () => {
  const issuedAt = '2024-01-01T00:00:00.000Z';
  const valid = {
    domain: 'localhost:3000',
    address: ADDRESS,
    statement:
      'Clicking Sign or Approve only means you have proved this wallet is owned by you. This request will not trigger any blockchain transaction or cost any gas fee.',
    version: '1',
    nonce: 'oBbLoEldZs',
    chainId: 'mainnet',
    issuedAt,
    resources: ['https://example.com', 'https://phantom.app/'],
  } as const;
  const phishing = {
    domain: 'phishing.com',
    address: ADDRESS,
    statement: 'Sign-in to connect!',
    uri: 'https://www.phishing.com',
    version: '1',
    nonce: 'oBbLoEldZs',
    chainId: 'solana:mainnet',
    issuedAt,
    resources: ['https://example.com', 'https://phantom.app/'],
  } as const;

  for (const [name, input] of Object.entries({ valid, phishing })) {
    it(`the ${name} input formats as the reference does and parses back to itself`, () => {
      const fields = { ...input, resources: [...input.resources] };
      const text = createSiwsMessage(fields);
      expect(text).toBe(createSignInMessageText(fields));
      expect(parseSiwsMessage(text)).toStrictEqual(fields);
    });
  }
});
