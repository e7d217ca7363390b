import { startTestProvider, TEST_REDIRECT_URI } from '@signet/testkit';
import { describe, expect, it } from 'vitest';

const register = (base: string) =>
  fetch(`${base}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [TEST_REDIRECT_URI] }),
  });

describe('response headers', () => {
  it('Strict-Transport-Security is sent when the issuer is https, and not for an http (development) issuer', async () => {
    const secure = await startTestProvider({ ISSUER: 'https://id.example.com', TRUST_PROXY: 'true' });
    try {
      // The test server speaks http: the issuer (behind a TLS proxy) is what decides.
      const response = await fetch(`http://127.0.0.1:${secure.config.port}/.well-known/openid-configuration`, {
        headers: { 'x-forwarded-proto': 'https' },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
    } finally {
      await secure.stop();
    }
    const plain = await startTestProvider();
    try {
      const response = await fetch(`${plain.url}/.well-known/openid-configuration`);
      expect(response.headers.get('strict-transport-security')).toBeNull();
    } finally {
      await plain.stop();
    }
  });

  it('the baseline headers are on every answer: a page, JSON, a 404, an OAuth error, a refusal thrown before the route', async () => {
    const provider = await startTestProvider({ RATE_LIMIT_REGISTRATION: '1' });
    try {
      expect((await register(provider.url)).status).toBe(201);
      const answers = {
        discovery: await fetch(`${provider.url}/.well-known/openid-configuration`),
        'legal page': await fetch(`${provider.url}/legal/privacy`),
        'unknown path': await fetch(`${provider.url}/nowhere`),
        'token error': await fetch(`${provider.url}/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'x' }) }),
        'rate limited': await register(provider.url),
        'unknown interaction': await fetch(`${provider.url}/interaction/unknown`, { headers: { accept: 'application/json' } }),
      };
      expect(Object.fromEntries(Object.entries(answers).map(([name, response]) => [name, response.status]))).toMatchObject({
        discovery: 200,
        'legal page': 200,
        'unknown path': 404,
        'token error': 400,
        'rate limited': 429,
      });
      for (const [name, response] of Object.entries(answers)) {
        expect(response.headers.get('x-content-type-options'), name).toBe('nosniff');
        expect(response.headers.get('referrer-policy'), name).toBe('no-referrer');
        expect(response.headers.get('content-security-policy'), name).toMatch(/default-src 'none'.*frame-ancestors 'none'/);
      }
      expect(answers['legal page'].headers.get('x-frame-options')).toBe('DENY');
    } finally {
      await provider.stop();
    }
  });
});
