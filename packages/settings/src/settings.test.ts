import { describe, expect, it } from 'vitest';
import {
  bool,
  httpUrl,
  int,
  list,
  listenHost,
  listOf,
  oneOf,
  readRpcUrls,
  readSettings,
  readSignatureVerifiers,
  redactUrls,
  SettingsError,
  secret,
  textOr,
} from './index.ts';

const shape = {
  PORT: int(1, 65535, 3000),
  DEBUG: bool(),
  MODE: oneOf(['a', 'b'] as const, 'a'),
  SITE: httpUrl('http://localhost:3001'),
  SESSION_SECRET: secret(32),
  NAME: textOr('Example'),
  ITEMS: list(),
  NETWORKS: listOf(['mainnet', 'devnet', 'testnet'] as const),
};

describe('readSettings', () => {
  it('applies defaults and converts values', () => {
    expect(
      readSettings(shape, { SESSION_SECRET: 'k9V2x7Qp0ZrT4mB8sL1wYc3N-session-01', DEBUG: 'yes', ITEMS: 'a, b,,c' }),
    ).toEqual({
      PORT: 3000,
      DEBUG: true,
      MODE: 'a',
      SITE: 'http://localhost:3001/',
      SESSION_SECRET: 'k9V2x7Qp0ZrT4mB8sL1wYc3N-session-01',
      NAME: 'Example',
      ITEMS: ['a', 'b', 'c'],
      NETWORKS: [],
    });
    expect(
      readSettings(shape, { SESSION_SECRET: 'k9V2x7Qp0ZrT4mB8sL1wYc3N-session-01', NETWORKS: ' devnet,mainnet, devnet ' })
        .NETWORKS,
    ).toEqual(['devnet', 'mainnet']);
  });

  it.each([
    [{ PORT: '0' }, /^PORT: must be a whole number from 1 to 65535 \(got "0"\)$/],
    [{ DEBUG: 'maybe' }, /^DEBUG: must be true or false/],
    [{ MODE: 'c' }, /^MODE: must be one of a, b/],
    [
      { NETWORKS: 'mainnet,localnet' },
      /^NETWORKS: must be a comma-separated list of mainnet, devnet, testnet \("localnet" is not one\)/,
    ],
    [{ SITE: 'mailto:x@example.com' }, /^SITE: must be an absolute http\(s\) URL/],
    [{}, /^SESSION_SECRET: is required/],
  ])('names the variable for %j', (env, message) => {
    const full = { SESSION_SECRET: 'k9V2x7Qp0ZrT4mB8sL1wYc3N-session-02', ...env } as Record<string, string | undefined>;
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

describe('readRpcUrls (ETH_RPC_URL and RPC_URLS)', () => {
  it('reads ETH_RPC_URL as chain 1 and RPC_URLS as more chains', () => {
    expect(
      readRpcUrls({
        ETH_RPC_URL: 'https://eth.example',
        RPC_URLS: '137=https://polygon.example, 10=http://127.0.0.1:8545',
      }),
    ).toEqual({ 1: 'https://eth.example', 137: 'https://polygon.example', 10: 'http://127.0.0.1:8545' });
  });

  it('is empty when nothing is set', () => {
    expect(readRpcUrls({})).toEqual({});
    expect(readRpcUrls({ ETH_RPC_URL: '  ', RPC_URLS: '' })).toEqual({});
  });

  it.each([
    [{ ETH_RPC_URL: 'not a url' }, /^ETH_RPC_URL: must be an http\(s\) URL/],
    [{ ETH_RPC_URL: 'ftp://x.example' }, /^ETH_RPC_URL:/],
    [{ RPC_URLS: '137' }, /^RPC_URLS: entry "137"/],
    [{ RPC_URLS: 'polygon=https://p.example' }, /^RPC_URLS: entry "polygon=/],
    [{ RPC_URLS: '137=https://a.example,137=https://b.example' }, /chain 137 again/],
    [{ ETH_RPC_URL: 'https://a.example', RPC_URLS: '1=https://b.example' }, /chain 1 again/],
  ])('refuses %j, naming the variable', (settings, message) => {
    expect(() => readRpcUrls(settings)).toThrow(message);
    expect(() => readRpcUrls(settings)).toThrow(SettingsError);
  });
});

describe('readSignatureVerifiers (SIGNATURE_VERIFIERS)', () => {
  const rpcUrls = { 324: 'https://era.example', 10: 'https://op.example' };
  const verifier = '0xfB688330379976DA81eB64Fe4BF50d7401763B9C';

  it('reads <chainId>=<address> entries for chains with an RPC node; empty when unset', () => {
    expect(readSignatureVerifiers({ SIGNATURE_VERIFIERS: `324=${verifier}, 10 = ${verifier.toLowerCase()}` }, rpcUrls)).toEqual({
      324: verifier,
      10: verifier.toLowerCase(),
    });
    expect(readSignatureVerifiers({}, rpcUrls)).toEqual({});
  });

  it.each([
    [`324`, /^SIGNATURE_VERIFIERS: entry "324" must look like <chainId>=<0x contract address>/],
    [`324=0x1234`, /^SIGNATURE_VERIFIERS: entry "324=0x1234"/],
    [`era=${verifier}`, /^SIGNATURE_VERIFIERS: entry "era=/],
    [`324=${verifier},324=${verifier}`, /^SIGNATURE_VERIFIERS: sets chain 324 again/],
    [`137=${verifier}`, /^SIGNATURE_VERIFIERS: chain 137 has no RPC node \(ETH_RPC_URL \/ RPC_URLS\)/],
  ])('refuses %s, naming the variable', (value, message) => {
    expect(() => readSignatureVerifiers({ SIGNATURE_VERIFIERS: value }, rpcUrls)).toThrow(message);
    expect(() => readSignatureVerifiers({ SIGNATURE_VERIFIERS: value }, rpcUrls)).toThrow(SettingsError);
  });
});

describe('listenHost (HOST)', () => {
  const read = (HOST?: string) => readSettings({ HOST: listenHost('127.0.0.1') }, { HOST }).HOST;
  it('defaults to its fallback and takes IP addresses and host names', () => {
    expect(read()).toBe('127.0.0.1');
    for (const host of ['0.0.0.0', '::', '::1', '10.0.0.5', 'localhost', 'app.internal']) expect(read(host)).toBe(host);
  });
  it('refuses anything else, naming HOST', () => {
    for (const host of ['a b', 'http://x', 'x/y', '-x']) expect(() => read(host)).toThrow(/^HOST: must be an IP address/);
  });
});

describe('secret', () => {
  it.each([
    'change-me-to-16-or-more-characters',
    'CHANGE_THIS_SECRET_VALUE_123456789',
    'replace-with-a-long-random-token',
    '<your-secret-here-of-32-characters>',
    'x'.repeat(40),
    'your-own-secret-0123456789abcdef0123',
  ])('refuses the template placeholder %s, naming the variable and not echoing it', (value) => {
    expect(() => readSettings(shape, { SESSION_SECRET: value })).toThrow(
      /^SESSION_SECRET: is still the example placeholder; set a random secret/,
    );
    expect(() => readSettings(shape, { SESSION_SECRET: value })).not.toThrow(value);
  });
});

describe('redactUrls', () => {
  it.each([
    ['redis://user:pass@cache.internal:6379/0', 'redis://cache.internal:6379'],
    ['redis+sentinel://u:p/w?x#y@s1:26379/signet', 'redis+sentinel://s1:26379'],
    ['https://rpc.example/v2/KEY?apikey=KEY', 'https://rpc.example'],
    ['postgres://app@[::1]:5432/db?sslmode=require', 'postgres://[::1]:5432'],
    ['10=https://a.example/k1,137=https://b.example/k2', '10=https://a.example,137=https://b.example'],
    ['rediss://:secret@', 'rediss://…'],
  ])('%s → %s', (text, expected) => {
    expect(redactUrls(text)).toBe(expected);
  });
});
