/**
 * A start that fails on a setting says which one and why, and never prints a secret: of a
 * URL-valued setting only its scheme and host appear, however the URL is malformed (a password
 * holding `/`, a `sentinel_password` parameter, an API key in an RPC node's path).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { loadConfig, SettingsError } from '@signet/provider';
import { describe, expect, it } from 'vitest';

const SECRET = 'Hunter2-s3cr3t';

function failure(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return (error as Error).message;
  }
  throw new Error(`loadConfig accepted ${Object.keys(env).join(', ')}`);
}

describe('a failed start never prints a secret of a URL-valued setting', () => {
  it.each([
    ['STORAGE_URL', `redis+sentinel://app:pa/${SECRET}@s1:26379,s2:26379/signet`, /^STORAGE_URL: /],
    ['STORAGE_URL', `redis+cluster://app:${SECRET}/x@n1:7000`, /^STORAGE_URL: /],
    ['STORAGE_URL', `redis+sentinel://s1:26379/signet?sentinel_password=${SECRET}&db=2`, /^STORAGE_URL: .*not db/],
    ['STORAGE_URL', `mysql://app:${SECRET}@db.internal:3306/signet`, /^STORAGE_URL: must be sqlite:/],
    ['STORAGE_URL', `redis://app:${SECRET}@[bad`, /^STORAGE_URL: /],
    ['RPC_URLS', `10=https://opt.example/v2/${SECRET},137`, /^RPC_URLS: entry "137"/],
    ['RPC_URLS', `ten=https://rpc.example/v2/${SECRET}`, /^RPC_URLS: entry "ten=https:\/\/rpc\.example"/],
    [
      'ENS_RPC_URL',
      `ftp://ens.example/key/${SECRET}`,
      /^ENS_RPC_URL: must be an absolute http\(s\) URL \(got "ftp:\/\/ens\.example"\)/,
    ],
  ])('%s = %s', (name, value, expected) => {
    const message = failure({ [name]: value });
    expect(message).toMatch(expected);
    expect(message).not.toContain(SECRET);
    expect(message).not.toContain('pa/');
  });

  it('the real process: `signet provider` exits 78 naming STORAGE_URL, its output free of the password', () => {
    const bin = join(import.meta.dirname, '..', 'bin', 'signet.js');
    const run = spawnSync(process.execPath, [bin, 'provider'], {
      env: { PATH: process.env.PATH ?? '', STORAGE_URL: `redis+sentinel://app:pa/${SECRET}@s1:26379/signet` },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(78);
    expect(run.stderr).toMatch(/STORAGE_URL/);
    expect(`${run.stdout}${run.stderr}`).not.toContain(SECRET);
  });
});
