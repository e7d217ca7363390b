import { describe, expect, it } from 'vitest';
import { isSpecialUseAddress } from './public-fetch.ts';

describe('isSpecialUseAddress: one list for every outbound fetch (a superset of oidc-provider`s)', () => {
  it.each([
    // The review's gaps
    ['::7f00:1', true], // ::/96, IPv4-compatible
    ['::ffff:0:7f00:1', true], // ::ffff:0:0:0/96, IPv4-translated
    ['64:ff9b:1::7f00:1', true], // 64:ff9b:1::/48, local-use NAT64
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', true], // 2001::/32 Teredo
    ['fec0::1', true], // site-local
    ['100::1', true], // discard-only
    ['3fff::1', true], // documentation
    ['192.88.99.1', true], // 6to4 relay anycast
    // oidc-provider's entries
    ['192.31.196.1', true],
    ['192.52.193.1', true],
    ['192.175.48.1', true],
    ['2620:4f:8000::1', true],
    ['5f00::1', true],
    ['2001:2::1', true],
    // and the usual ones
    ['0.0.0.0', true],
    ['255.255.255.255', true],
    ['224.0.0.1', true],
    ['100.64.0.1', true],
    ['ff02::1', true],
    ['fe80::1', true],
    ['2001:db8::1', true],
    ['1.1.1.1', false],
    ['2a00:1450:4001::1', false],
    ['2001:4860:4860::8888', false],
  ])('%s → %s', (address, special) => {
    expect(isSpecialUseAddress(address)).toBe(special);
  });
});

describe('publicUrlProblem', () => {
  it('refuses non-https, credentials, special-use literals and names that resolve to them (real DNS: localhost)', async () => {
    const { publicUrlProblem } = await import('./public-fetch.ts');
    expect(await publicUrlProblem('http://example.com/a.png')).toBe('not an https URL');
    expect(await publicUrlProblem('https://user:pw@example.com/a.png')).toBe('has credentials');
    expect(await publicUrlProblem('https://127.0.0.1/a.png')).toMatch(/special-use/);
    expect(await publicUrlProblem('https://[::ffff:169.254.169.254]/latest')).toMatch(/special-use/);
    expect(await publicUrlProblem('https://localhost:8080/a.png')).toMatch(/resolves to a private/);
    expect(await publicUrlProblem('ipfs://bafy/a.png')).toBe('not an https URL');
    expect(await publicUrlProblem('data:image/png;base64,AAAA')).toBe('not an https URL');
    expect(await publicUrlProblem('https://1.1.1.1/a.png')).toBeUndefined();
    expect(await publicUrlProblem('http://127.0.0.1/a.png', { allowPrivate: true })).toBeUndefined();
  });
});
