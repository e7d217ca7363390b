import { createSiweMessage, SiweError } from '@signet/siwe';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { createEnhancedVerifier, ENHANCED_VERIFIER_DEFAULTS } from './enhanced.ts';

const NOW = Date.parse('2025-03-01T10:00:00Z');
const account = privateKeyToAccount(generatePrivateKey());

async function signed(overrides: Partial<Parameters<typeof createSiweMessage>[0]> = {}) {
  const message = createSiweMessage({
    domain: 'localhost:3000',
    address: account.address,
    uri: 'http://localhost:3000',
    chainId: 1,
    nonce: 'abcdefgh1234',
    issuedAt: new Date(NOW - 60_000),
    ...overrides,
  });
  return { message, signature: await account.signMessage({ message }) };
}

async function typeOf(promise: Promise<unknown>) {
  try {
    await promise;
    return 'accepted';
  } catch (error) {
    expect(error).toBeInstanceOf(SiweError);
    return (error as SiweError).type;
  }
}

describe('createEnhancedVerifier', () => {
  it('has the spec defaults: 10 minutes, localhost:3000, chains 1 and 5, no statement required', () => {
    expect(ENHANCED_VERIFIER_DEFAULTS).toEqual({
      maxMessageAge: 600_000,
      allowedDomains: ['localhost:3000'],
      allowedChainIds: [1, 5],
      requireStatement: false,
    });
  });

  it('accepts a fresh message with the defaults', async () => {
    const verify = createEnhancedVerifier();
    await expect(verify({ ...(await signed()), time: NOW })).resolves.toMatchObject({ address: account.address, chainId: 1 });
    await expect(verify({ ...(await signed({ chainId: 5 })), time: NOW })).resolves.toMatchObject({ chainId: 5 });
  });

  it('runs each check of the spec', async () => {
    const verify = createEnhancedVerifier();
    expect(await typeOf(verify({ ...(await signed({ domain: 'evil.example' })), time: NOW }))).toBe('DOMAIN_MISMATCH');
    expect(await typeOf(verify({ ...(await signed({ chainId: 137 })), time: NOW }))).toBe('CHAIN_NOT_ALLOWED');
    expect(await typeOf(verify({ ...(await signed({ issuedAt: new Date(NOW - 11 * 60_000) })), time: NOW }))).toBe(
      'MESSAGE_TOO_OLD',
    );
    expect(await typeOf(verify({ ...(await signed({ issuedAt: new Date(NOW + 5 * 60_000) })), time: NOW }))).toBe(
      'ISSUED_IN_FUTURE',
    );
    expect(await typeOf(verify({ ...(await signed({ expirationTime: new Date(NOW - 1) })), time: NOW }))).toBe('EXPIRED_MESSAGE');
    expect(await typeOf(verify({ ...(await signed({ notBefore: new Date(NOW + 5 * 60_000) })), time: NOW }))).toBe(
      'NOT_YET_VALID_MESSAGE',
    );
    expect(await typeOf(verify({ ...(await signed()), nonce: 'otherNonce123', time: NOW }))).toBe('NONCE_MISMATCH');
    const { message } = await signed();
    expect(await typeOf(verify({ message, signature: `0x${'ab'.repeat(65)}`, time: NOW }))).toBe('INVALID_SIGNATURE');
  });

  it('applies statement, address and chain requirements when configured', async () => {
    const strict = createEnhancedVerifier({
      requireStatement: true,
      requiredAddress: account.address.toLowerCase(),
      requiredChainId: 5,
      allowedDomains: ['app.example'],
    });
    const ok = await signed({ domain: 'app.example', statement: 'Sign in', chainId: 5 });
    await expect(strict({ ...ok, time: NOW })).resolves.toMatchObject({ chainId: 5 });
    expect(await typeOf(strict({ ...(await signed({ domain: 'app.example', chainId: 5 })), time: NOW }))).toBe(
      'INVALID_STATEMENT',
    );
    expect(await typeOf(strict({ ...(await signed({ domain: 'app.example', statement: 'x', chainId: 1 })), time: NOW }))).toBe(
      'CHAIN_NOT_ALLOWED',
    );
    const other = createEnhancedVerifier({ requiredAddress: '0x0000000000000000000000000000000000000001' });
    expect(await typeOf(other({ ...(await signed()), time: NOW }))).toBe('ADDRESS_MISMATCH');
  });

  it('checks its configuration once, at creation', () => {
    expect(() => createEnhancedVerifier({ allowedDomains: [] })).toThrow(/allowedDomains/);
    expect(() => createEnhancedVerifier({ allowedChainIds: [0] })).toThrow(/allowedChainIds/);
    expect(() => createEnhancedVerifier({ maxMessageAge: -1 })).toThrow(/maxMessageAge/);
  });
});
