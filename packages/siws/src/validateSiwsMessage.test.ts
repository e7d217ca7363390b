import { describe, expect, it } from 'vitest';
import type { SiwsErrorType, SiwsField } from './errors.ts';
import type { SiwsMessage } from './types.ts';
import { type SiwsExpectations, validateSiwsFields, validateSiwsMessage, validateSiwsTimes } from './validateSiwsMessage.ts';

const NOW = Date.parse('2025-01-01T00:05:00Z');
const MESSAGE: SiwsMessage = {
  domain: 'login.example.com',
  address: 'FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z',
  statement: 'Sign in.',
  uri: 'https://login.example.com/interaction/abc',
  version: '1',
  chainId: 'mainnet',
  nonce: 'abcdef0123456789',
  issuedAt: '2025-01-01T00:00:00Z',
  expirationTime: '2025-01-01T00:10:00Z',
  resources: ['https://rp.example.org/cb'],
};
const EXPECT: SiwsExpectations = {
  domain: 'login.example.com',
  origin: 'https://login.example.com',
  nonce: 'abcdef0123456789',
  networks: ['mainnet', 'devnet'],
  resource: 'https://rp.example.org/cb',
  time: NOW,
  notIssuedBefore: Date.parse('2024-12-31T23:59:30Z'),
};

const without = (field: keyof SiwsMessage): SiwsMessage => {
  const copy = { ...MESSAGE };
  delete copy[field];
  return copy;
};

