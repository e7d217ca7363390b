import { describe, expect, it } from 'vitest';
import { createChainRegistry, rpcUrlsFromSettings } from './chains.ts';

describe('rpcUrlsFromSettings', () => {
  it('reads ETH_RPC_URL as chain 1 and RPC_URLS as more chains', () => {
    expect(
      rpcUrlsFromSettings({
        ETH_RPC_URL: 'https://eth.example',
        RPC_URLS: '137=https://polygon.example, 10=http://127.0.0.1:8545',
      }),
    ).toEqual({ 1: 'https://eth.example', 137: 'https://polygon.example', 10: 'http://127.0.0.1:8545' });
  });

  it('is empty when nothing is set', () => {
    expect(rpcUrlsFromSettings({})).toEqual({});
    expect(rpcUrlsFromSettings({ ETH_RPC_URL: '  ', RPC_URLS: '' })).toEqual({});
  });

  it.each([
    [{ ETH_RPC_URL: 'not a url' }, /ETH_RPC_URL/],
    [{ ETH_RPC_URL: 'ftp://x.example' }, /ETH_RPC_URL/],
    [{ RPC_URLS: '137' }, /RPC_URLS entry "137"/],
    [{ RPC_URLS: 'polygon=https://p.example' }, /RPC_URLS entry "polygon=/],
    [{ RPC_URLS: '137=https://a.example,137=https://b.example' }, /chain 137 again/],
    [{ ETH_RPC_URL: 'https://a.example', RPC_URLS: '1=https://b.example' }, /chain 1 again/],
  ])('refuses %j, naming the variable', (settings, message) => {
    expect(() => rpcUrlsFromSettings(settings)).toThrow(message);
  });
});

describe('createChainRegistry', () => {
  it('has one client per configured chain, bound to that chain', () => {
    const registry = createChainRegistry({ 1: 'https://eth.example', 137: 'https://polygon.example' });
    expect([...registry.chainIds].sort()).toEqual([1, 137]);
    expect(registry.get(137)?.chain?.id).toBe(137);
    expect(registry.get(10)).toBeUndefined();
  });
});
