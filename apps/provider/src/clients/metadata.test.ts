import { describe, expect, it } from 'vitest';
import { assertMetadataBounds, userinfoProblem } from './metadata.ts';

describe('userinfoProblem', () => {
  it.each([
    'https://app.uniswap.org@evil.example/cb',
    'https://user:pass@rp.example.com/cb',
    'https://@rp.example.com/cb',
    'https://:@rp.example.com/cb',
    'HTTPS://a@b.example',
  ])('refuses %s', (uri) => {
    expect(userinfoProblem(uri)).toMatch(/user name or password/);
  });

  it.each([
    'https://rp.example.com/cb',
    'https://rp.example.com/@team/cb',
    'https://rp.example.com/cb?email=a@b.example',
    'https://rp.example.com/cb#@x',
    'http://127.0.0.1:4999/callback',
  ])('accepts %s (an @ outside the authority is not a user part)', (uri) => {
    expect(userinfoProblem(uri)).toBeUndefined();
  });
});

/** The error_description of what `assertMetadataBounds` throws (an oidc-provider InvalidClientMetadata). */
function refusal(metadata: Record<string, unknown>): string | undefined {
  try {
    assertMetadataBounds(metadata);
    return undefined;
  } catch (error) {
    expect((error as { error?: string }).error).toBe('invalid_client_metadata');
    return (error as { error_description?: string }).error_description;
  }
}

describe('assertMetadataBounds', () => {
  it('names the field and its bound', () => {
    expect(refusal({ grant_types: Array(11).fill('authorization_code') })).toBe(
      'grant_types may list at most 10 entries (got 11)',
    );
    expect(refusal({ jwks: { keys: [{ n: 'x'.repeat(9000) }] } })).toMatch(/^jwks must be at most 8192 bytes/);
    expect(refusal({ contacts: [{ nested: true }] })).toBe('contacts must list strings');
    expect(refusal({ client_name: 'Example', redirect_uris: ['https://rp.example.com/cb'] })).toBeUndefined();
  });
});