describe('validateSiwsMessage', () => {
  it('accepts a message that meets every expectation, and domains in any case', () => {
    expect(validateSiwsMessage(MESSAGE, EXPECT)).toBe(MESSAGE);
    expect(validateSiwsMessage({ ...MESSAGE, domain: 'LOGIN.example.com' }, EXPECT)).toBeTruthy();
    expect(validateSiwsMessage({ ...MESSAGE, chainId: 'solana:devnet' }, EXPECT)).toBeTruthy();
  });

  it('checks nothing it is not asked to: a minimal message passes no expectations', () => {
    expect(validateSiwsMessage({ domain: 'x.example', address: MESSAGE.address }, { time: NOW })).toBeTruthy();
  });

  const refused: Record<string, [SiwsMessage, SiwsExpectations, SiwsErrorType, SiwsField]> = {
    'another domain': [{ ...MESSAGE, domain: 'evil.example' }, EXPECT, 'DOMAIN_MISMATCH', 'domain'],
    'a domain outside the allow-list': [MESSAGE, { domain: ['a.example', 'b.example'] }, 'DOMAIN_MISMATCH', 'domain'],
    'a URI on another origin': [{ ...MESSAGE, uri: 'https://evil.example/x' }, EXPECT, 'URI_MISMATCH', 'uri'],
    'a URI other than the exact one': [MESSAGE, { uri: 'https://login.example.com/' }, 'URI_MISMATCH', 'uri'],
    'no URI when an origin is expected': [without('uri'), EXPECT, 'MISSING_FIELD', 'uri'],
    'another nonce': [{ ...MESSAGE, nonce: 'zzzzzzzzzzzz' }, EXPECT, 'NONCE_MISMATCH', 'nonce'],
    'no nonce': [without('nonce'), EXPECT, 'MISSING_FIELD', 'nonce'],
    'a network outside the allow-list': [{ ...MESSAGE, chainId: 'testnet' }, EXPECT, 'CHAIN_NOT_ALLOWED', 'chainId'],
    localnet: [{ ...MESSAGE, chainId: 'localnet' }, EXPECT, 'CHAIN_NOT_ALLOWED', 'chainId'],
    'any network when none is allowed': [MESSAGE, { networks: [] }, 'CHAIN_NOT_ALLOWED', 'chainId'],
    'no Chain ID': [without('chainId'), EXPECT, 'MISSING_FIELD', 'chainId'],
    'issued in the future': [{ ...MESSAGE, issuedAt: '2025-01-01T00:06:01Z' }, EXPECT, 'ISSUED_IN_FUTURE', 'issuedAt'],
    'issued before the sign-in began': [{ ...MESSAGE, issuedAt: '2024-12-31T23:58:00Z' }, EXPECT, 'MESSAGE_TOO_OLD', 'issuedAt'],
    'older than maxAge': [MESSAGE, { time: NOW, maxAge: 60_000 }, 'MESSAGE_TOO_OLD', 'issuedAt'],
    'no Issued At when the age is bounded': [without('issuedAt'), EXPECT, 'MISSING_FIELD', 'issuedAt'],
    expired: [{ ...MESSAGE, expirationTime: '2025-01-01T00:05:00Z' }, EXPECT, 'EXPIRED_MESSAGE', 'expirationTime'],
    'not yet valid': [{ ...MESSAGE, notBefore: '2025-01-01T00:06:01Z' }, EXPECT, 'NOT_YET_VALID_MESSAGE', 'notBefore'],
    'a time that is not RFC 3339 (a message built by hand)': [
      { ...MESSAGE, expirationTime: 'soon' },
      EXPECT,
      'INVALID_TIME_FORMAT',
      'expirationTime',
    ],
    'no statement when one is required': [
      without('statement'),
      { requireStatement: true, time: NOW },
      'MISSING_FIELD',
      'statement',
    ],
    'another address': [MESSAGE, { address: '11111111111111111111111111111111', time: NOW }, 'ADDRESS_MISMATCH', 'address'],
    'the address in other letter case (base58 is case-sensitive)': [
      MESSAGE,
      { address: MESSAGE.address.toLowerCase(), time: NOW },
      'ADDRESS_MISMATCH',
      'address',
    ],
    'another first resource': [{ ...MESSAGE, resources: ['https://evil.example/cb'] }, EXPECT, 'RESOURCE_MISMATCH', 'resources'],
    'the right resource second': [
      { ...MESSAGE, resources: ['https://evil.example/cb', 'https://rp.example.org/cb'] },
      EXPECT,
      'RESOURCE_MISMATCH',
      'resources',
    ],
    'an empty resource list': [{ ...MESSAGE, resources: [] }, EXPECT, 'RESOURCE_MISMATCH', 'resources'],
    'no resources': [without('resources'), EXPECT, 'MISSING_FIELD', 'resources'],
  };
  for (const [name, [message, expect_, type, field]] of Object.entries(refused)) {
    it(`refuses ${name}: ${type} on ${field}`, () => {
      expect(() => validateSiwsMessage(message, expect_)).toThrow(expect.objectContaining({ name: 'SiwsError', type, field }));
    });
  }

  it('allows the clock skew (60 s by default, or as given)', () => {
    const ahead = { ...MESSAGE, issuedAt: '2025-01-01T00:05:59Z', notBefore: '2025-01-01T00:05:59Z' };
    expect(validateSiwsMessage(ahead, { time: NOW })).toBeTruthy();
    expect(() => validateSiwsMessage(ahead, { time: NOW, clockSkew: 0 })).toThrow(
      expect.objectContaining({ type: 'ISSUED_IN_FUTURE' }),
    );
  });

  it('validateSiwsFields checks all but the times; validateSiwsTimes only the times', () => {
    const expired = { ...MESSAGE, expirationTime: '2025-01-01T00:00:01Z' };
    expect(validateSiwsFields(expired, EXPECT)).toBe(expired);
    expect(() => validateSiwsTimes(expired, EXPECT)).toThrow(expect.objectContaining({ type: 'EXPIRED_MESSAGE' }));
    expect(validateSiwsTimes({ ...MESSAGE, nonce: 'other0000' }, EXPECT)).toBeTruthy();
    expect(() => validateSiwsFields({ ...MESSAGE, nonce: 'other0000' }, EXPECT)).toThrow(
      expect.objectContaining({ type: 'NONCE_MISMATCH' }),
    );
  });
});
