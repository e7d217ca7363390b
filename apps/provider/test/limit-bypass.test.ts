/**
 * Rate limits hold for every spelling of a route that oidc-provider serves: its router ignores
 * the case of the path and one trailing slash, so the limiter keys on the route the same way.
 */
import {
  pkceAuthorization,
  registerDeviceClient,
  registerPublicClient,
  startTestProvider,
  TEST_REDIRECT_URI,
} from '@signet/testkit';
import { describe, expect, it } from 'vitest';

const register = (base: string, path: string) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [TEST_REDIRECT_URI] }),
  });

describe('rate limits and path variants', () => {
  it('registration: /reg, /reg/, /REG and /Reg/ share one budget', async () => {
    const provider = await startTestProvider({ RATE_LIMIT_REGISTRATION: '2' });
    try {
      expect((await register(provider.url, '/reg')).status).toBe(201);
      expect((await register(provider.url, '/REG/')).status).toBe(201);
      for (const variant of ['/reg', '/reg/', '/REG', '/Reg/']) {
        const response = await register(provider.url, variant);
        expect(response.status, variant).toBe(429);
        expect(await response.json()).toMatchObject({ error: 'rate_limited' });
      }
    } finally {
      await provider.stop();
    }
  });

  it.each([
    ['self-hosted', '/reg', '/reg'],
    ['hosted', '/register', '/client'],
  ])(
    'client management (%s: GET, PUT, DELETE %s/<id>) shares the registration budget, in every spelling',
    async (profile, registration, management) => {
      const provider = await startTestProvider({ PROFILE: profile, RATE_LIMIT_REGISTRATION: '3' });
      try {
        const created = await (await register(provider.url, registration)).json();
        const auth = { authorization: `Bearer ${created.registration_access_token}` };
        const id = created.client_id as string;
        expect((await fetch(`${provider.url}${management}/${id}`, { headers: auth })).status).toBe(200);
        expect((await fetch(`${provider.url}${management.toUpperCase()}/${id}/`, { headers: auth })).status).toBe(200);
        for (const [method, path] of [
          ['GET', `${management}/${id}`],
          ['PUT', `${management}/${id}`],
          ['DELETE', `${management}/${id}`],
          ['GET', `${management.toUpperCase()}/${id}/`],
          ['POST', registration],
        ] as const) {
          const response = await fetch(`${provider.url}${path}`, {
            method,
            headers: { ...auth, 'content-type': 'application/json' },
            body:
              method === 'PUT' || method === 'POST'
                ? JSON.stringify({ client_id: id, redirect_uris: [TEST_REDIRECT_URI] })
                : undefined,
          });
          expect(response.status, `${method} ${path}`).toBe(429);
          expect(await response.json()).toMatchObject({ error: 'rate_limited' });
        }
      } finally {
        await provider.stop();
      }
    },
  );

  it('token: /token, /token/, /TOKEN share one budget', async () => {
    const provider = await startTestProvider({ RATE_LIMIT_TOKEN: '2' });
    try {
      const post = (path: string) =>
        fetch(`${provider.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=authorization_code&code=nope&client_id=nobody',
        });
      expect((await post('/token/')).status).toBe(401);
      expect((await post('/TOKEN')).status).toBe(401);
      for (const variant of ['/token', '/token/', '/TOKEN', '/Token/']) expect((await post(variant)).status, variant).toBe(429);
    } finally {
      await provider.stop();
    }
  });

  it('authorization: GET /auth is limited per address (RATE_LIMIT_AUTHORIZATION), in every spelling', async () => {
    const provider = await startTestProvider({ RATE_LIMIT_AUTHORIZATION: '3' });
    try {
      const client = await registerPublicClient(provider.url);
      const { url } = await pkceAuthorization(client);
      const get = (path: string) => fetch(`${provider.url}${path}${url.search}`, { redirect: 'manual' });
      expect((await get('/auth')).status).toBe(303);
      expect((await get('/AUTH')).status).toBe(303);
      expect((await get('/auth/')).status).toBe(303);
      const limited = await get('/Auth');
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await get('/auth')).status).toBe(429);
    } finally {
      await provider.stop();
    }
  });

  it.each(['self-hosted', 'hosted'])(
    'device authorization (%s): POST /device/auth is in the authorization budget, in every spelling, shared with /auth',
    async (profile) => {
      const provider = await startTestProvider({ PROFILE: profile, RATE_LIMIT_AUTHORIZATION: '3' });
      try {
        const client = await registerDeviceClient(`${provider.url}/${profile === 'hosted' ? 'register' : 'reg'}`);
        const post = (path: string) =>
          fetch(`${provider.url}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ client_id: client.client_id, scope: 'openid' }),
          });
        expect((await post('/device/auth')).status).toBe(200);
        expect((await post('/DEVICE/AUTH/')).status).toBe(200);
        expect((await post('/Device/Auth')).status).toBe(200);
        for (const variant of ['/device/auth', '/device/auth/', '/DEVICE/auth']) {
          const limited = await post(variant);
          expect(limited.status, variant).toBe(429);
          expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
          expect(await limited.json()).toMatchObject({ error: 'rate_limited' });
        }
        // One budget with the authorization endpoint.
        const authorization = profile === 'hosted' ? '/authorize' : '/auth';
        expect((await fetch(`${provider.url}${authorization}?client_id=x`, { redirect: 'manual' })).status).toBe(429);
      } finally {
        await provider.stop();
      }
    },
  );
});
