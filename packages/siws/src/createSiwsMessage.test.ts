import { createSignInMessageText } from '@solana/wallet-standard-util';
import { describe, expect, it } from 'vitest';
import { type CreateSiwsMessageParameters, createSiwsMessage } from './createSiwsMessage.ts';
import type { SiwsErrorType, SiwsField } from './errors.ts';

const ADDRESS = 'FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z';
const BASE: CreateSiwsMessageParameters = { domain: 'example.com', address: ADDRESS };

describe('createSiwsMessage', () => {
  it('writes the maximal template in the reference order, Dates as ISO 8601 UTC', () => {
    const text = createSiwsMessage({
      ...BASE,
      statement: 'Sign in to Example.',
      uri: 'https://example.com/login',
      version: '1',
      chainId: 'devnet',
      nonce: 'abcd1234',
      issuedAt: new Date('2025-01-01T00:00:00Z'),
      expirationTime: '2025-01-01T00:10:00Z',
      notBefore: new Date('2025-01-01T00:00:00Z'),
      requestId: 'r-1',
      resources: ['https://a.example/cb', 'ipfs://x'],
    });
    expect(text).toBe(
      [
        'example.com wants you to sign in with your Solana account:',
        ADDRESS,
        '',
        'Sign in to Example.',
        '',
        'URI: https://example.com/login',
        'Version: 1',
        'Chain ID: devnet',
        'Nonce: abcd1234',
        'Issued At: 2025-01-01T00:00:00.000Z',
        'Expiration Time: 2025-01-01T00:10:00Z',
        'Not Before: 2025-01-01T00:00:00.000Z',
        'Request ID: r-1',
        'Resources:',
        '- https://a.example/cb',
        '- ipfs://x',
      ].join('\n'),
    );
  });

  it('leaves out every field that is undefined, as the wallet-standard reference does', () => {
    const input = { domain: 'example.com', address: ADDRESS, nonce: 'abcd1234', chainId: 'mainnet' as const };
    expect(createSiwsMessage(input)).toBe(createSignInMessageText(input));
    expect(createSiwsMessage(BASE)).toBe(`example.com wants you to sign in with your Solana account:\n${ADDRESS}`);
  });

  // What Solana puts in the namespace slot; the shared grammar's refusals are tested in @signet/siwe's caip122.test.ts.
  const refused: Record<string, [Partial<Record<keyof CreateSiwsMessageParameters, unknown>>, SiwsErrorType, SiwsField]> = {
    'no domain': [{ domain: undefined }, 'INVALID_DOMAIN', 'domain'],
    'a domain with a scheme': [{ domain: 'https://example.com' }, 'INVALID_DOMAIN', 'domain'],
    'no address': [{ address: undefined }, 'INVALID_ADDRESS', 'address'],
    'a 31-byte address': [{ address: '4uQeVj5tqViQh7yWWGStvkEG1Zmhx6uasJtWCJziofL' }, 'INVALID_ADDRESS', 'address'],
    'an EIP-155 chain id': [{ chainId: '1' }, 'INVALID_CHAIN_ID', 'chainId'],
  };
  for (const [name, [change, type, field]] of Object.entries(refused)) {
    it(`refuses ${name}: ${type}`, () => {
      expect(() => createSiwsMessage({ ...BASE, ...change } as CreateSiwsMessageParameters)).toThrow(
        expect.objectContaining({ name: 'SiwsError', type, field }),
      );
    });
  }
});
