import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SIWE_ERROR_TYPES, SignInError, SiweError } from '@signet/siwe';
import { SIWS_ERROR_TYPES, SiwsError } from '@signet/siws';
import { describe, expect, it } from 'vitest';
import { isSiwbError, SIWB_ERROR_TYPES, SiwbError, siwbErrorStatus } from './errors.ts';

describe('error types', () => {
  it('the package README documents exactly the types of the union, in the same order', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');
    const section = readme.split('<!-- siwb-error-types -->')[1]?.split('<!-- /siwb-error-types -->')[0];
    expect(section, 'README needs the <!-- siwb-error-types --> section').toBeDefined();
    const documented = [...(section as string).matchAll(/^\| `([A-Z_0-9]+)` \|/gm)].map((m) => m[1]);
    expect(documented).toEqual([...SIWB_ERROR_TYPES]);
  });

  it('lists each type once, and adds to the Ethereum and Solana ones only what Bitcoin needs', () => {
    expect(new Set(SIWB_ERROR_TYPES).size).toBe(SIWB_ERROR_TYPES.length);
    const shared = new Set<string>([...SIWE_ERROR_TYPES, ...SIWS_ERROR_TYPES]);
    expect(SIWB_ERROR_TYPES.filter((type) => !shared.has(type))).toEqual([
      'UNSUPPORTED_ADDRESS_TYPE',
      'NETWORK_MISMATCH',
      'MALFORMED_SIGNATURE',
      'NON_CANONICAL_SIGNATURE',
      'UNSUPPORTED_SIGHASH',
      'SIGNATURE_TYPE_MISMATCH',
    ]);
  });

  it('has the shape of SiweError and SiwsError, and all are SignInErrors (one catch for a verifier of every kind)', () => {
    const cause = new Error('boom');
    const error = new SiwbError('NONCE_MISMATCH', 'nope', { field: 'nonce', line: 9, expected: 'a', received: 'b', cause });
    expect(error).toMatchObject({
      name: 'SiwbError',
      type: 'NONCE_MISMATCH',
      field: 'nonce',
      line: 9,
      expected: 'a',
      received: 'b',
    });
    expect(error.cause).toBe(cause);
    expect(error).toBeInstanceOf(SignInError);
    expect(error).not.toBeInstanceOf(SiweError);
    expect(error).not.toBeInstanceOf(SiwsError);
    expect(isSiwbError(error, 'NONCE_MISMATCH')).toBe(true);
    expect(isSiwbError(error, 'EXPIRED_MESSAGE')).toBe(false);
    expect(isSiwbError(new SiwsError('NONCE_MISMATCH', 'nope'))).toBe(false);
  });

  it('maps a wrong signature to 401 and everything else to 400', () => {
    expect(SIWB_ERROR_TYPES.filter((type) => siwbErrorStatus(type) === 401)).toEqual(['INVALID_SIGNATURE']);
    expect(SIWB_ERROR_TYPES.filter((type) => siwbErrorStatus(type) !== 401).every((type) => siwbErrorStatus(type) === 400)).toBe(
      true,
    );
  });
});
