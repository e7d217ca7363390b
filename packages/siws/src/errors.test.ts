import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SIWE_ERROR_TYPES, SignInError, SiweError } from '@signet/siwe';
import { describe, expect, it } from 'vitest';
import { isSiwsError, SIWS_ERROR_TYPES, SiwsError, siwsErrorStatus } from './errors.ts';

describe('error types', () => {
  it('the package README documents exactly the types of the union, in the same order', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');
    const section = readme.split('<!-- siws-error-types -->')[1]?.split('<!-- /siws-error-types -->')[0];
    expect(section, 'README needs the <!-- siws-error-types --> section').toBeDefined();
    const documented = [...(section as string).matchAll(/^\| `([A-Z_0-9]+)` \|/gm)].map((m) => m[1]);
    expect(documented).toEqual([...SIWS_ERROR_TYPES]);
  });

  it('lists each type once, and only two are not also Sign-In with Ethereum types', () => {
    expect(new Set(SIWS_ERROR_TYPES).size).toBe(SIWS_ERROR_TYPES.length);
    expect(SIWS_ERROR_TYPES.filter((type) => !(SIWE_ERROR_TYPES as readonly string[]).includes(type))).toEqual([
      'WRONG_NAMESPACE',
      'MISSING_FIELD',
    ]);
  });

  it('has the shape of SiweError, and both are SignInErrors (one catch for a verifier of both kinds)', () => {
    const cause = new Error('boom');
    const error = new SiwsError('NONCE_MISMATCH', 'nope', { field: 'nonce', line: 9, expected: 'a', received: 'b', cause });
    expect(error).toMatchObject({
      name: 'SiwsError',
      type: 'NONCE_MISMATCH',
      field: 'nonce',
      line: 9,
      expected: 'a',
      received: 'b',
    });
    expect(error.cause).toBe(cause);
    expect(error).toBeInstanceOf(SignInError);
    expect(new SiweError('NONCE_MISMATCH', 'nope')).toBeInstanceOf(SignInError);
    expect(error).not.toBeInstanceOf(SiweError);
    expect(isSiwsError(error, 'NONCE_MISMATCH')).toBe(true);
    expect(isSiwsError(error, 'EXPIRED_MESSAGE')).toBe(false);
    expect(isSiwsError(new SiweError('NONCE_MISMATCH', 'nope'))).toBe(false);
  });

  it('maps a wrong signature to 401 and everything else to 400', () => {
    expect(SIWS_ERROR_TYPES.filter((type) => siwsErrorStatus(type) === 401)).toEqual(['INVALID_SIGNATURE']);
    expect(SIWS_ERROR_TYPES.filter((type) => siwsErrorStatus(type) !== 401).every((type) => siwsErrorStatus(type) === 400)).toBe(
      true,
    );
  });
});
