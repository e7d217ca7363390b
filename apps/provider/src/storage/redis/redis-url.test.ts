import { SettingsError } from '@signet/settings';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { parseRedisUrl } from './redis-url.ts';

describe('STORAGE_URL for Redis', () => {
  it('one server: redis:// and rediss:// as ioredis reads them', () => {
    expect(parseRedisUrl('redis://u:p@127.0.0.1:6380/2')).toEqual({ shape: 'single', url: 'redis://u:p@127.0.0.1:6380/2' });
    expect(parseRedisUrl('rediss://cache.example:6380')).toEqual({ shape: 'single', url: 'rediss://cache.example:6380' });
  });

  it('a Sentinel group: sentinels, primary name, credentials of the servers, sentinel credentials as parameters', () => {
    expect(parseRedisUrl('redis+sentinel://10.0.0.1:26379,10.0.0.2,[::1]:26380/signet')).toEqual({
      shape: 'sentinel',
      tls: false,
      sentinels: [
        { host: '10.0.0.1', port: 26379 },
        { host: '10.0.0.2', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      name: 'signet',
    });
    expect(
      parseRedisUrl('rediss+sentinel://app:s%40cret:x@s1.example:26379/my%20primary?sentinel_username=sen&sentinel_password=pw'),
    ).toEqual({
      shape: 'sentinel',
      tls: true,
      sentinels: [{ host: 's1.example', port: 26379 }],
      name: 'my primary',
      username: 'app',
      password: 's@cret:x',
      sentinelUsername: 'sen',
      sentinelPassword: 'pw',
    });
    expect(parseRedisUrl('redis+sentinel://:only-password@s1:26379/p')).toMatchObject({ password: 'only-password' });
  });

  it('a Cluster: its seed nodes, TLS and credentials', () => {
    expect(parseRedisUrl('rediss+cluster://default:pw@n1.example:7000,n2.example:7001')).toEqual({
      shape: 'cluster',
      tls: true,
      nodes: [
        { host: 'n1.example', port: 7000 },
        { host: 'n2.example', port: 7001 },
      ],
      username: 'default',
      password: 'pw',
    });
    expect(parseRedisUrl('redis+cluster://n1/')).toMatchObject({ nodes: [{ host: 'n1', port: 6379 }] });
  });

  it.each([
    ['redis+sentinel://s1:26379', /primary name/],
    ['redis+sentinel://s1:26379/', /primary name/],
    ['redis+sentinel://s1:26379/a/b', /primary name/],
    ['redis+sentinel://s1:26379/p?db=2', /not db/],
    ['redis+sentinel:///p', /host:port/],
    ['redis+sentinel://s1,,s2/p', /host:port/],
    ['redis+cluster://n1:99999', /bad host:port/],
    ['redis+cluster://n1:7000/0', /no path/],
    ['redis+cluster://n1:7000?x=1', /no query/],
    ['redis+replica://n1', /must be redis/],
  ])('refuses %s', (url, message) => {
    expect(() => parseRedisUrl(url)).toThrow(message);
  });

  it('a bad URL stops the start naming STORAGE_URL, never echoing the password', () => {
    let error: unknown;
    try {
      loadConfig({ STORAGE_URL: 'redis+sentinel://app:hunter2hunter2@s1:26379' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as Error).message).toMatch(/^STORAGE_URL: .*primary name/);
    expect((error as Error).message).not.toContain('hunter2');
    expect(loadConfig({ STORAGE_URL: 'redis+cluster://127.0.0.1:7000' }).storage).toMatchObject({
      kind: 'redis',
      redis: { shape: 'cluster' },
    });
  });
});
