import { describe, expect, it } from 'vitest';
import { createSiweMessage } from './createSiweMessage.ts';
import { SiweError, type SiweErrorType } from './errors.ts';
import { parseSiweMessage } from './parseSiweMessage.ts';
import type { SiweMessage } from './types.ts';
import { type SiweExpectations, validateSiweFields, validateSiweMessage, validateSiweTimes } from './validateSiweMessage.ts';

const NOW = Date.parse('2025-06-01T12:00:00Z');
const minutes = (n: number) => n * 60_000;
const at = (offset: number) => new Date(NOW + offset).toISOString();

const base: SiweMessage = parseSiweMessage(
  createSiweMessage({
    domain: 'login.example.com',
    address: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
    statement: 'Sign in to Example',
    uri: 'https://login.example.com/interaction/abc',
    chainId: 1,
    nonce: 'abcdef0123456789',
    issuedAt: at(-minutes(1)),
    expirationTime: at(minutes(10)),
    notBefore: at(-minutes(2)),
    resources: ['https://rp.example.org/callback', 'https://other.example'],
  }),
);

const expectations: SiweExpectations = {
  domain: 'login.example.com',
  scheme: 'https',
  origin: 'https://login.example.com',
  nonce: 'abcdef0123456789',
  chainIds: [1, 10],
  address: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
  resource: 'https://rp.example.org/callback',
  requireStatement: true,
  time: NOW,
  maxAge: minutes(5),
  notIssuedBefore: NOW - minutes(3),
};

function failure(message: SiweMessage, expect_: SiweExpectations): SiweError {
  try {
    validateSiweMessage(message, expect_);
  } catch (error) {
    expect(error).toBeInstanceOf(SiweError);
    return error as SiweError;
  }
  throw new Error('expected validation to fail');
}

describe('validateSiweMessage', () => {
  it('accepts a message that meets every expectation', () => {
    expect(validateSiweMessage(base, expectations)).toBe(base);
  });

  it('accepts with no expectations except the clock', () => {
    expect(validateSiweMessage(base, { time: NOW })).toBe(base);
  });

  const cases: [string, Partial<SiweMessage>, SiweExpectations, SiweErrorType][] = [
    ['other domain', { domain: 'evil.example.com' }, {}, 'DOMAIN_MISMATCH'],
    ['other port', { domain: 'login.example.com:8443' }, {}, 'DOMAIN_MISMATCH'],
    ['domain not in allow-list', {}, { domain: ['a.example', 'b.example'] }, 'DOMAIN_MISMATCH'],
    ['other scheme', { scheme: 'http' }, {}, 'SCHEME_MISMATCH'],
    ['URI on another origin', { uri: 'https://evil.example.com/x' }, {}, 'URI_MISMATCH'],
    ['URI not the exact one', {}, { uri: 'https://login.example.com/other' }, 'URI_MISMATCH'],
    ['URN where an origin is expected', { uri: 'urn:x:y' }, {}, 'URI_MISMATCH'],
    ['other nonce', { nonce: 'zzzzzzzzzzzz' }, {}, 'NONCE_MISMATCH'],
    ['chain not allowed', { chainId: 137 }, {}, 'CHAIN_NOT_ALLOWED'],
    ['chain not the required one', {}, { chainId: 10 }, 'CHAIN_NOT_ALLOWED'],
    ['issued in the future', { issuedAt: at(minutes(2)) }, {}, 'ISSUED_IN_FUTURE'],
    ['older than maxAge', { issuedAt: at(-minutes(6)) }, { notIssuedBefore: undefined }, 'MESSAGE_TOO_OLD'],
    ['issued before the sign-in began', { issuedAt: at(-minutes(4.5)) }, {}, 'MESSAGE_TOO_OLD'],
    ['expired', { expirationTime: at(-1) }, {}, 'EXPIRED_MESSAGE'],
    ['expires exactly now', { expirationTime: at(0) }, {}, 'EXPIRED_MESSAGE'],
    ['not yet valid', { notBefore: at(minutes(2)) }, {}, 'NOT_YET_VALID_MESSAGE'],
    ['statement missing', { statement: undefined }, {}, 'INVALID_STATEMENT'],
    ['other address', { address: '0x0000000000000000000000000000000000000001' }, {}, 'ADDRESS_MISMATCH'],
    [
      'first resource not the redirect_uri',
      { resources: ['https://other.example', 'https://rp.example.org/callback'] },
      {},
      'RESOURCE_MISMATCH',
    ],
    ['no resources', { resources: undefined }, {}, 'RESOURCE_MISMATCH'],
  ];

  it.each(cases)('%s', (_name, change, extra, type) => {
    const message = { ...base, ...change } as SiweMessage;
    for (const key of Object.keys(change) as (keyof SiweMessage)[]) if (change[key] === undefined) delete message[key];
    expect(failure(message, { ...expectations, ...extra }).type).toBe(type);
  });

  it('compares domains case-insensitively', () => {
    expect(validateSiweMessage({ ...base, domain: 'LOGIN.Example.com' }, expectations).domain).toBe('LOGIN.Example.com');
  });

  it('tolerates clock skew on issuedAt and notBefore, within the configured window only', () => {
    const skewed = { ...base, issuedAt: at(30_000), notBefore: at(30_000) };
    expect(validateSiweMessage(skewed, { time: NOW })).toBe(skewed);
    expect(failure(skewed, { time: NOW, clockSkew: 10_000 }).type).toBe('ISSUED_IN_FUTURE');
    expect(failure({ ...base, notBefore: at(30_000) }, { time: NOW, clockSkew: 10_000 }).type).toBe('NOT_YET_VALID_MESSAGE');
  });

  it('reads offsets in timestamps (same instant, other zone)', () => {
    const message = { ...base, expirationTime: '2025-06-01T13:59:00+02:00' }; // 11:59Z: expired
    expect(failure(message, { time: NOW }).type).toBe('EXPIRED_MESSAGE');
    expect(validateSiweMessage({ ...base, expirationTime: '2025-06-01T14:01:00+02:00' }, { time: NOW })).toBeTruthy();
  });

  it('names the field, and what was expected and received', () => {
    const error = failure({ ...base, chainId: 137 }, expectations);
    expect(error).toMatchObject({ field: 'chainId', expected: [1, 10], received: 137 });
    expect(error.message).toContain('137');
  });
});

describe('validateSiweFields / validateSiweTimes', () => {
  it('split validateSiweMessage into its non-time and time checks', () => {
    const expired = { ...base, expirationTime: at(-1) };
    expect(validateSiweFields(expired, { ...expectations })).toBe(expired);
    expect(() => validateSiweTimes(expired, { time: NOW })).toThrow(expect.objectContaining({ type: 'EXPIRED_MESSAGE' }));
    expect(() => validateSiweFields({ ...base, nonce: 'zzzzzzzzzzzz' }, expectations)).toThrow(
      expect.objectContaining({ type: 'NONCE_MISMATCH' }),
    );
    expect(validateSiweTimes({ ...base, nonce: 'zzzzzzzzzzzz' }, { time: NOW })).toBeTruthy();
  });
});
