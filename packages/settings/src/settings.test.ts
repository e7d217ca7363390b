import { describe, expect, it } from 'vitest';
import { bool, httpUrl, int, list, oneOf, readSettings, SettingsError, secret, textOr } from './index.ts';

const shape = {
  PORT: int(1, 65535, 3000),
  DEBUG: bool(),
  MODE: oneOf(['a', 'b'] as const, 'a'),
  SITE: httpUrl('http://localhost:3001'),
  SESSION_SECRET: secret(32),
  NAME: textOr('Example'),
  ITEMS: list(),
};

describe('readSettings', () => {
  it('applies defaults and converts values', () => {
    expect(readSettings(shape, { SESSION_SECRET: 'x'.repeat(32), DEBUG: 'yes', ITEMS: 'a, b,,c' })).toEqual({
      PORT: 3000,
      DEBUG: true,
      MODE: 'a',
      SITE: 'http://localhost:3001/',
      SESSION_SECRET: 'x'.repeat(32),
      NAME: 'Example',
      ITEMS: ['a', 'b', 'c'],
    });
  });

  it.each([
    [{ PORT: '0' }, /^PORT: must be a whole number from 1 to 65535 \(got "0"\)$/],
    [{ DEBUG: 'maybe' }, /^DEBUG: must be true or false/],
    [{ MODE: 'c' }, /^MODE: must be one of a, b/],
    [{ SITE: 'mailto:x@example.com' }, /^SITE: must be an absolute http\(s\) URL/],
    [{}, /^SESSION_SECRET: is required/],
  ])('names the variable for %j', (env, message) => {
    const full = { SESSION_SECRET: 'y'.repeat(40), ...env } as Record<string, string | undefined>;
    if (!('SESSION_SECRET' in env) && Object.keys(env).length === 0) delete full.SESSION_SECRET;
    expect(() => readSettings(shape, full)).toThrow(SettingsError);
    expect(() => readSettings(shape, full)).toThrow(message);
  });

  it('never echoes a secret in its error', () => {
    expect(() => readSettings(shape, { SESSION_SECRET: 'too-short-secret' })).toThrow(
      /^SESSION_SECRET: must be at least 32 characters$/,
    );
  });
});
