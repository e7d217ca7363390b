import {
  CookieJar,
  getDetails,
  messageFor,
  pkceAuthorization,
  postSignature,
  TEST_REDIRECT_URI as REDIRECT_URI,
  registerPublicClient,
  startInteraction,
  startTestProvider,
} from '@signet/testkit';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';

describe('rate limits', () => {
  it('sign-in attempts: 429 RATE_LIMITED with Retry-After once the window is used up', async () => {
    const provider = await startTestProvider({ RATE_LIMIT_INTERACTION: '2' });
    try {
      const client = await registerPublicClient(provider.url);
      const { url } = await pkceAuthorization(client);
      const jar = new CookieJar();
      const interactionUrl = await startInteraction(jar, url);
      const details = await getDetails(jar, interactionUrl);
      const account = privateKeyToAccount(generatePrivateKey());
      const message = messageFor(details, account.address, { nonce: 'wrongwrongwrong1' });
      const signature = await account.signMessage({ message });
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await postSignature(jar, interactionUrl, { message, signature })).status);
      expect(statuses).toEqual([400, 400, 429]);
      const limited = await postSignature(jar, interactionUrl, { message, signature });
      expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await limited.json()).error).toBe('RATE_LIMITED');
      expect(await (await fetch(`${provider.url}/metrics`)).text()).toMatch(
        /signet_rate_limited_total\{bucket="interaction"\} 2/,
      );
    } finally {
      await provider.stop();
    }
  });

  it('registration: 429 rate_limited; X-Forwarded-For is ignored unless TRUST_PROXY', async () => {
    const register = (url: string, forwardedFor: string) =>
      fetch(`${url}/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
        body: JSON.stringify({ redirect_uris: [REDIRECT_URI] }),
      });
    const untrusting = await startTestProvider({ RATE_LIMIT_REGISTRATION: '1' });
    try {
      expect((await register(untrusting.url, '203.0.113.1')).status).toBe(201);
      const second = await register(untrusting.url, '203.0.113.2');
      expect(second.status).toBe(429);
      expect(await second.json()).toMatchObject({ error: 'rate_limited' });
    } finally {
      await untrusting.stop();
    }
    const trusting = await startTestProvider({ RATE_LIMIT_REGISTRATION: '1', TRUST_PROXY: 'true' });
    try {
      expect((await register(trusting.url, '203.0.113.1')).status).toBe(201);
      expect((await register(trusting.url, '203.0.113.2')).status).toBe(201);
      expect((await register(trusting.url, '203.0.113.1')).status).toBe(429);
      // A client cannot escape its bucket by prepending addresses of its own: the proxy's entry is last.
      expect((await register(trusting.url, 'forged, 203.0.113.1')).status).toBe(429);
    } finally {
      await trusting.stop();
    }
  });
});
