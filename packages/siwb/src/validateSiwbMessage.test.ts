import { describe, expect, it } from 'vitest';
import type { SiwbErrorType, SiwbField } from './errors.ts';
import type { SiwbMessage } from './types.ts';
import { type SiwbExpectations, validateSiwbFields, validateSiwbMessage, validateSiwbTimes } from './validateSiwbMessage.ts';

const NOW = Date.parse('2025-01-01T00:05:00Z');
const MESSAGE: SiwbMessage = {
  domain: 'login.example.com',
  address: 'bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l',
  statement: 'Sign in.',
  uri: 'https://login.example.com/interaction/abc',
  version: '1',
  chainId: '000000000019d6689c085ae165831e93',
  nonce: 'abcdef0123456789',
  issuedAt: '2025-01-01T00:00:00Z',
  expirationTime: '2025-01-01T00:10:00Z',
  resources: ['https://rp.example.org/cb'],
};
const EXPECT: SiwbExpectations = {
  domain: 'login.example.com',
  origin: 'https://login.example.com',
  nonce: 'abcdef0123456789',
  networks: ['mainnet', 'signet'],
  resource: 'https://rp.example.org/cb',
  address: 'bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l',
  time: NOW,
  notIssuedBefore: Date.parse('2024-12-31T23:59:30Z'),
};

function failure(run: () => unknown): { type: SiwbErrorType; field: SiwbField | undefined } {
  try {
    run();
  } catch (error) {
    const { type, field } = error as { type: SiwbErrorType; field: SiwbField };
    return { type, field };
  }
  throw new Error('expected a failure');
}

describe('validateSiwbMessage', () => {
  it('accepts a message that meets every expectation; domains in any case; bech32 addresses in any case', () => {
    expect(validateSiwbMessage(MESSAGE, EXPECT)).toBe(MESSAGE);
    const upper = { ...MESSAGE, domain: 'LOGIN.example.com' };
    expect(validateSiwbMessage(upper, EXPECT)).toBe(upper);
    expect(validateSiwbMessage(MESSAGE, { ...EXPECT, address: MESSAGE.address.toUpperCase() })).toBe(MESSAGE);
    expect(validateSiwbMessage(MESSAGE, { time: NOW })).toBe(MESSAGE);
  });

  it('compares base58 addresses exactly (base58 is case-sensitive)', () => {
    const p2pkh = { ...MESSAGE, address: '14vV3aCHBeStb5bkenkNHbe2YAFinYdXgc' };
    expect(validateSiwbFields(p2pkh, { address: '14vV3aCHBeStb5bkenkNHbe2YAFinYdXgc' })).toBe(p2pkh);
    expect(failure(() => validateSiwbFields(p2pkh, { address: '14VV3aCHBeStb5bkenkNHbe2YAFinYdXgc' }))).toEqual({
      type: 'ADDRESS_MISMATCH',
      field: 'address',
    });
  });

  const cases: Record<string, [SiwbMessage, SiwbExpectations, SiwbErrorType, SiwbField]> = {
    'another domain': [{ ...MESSAGE, domain: 'evil.example' }, EXPECT, 'DOMAIN_MISMATCH', 'domain'],
    'another origin': [{ ...MESSAGE, uri: 'https://evil.example/x' }, EXPECT, 'URI_MISMATCH', 'uri'],
    'another nonce': [{ ...MESSAGE, nonce: 'zzzzzzzzzzzz' }, EXPECT, 'NONCE_MISMATCH', 'nonce'],
    'a network not allowed': [
      { ...MESSAGE, chainId: '00000000da84f2bafbbc53dee25a72ae' },
      EXPECT,
      'CHAIN_NOT_ALLOWED',
      'chainId',
    ],
    'no network allowed': [MESSAGE, { networks: [] }, 'CHAIN_NOT_ALLOWED', 'chainId'],
    expired: [MESSAGE, { ...EXPECT, time: Date.parse('2025-01-01T00:10:00Z') }, 'EXPIRED_MESSAGE', 'expirationTime'],
    'issued in the future': [{ ...MESSAGE, issuedAt: '2025-01-01T00:07:00Z' }, EXPECT, 'ISSUED_IN_FUTURE', 'issuedAt'],
    'issued before the sign-in began': [{ ...MESSAGE, issuedAt: '2024-12-31T23:58:00Z' }, EXPECT, 'MESSAGE_TOO_OLD', 'issuedAt'],
    'not yet valid': [{ ...MESSAGE, notBefore: '2025-01-01T00:07:00Z' }, EXPECT, 'NOT_YET_VALID_MESSAGE', 'notBefore'],
    'no statement when one is required': [
      { ...MESSAGE, statement: undefined },
      { requireStatement: true, time: NOW },
      'INVALID_STATEMENT',
      'statement',
    ],
    'another address': [
      MESSAGE,
      { address: 'bc1ppv609nr0vr25u07u95waq5lucwfm6tde4nydujnu8npg4q75mr5sxq8lt3', time: NOW },
      'ADDRESS_MISMATCH',
      'address',
    ],
    'another first resource': [{ ...MESSAGE, resources: ['https://evil.example/cb'] }, EXPECT, 'RESOURCE_MISMATCH', 'resources'],
    'no resources': [{ ...MESSAGE, resources: undefined }, EXPECT, 'RESOURCE_MISMATCH', 'resources'],
  };
  for (const [name, [message, expect_, type, field]] of Object.entries(cases)) {
    it(`${name}: ${type}`, () => {
      expect(failure(() => validateSiwbMessage(message, expect_))).toEqual({ type, field });
    });
  }

  it('checks in order: domain before nonce before the times before the address', () => {
    const bad = { ...MESSAGE, domain: 'evil.example', nonce: 'zzzzzzzzzzzz', expirationTime: '2020-01-01T00:00:00Z' };
    expect(failure(() => validateSiwbMessage(bad, EXPECT)).type).toBe('DOMAIN_MISMATCH');
    expect(failure(() => validateSiwbMessage({ ...bad, domain: MESSAGE.domain }, EXPECT)).type).toBe('NONCE_MISMATCH');
    expect(
      failure(() => validateSiwbMessage({ ...MESSAGE, expirationTime: '2020-01-01T00:00:00Z' }, { ...EXPECT, address: 'x' }))
        .type,
    ).toBe('EXPIRED_MESSAGE');
  });

  it('splits into fields and times', () => {
    const expired = { ...MESSAGE, expirationTime: '2020-01-01T00:00:00Z' };
    expect(validateSiwbFields(expired, EXPECT)).toBe(expired);
    expect(failure(() => validateSiwbTimes(expired, { time: NOW })).type).toBe('EXPIRED_MESSAGE');
    expect(failure(() => validateSiwbFields({ ...MESSAGE, nonce: 'other12345' }, EXPECT)).type).toBe('NONCE_MISMATCH');
  });
});
