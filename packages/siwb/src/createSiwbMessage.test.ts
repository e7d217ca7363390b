import { describe, expect, it } from 'vitest';
import { type CreateSiwbMessageParameters, createSiwbMessage } from './createSiwbMessage.ts';
import { SiwbError } from './errors.ts';
import { parseSiwbMessage } from './parseSiwbMessage.ts';

const FIELDS: CreateSiwbMessageParameters = {
  domain: 'login.example.com',
  address: 'bc1ppv609nr0vr25u07u95waq5lucwfm6tde4nydujnu8npg4q75mr5sxq8lt3',
  statement: 'Sign in to Example.',
  uri: 'https://login.example.com/interaction/abc',
  chainId: '000000000019d6689c085ae165831e93',
  nonce: 'abcdef0123456789',
  issuedAt: new Date('2025-01-01T00:00:00Z'),
  expirationTime: new Date('2025-01-01T00:10:00Z'),
  requestId: 'r-1',
  resources: ['https://rp.example.org/cb'],
};

function refusal(fields: unknown) {
  try {
    createSiwbMessage(fields as CreateSiwbMessageParameters);
  } catch (error) {
    expect(error).toBeInstanceOf(SiwbError);
    return { type: (error as SiwbError).type, field: (error as SiwbError).field };
  }
  throw new Error('expected a refusal');
}

describe('createSiwbMessage', () => {
  it('writes the exact text (the README shows it), Dates as ISO 8601 UTC, version 1 by default', () => {
    expect(createSiwbMessage(FIELDS)).toBe(
      [
        'login.example.com wants you to sign in with your Bitcoin account:',
        'bc1ppv609nr0vr25u07u95waq5lucwfm6tde4nydujnu8npg4q75mr5sxq8lt3',
        '',
        'Sign in to Example.',
        '',
        'URI: https://login.example.com/interaction/abc',
        'Version: 1',
        'Chain ID: 000000000019d6689c085ae165831e93',
        'Nonce: abcdef0123456789',
        'Issued At: 2025-01-01T00:00:00.000Z',
        'Expiration Time: 2025-01-01T00:10:00.000Z',
        'Request ID: r-1',
        'Resources:',
        '- https://rp.example.org/cb',
      ].join('\n'),
    );
  });

  it('without a statement, one empty line before the fields; what it writes parses back to the fields', () => {
    const { statement: _, ...rest } = FIELDS;
    const text = createSiwbMessage(rest);
    expect(text.split('\n').slice(1, 4)).toEqual([FIELDS.address, '', 'URI: https://login.example.com/interaction/abc']);
    expect(parseSiwbMessage(text)).toMatchObject({ address: FIELDS.address, issuedAt: '2025-01-01T00:00:00.000Z' });
    expect(parseSiwbMessage(text).statement).toBeUndefined();
  });

  // What Bitcoin puts in the namespace slot; the shared grammar's refusals are tested in @signet/siwe's caip122.test.ts.
  it('refuses what would not parse back to the same fields, each with its type', () => {
    expect(refusal({ ...FIELDS, address: FIELDS.address.toUpperCase() })).toEqual({ type: 'INVALID_ADDRESS', field: 'address' });
    expect(refusal({ ...FIELDS, chainId: '000000000933ea01ad0ee984209779ba' })).toEqual({
      type: 'NETWORK_MISMATCH',
      field: 'address',
    });
    expect(refusal({ ...FIELDS, chainId: 'mainnet' })).toEqual({ type: 'INVALID_CHAIN_ID', field: 'chainId' });
    expect(refusal({ ...FIELDS, nonce: undefined })).toEqual({ type: 'INVALID_NONCE', field: 'nonce' });
    expect(refusal({ ...FIELDS, uri: undefined })).toEqual({ type: 'INVALID_URI', field: 'uri' });
    expect(refusal({ ...FIELDS, domain: 'https://login.example.com' })).toEqual({ type: 'INVALID_DOMAIN', field: 'domain' });
    expect(refusal(null)).toEqual({ type: 'UNABLE_TO_PARSE', field: 'message' });
  });
});
