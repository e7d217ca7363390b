import { startTestProvider } from '@signet/testkit';
import { describe, expect, it } from 'vitest';

describe('Strict-Transport-Security', () => {
  it('is sent when the issuer is https, and not for an http (development) issuer', async () => {
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
});
