import { describe, expect, it } from 'vitest';
import { BoundedCache } from './bounded-cache.ts';
import { asSignetReadsIt, isDocumentClientId } from './document.ts';
import { freshnessSeconds, MAX_SECONDS, MIN_SECONDS } from './freshness.ts';

const read = (document: unknown) => JSON.parse(asSignetReadsIt(Buffer.from(JSON.stringify(document))).toString());

describe('a metadata document as Signet reads it', () => {
  it('drops a jwt-bearer grant (Claude lists one) and keeps the others', () => {
    const document = read({
      client_id: 'https://claude.ai/oauth/mcp-oauth-client-metadata',
      grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:jwt-bearer'],
      token_endpoint_auth_method: 'none',
    });
    expect(document.grant_types).toEqual(['authorization_code', 'refresh_token']);
  });

  it('drops shared-secret methods from the choices it offers, keeps its own method for oidc-provider to judge', () => {
    expect(read({ token_endpoint_auth_methods_supported: ['client_secret_basic', 'none', 'private_key_jwt'] })).toEqual({
      token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
    });
    expect(read({ token_endpoint_auth_method: 'client_secret_post' }).token_endpoint_auth_method).toBe('client_secret_post');
  });

  it('a document that names no way to authenticate is a public client', () => {
    expect(read({ redirect_uris: ['http://127.0.0.1/cb'] }).token_endpoint_auth_method).toBe('none');
    expect(read({ token_endpoint_auth_methods_supported: ['private_key_jwt'] }).token_endpoint_auth_method).toBeUndefined();
  });

  it('leaves what is not a JSON object, and a document it does not change, byte for byte', () => {
    for (const text of ['<html>', '[1,2]', 'null', '{"token_endpoint_auth_method":"none",  "x":1}']) {
      expect(asSignetReadsIt(Buffer.from(text)).toString()).toBe(text);
    }
  });

  it('every https:// client_id is resolved as a document (oidc-provider then judges its form); nothing else', () => {
    expect(isDocumentClientId('https://app.example/client.json')).toBe(true);
    expect(isDocumentClientId('HTTPS://app.example/')).toBe(true);
    for (const id of ['http://app.example/client.json', '9b2d…', 'urn:x', undefined, 42])
      expect(isDocumentClientId(id)).toBe(false);
  });
});

describe('how long an answer is kept (HTTP caching, 30 s to 24 h)', () => {
  const now = Date.parse('2026-05-01T00:00:00Z');
  it.each([
    [{}, MIN_SECONDS],
    [{ cacheControl: 'public, max-age=3600' }, 3600],
    [{ cacheControl: 'max-age=5' }, MIN_SECONDS],
    [{ cacheControl: 'max-age=31536000' }, MAX_SECONDS],
    [{ cacheControl: 'no-store, max-age=3600' }, MIN_SECONDS],
    [{ cacheControl: 'no-cache' }, MIN_SECONDS],
    [{ expires: 'Fri, 01 May 2026 02:00:00 GMT' }, 7200],
    [{ expires: 'not a date' }, MIN_SECONDS],
    [{ cacheControl: 'max-age=600', expires: 'Fri, 01 May 2026 02:00:00 GMT' }, 600],
  ])('%j → %d s', (headers, seconds) => {
    expect(freshnessSeconds(headers, now)).toBe(seconds);
  });
});

describe('the bounded cache', () => {
  it('never holds more than its capacity: the least recently used entry goes first', () => {
    const cache = new BoundedCache<number>(3);
    for (const [i, key] of ['a', 'b', 'c'].entries()) cache.set(key, i, 1000);
    expect(cache.get('a', 0)).toBe(0);
    cache.set('d', 3, 1000);
    expect(cache.size).toBe(3);
    expect(cache.get('b', 0)).toBeUndefined();
    expect([cache.get('a', 0), cache.get('c', 0), cache.get('d', 0)]).toEqual([0, 2, 3]);
    for (let i = 0; i < 10_000; i++) cache.set(`burst-${i}`, i, 1000);
    expect(cache.size).toBe(3);
  });

  it('an entry past its expiry is gone', () => {
    const cache = new BoundedCache<string>(2);
    cache.set('a', 'x', 100);
    expect(cache.get('a', 99)).toBe('x');
    expect(cache.get('a', 100)).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
