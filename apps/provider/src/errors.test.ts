import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SIWB_ERROR_TYPES, SiwbError, siwbErrorStatus } from '@signet/siwb';
import { SiwsError } from '@signet/siws';
import { describe, expect, it } from 'vitest';
import { ERROR_STATUS, HttpError, statusOf, toHttpError } from './errors.ts';
import { StorageUnavailableError } from './storage/index.ts';

describe("the provider's error codes", () => {
  // The interaction error table lives in docs/wallets.md (README's page for wallet and app developers).
  const readme = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'wallets.md'), 'utf8');

  it('every code is documented in README with its status', () => {
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      const row = readme.split('\n').find((line) => line.startsWith(`| ${status} |`) && line.includes(`\`${code}\``));
      expect(row, `README's interaction error table lists ${code} under ${status}`).toBeDefined();
    }
  });

  it('maps SIWE failures: INVALID_SIGNATURE 401, RPC_UNAVAILABLE 503, the rest 400', () => {
    expect(statusOf('INVALID_SIGNATURE')).toBe(401);
    expect(statusOf('RPC_UNAVAILABLE')).toBe(503);
    expect(statusOf('NONCE_MISMATCH')).toBe(400);
    expect(statusOf('INTERACTION_EXPIRED')).toBe(410);
  });

  it('maps Sign In With Solana failures the same way, and keeps their types', () => {
    expect(statusOf('WRONG_NAMESPACE')).toBe(400);
    expect(statusOf('MISSING_FIELD')).toBe(400);
    expect(statusOf('NAMESPACE_NOT_ALLOWED')).toBe(400);
    expect(statusOf('MESSAGE_MISMATCH')).toBe(400);
    expect(toHttpError(new SiwsError('INVALID_SIGNATURE', 'not made by the key'))).toMatchObject({
      code: 'INVALID_SIGNATURE',
      status: 401,
    });
    expect(toHttpError(new SiwsError('INVALID_ADDRESS', 'not 32 bytes'))).toMatchObject({ code: 'INVALID_ADDRESS', status: 400 });
  });

  it('maps Sign in with Bitcoin failures by the library’s status, keeps their types, and lists its own codes in the table', () => {
    for (const type of SIWB_ERROR_TYPES) expect(statusOf(type), type).toBe(siwbErrorStatus(type));
    for (const code of [
      'UNSUPPORTED_ADDRESS_TYPE',
      'NETWORK_MISMATCH',
      'MALFORMED_SIGNATURE',
      'NON_CANONICAL_SIGNATURE',
      'UNSUPPORTED_SIGHASH',
      'SIGNATURE_TYPE_MISMATCH',
    ] as const) {
      expect(ERROR_STATUS[code], code).toBe(siwbErrorStatus(code));
    }
    expect(toHttpError(new SiwbError('SIGNATURE_TYPE_MISMATCH', 'a Taproot signature for a bc1q address'))).toMatchObject({
      code: 'SIGNATURE_TYPE_MISMATCH',
      status: 400,
    });
    expect(toHttpError(new SiwbError('INVALID_SIGNATURE', 'not made by the key'))).toMatchObject({ status: 401 });
  });

  it('converts what is thrown: SIWE errors keep their type, storage failures (also as a cause) are 503, bugs are left alone', () => {
    expect(toHttpError(new StorageUnavailableError('down'))).toMatchObject({
      code: 'STORAGE_UNAVAILABLE',
      status: 503,
      retryAfter: 5,
    });
    expect(toHttpError(new Error('wrapped', { cause: new StorageUnavailableError('down') }))?.status).toBe(503);
    expect(toHttpError(new TypeError('a bug'))).toBeUndefined();
    expect(new HttpError('RATE_LIMITED', 'slow down').oauthError).toBe('rate_limited');
    expect(new HttpError('ACCESS_CONDITION_NOT_MET', 'no').oauthError).toBe('access_denied');
  });
});
