import { describe, expect, it } from 'vitest';
import { clientAddress, createMemoryCounterStore, createRateLimiter } from './index.ts';

describe('createRateLimiter', () => {
  it('allows `limit` hits per window and key, then refuses until the next window', async () => {
    let now = Date.parse('2025-01-01T00:00:00Z');
    const limiter = createRateLimiter({ limit: 3, windowSeconds: 60, now: () => now });
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await limiter('1.2.3.4'));
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, false]);
    expect(results.map((r) => r.remaining)).toEqual([2, 1, 0, 0]);
    expect(results[3]?.retryAfter).toBe(60);
    expect((await limiter('5.6.7.8')).allowed).toBe(true);
    now += 60_000;
    expect((await limiter('1.2.3.4')).allowed).toBe(true);
  });

  it('sweeps expired counters', async () => {
    let now = 0;
    const store = createMemoryCounterStore(() => now);
    for (let i = 0; i < 50; i++) await store.increment(`k${i}`, 10);
    now += 11_000;
    await store.increment('fresh', 10);
    expect(store.size()).toBe(1);
  });

  it('refuses a nonsensical configuration at creation', () => {
    expect(() => createRateLimiter({ limit: 0, windowSeconds: 1 })).toThrow(RangeError);
    expect(() => createRateLimiter({ limit: 1, windowSeconds: 0 })).toThrow(RangeError);
  });
});

describe('clientAddress', () => {
  it('ignores X-Forwarded-For unless the proxy is trusted', () => {
    expect(clientAddress('10.0.0.1', '203.0.113.9, 198.51.100.4', false)).toBe('10.0.0.1');
    // The proxy appended the real client last; the first entry is whatever the client sent.
    expect(clientAddress('10.0.0.1', 'forged-by-client, 198.51.100.4', true)).toBe('198.51.100.4');
    expect(clientAddress('10.0.0.1', null, true)).toBe('10.0.0.1');
  });
});

describe('rateLimitKey', () => {
  it('keys IPv4 by address, IPv4-mapped IPv6 as IPv4, and IPv6 by its /64', async () => {
    const { rateLimitKey } = await import('./index.ts');
    expect(rateLimitKey('203.0.113.7')).toBe('203.0.113.7');
    expect(rateLimitKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(rateLimitKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(rateLimitKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(rateLimitKey('2001:0DB8:0001:0002:ffff::9')).toBe('2001:db8:1:2::/64');
    expect(rateLimitKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(rateLimitKey('::1')).toBe('0:0:0:0::/64');
    expect(rateLimitKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(rateLimitKey('unknown')).toBe('unknown');
  });

  it('one /64 shares one budget: an IPv6 client cannot rotate its interface id to escape it', async () => {
    const { rateLimitKey } = await import('./index.ts');
    const limiter = createRateLimiter({ limit: 2, windowSeconds: 60 });
    const hits = [];
    for (const suffix of ['1', '2', 'abcd', 'ffff:1'])
      hits.push((await limiter(rateLimitKey(`2001:db8:7:7::${suffix}`))).allowed);
    expect(hits).toEqual([true, true, false, false]);
    expect((await limiter(rateLimitKey('2001:db8:7:8::1'))).allowed).toBe(true);
  });
});
