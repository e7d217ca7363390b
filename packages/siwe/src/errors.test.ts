import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSiweError, SIWE_ERROR_TYPES, SiweError } from './errors.ts';

describe('error types', () => {
  it('the package README documents exactly the types of the union, in the same order', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');
    const section = readme.split('<!-- siwe-error-types -->')[1]?.split('<!-- /siwe-error-types -->')[0];
    expect(section, 'README needs the <!-- siwe-error-types --> section').toBeDefined();
    const documented = [...(section as string).matchAll(/^\| `([A-Z_0-9]+)` \|/gm)].map((m) => m[1]);
    expect(documented).toEqual([...SIWE_ERROR_TYPES]);
  });

  it('lists each type once', () => {
    expect(new Set(SIWE_ERROR_TYPES).size).toBe(SIWE_ERROR_TYPES.length);
  });

  it('carries type, field, cause and structured details', () => {
    const cause = new Error('boom');
    const error = new SiweError('NONCE_MISMATCH', 'nope', { field: 'nonce', line: 9, expected: 'a', received: 'b', cause });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      name: 'SiweError',
      type: 'NONCE_MISMATCH',
      field: 'nonce',
      line: 9,
      expected: 'a',
      received: 'b',
    });
    expect(error.cause).toBe(cause);
    expect(isSiweError(error)).toBe(true);
    expect(isSiweError(error, 'NONCE_MISMATCH')).toBe(true);
    expect(isSiweError(error, 'EXPIRED_MESSAGE')).toBe(false);
    expect(isSiweError(new Error('x'))).toBe(false);
  });
});
