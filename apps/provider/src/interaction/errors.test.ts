import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTERACTION_ERRORS, statusOf } from './errors.ts';

describe('interaction error codes', () => {
  const readme = readFileSync(join(import.meta.dirname, '..', '..', '..', '..', 'README.md'), 'utf8');

  it('every code is documented in README with its status', () => {
    for (const [code, status] of Object.entries(INTERACTION_ERRORS)) {
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
});
