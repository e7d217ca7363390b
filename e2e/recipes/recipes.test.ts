/**
 * "Use Signet from …" recipes (docs/recipes.md), each run exactly as written against the real
 * provider over HTTP, on both profiles: the recipe's configuration file is imported as is, a
 * real app serves it on a loopback port, a wallet signs in, and the app's own session shows
 * the address.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Auth } from '@auth/core';
import { CookieJar, insecure, request, startTestProvider, type TestProvider, walletSignIn } from '@signet/testkit';
import express from 'express';
import * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signetAuthConfig } from './authjs.config.ts';
import { signetAuth } from './express-openid-connect.config.ts';

type Listening = { url: string; close(): Promise<void> };

async function listen(server: Server, wanted = 0): Promise<Listening> {
  await new Promise<void>((resolve) => server.listen(wanted, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A reserved loopback port (the redirect URI must be registered before the app starts). */
async function reservePort(): Promise<number> {
  const probe = await listen(createServer());
  await probe.close();
  return Number(new URL(probe.url).port);
}

async function registerConfidential(provider: TestProvider, redirectUri: string) {
  const client = await oidc.dynamicClientRegistration(
    new URL(provider.issuer),
    { redirect_uris: [redirectUri], token_endpoint_auth_method: 'client_secret_basic', client_name: 'Recipe app' },
    undefined,
    insecure,
  );
  const { client_id, client_secret } = client.clientMetadata();
  return { clientId: client_id, clientSecret: client_secret as string };
}

/** Node request → Web Request for Auth.js (what its framework integrations do). */
async function toWebRequest(req: IncomingMessage, origin: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string);
  const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks);
  return new Request(`${origin}${req.url}`, { method: req.method, headers, body });
}

const profiles = ['self-hosted', 'hosted'] as const;

describe.each(profiles)('recipes on the %s profile', (profile) => {
  let provider: TestProvider;
  beforeAll(async () => {
    provider = await startTestProvider({ PROFILE: profile });
  });
  afterAll(async () => {
    await provider?.stop();
  });

  it('Auth.js (@auth/core, generic OIDC provider): sign in, session holds the address', async () => {
    const port = await reservePort();
    const origin = `http://127.0.0.1:${port}`;
    const { clientId, clientSecret } = await registerConfidential(provider, `${origin}/auth/callback/signet`);
    const config = signetAuthConfig({
      SIGNET_ISSUER: provider.issuer,
      SIGNET_CLIENT_ID: clientId,
      SIGNET_CLIENT_SECRET: clientSecret,
      AUTH_SECRET: 'a-test-secret-of-at-least-thirty-two-characters',
    });
    const server = createServer(async (req, res) => {
      const response = await Auth(await toWebRequest(req, origin), config);
      const headers: Record<string, string | string[]> = {};
      response.headers.forEach((value, name) => {
        if (name !== 'set-cookie') headers[name] = value;
      });
      headers['set-cookie'] = response.headers.getSetCookie();
      res.writeHead(response.status, headers).end(Buffer.from(await response.arrayBuffer()));
    });
    const app = await listen(server, port);
    try {
      const jar = new CookieJar();
      const { csrfToken } = (await (await request(jar, `${app.url}/auth/csrf`)).json()) as { csrfToken: string };
      const signin = await request(jar, `${app.url}/auth/signin/signet`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrfToken, callbackUrl: `${app.url}/` }),
      });
      expect(signin.status).toBe(302);
      const authorizationUrl = new URL(signin.headers.get('location') as string);
      expect(authorizationUrl.origin).toBe(new URL(provider.url).origin);
      expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');

      const signer = privateKeyToAccount(generatePrivateKey());
      const { callbackUrl } = await walletSignIn({ authorizationUrl, signer });
      expect(callbackUrl.origin).toBe(app.url);
      const callback = await request(jar, callbackUrl);
      expect(callback.status, await callback.clone().text()).toBe(302);
      expect(callback.headers.get('location')).toBe(`${app.url}/`);
      const session = (await (await request(jar, `${app.url}/auth/session`)).json()) as { user?: { name?: string } };
      expect(session.user?.name).toBe(signer.address);
    } finally {
      await app.close();
    }
  });

  it('express-openid-connect (confidential client): sign in, req.oidc.user holds the address', async () => {
    const port = await reservePort();
    const origin = `http://127.0.0.1:${port}`;
    const { clientId, clientSecret } = await registerConfidential(provider, `${origin}/callback`);
    const app = express();
    app.use(
      signetAuth({
        SIGNET_ISSUER: provider.issuer,
        SIGNET_CLIENT_ID: clientId,
        SIGNET_CLIENT_SECRET: clientSecret,
        BASE_URL: origin,
        SESSION_SECRET: 'another-test-secret-of-thirty-two-characters',
      }),
    );
    app.get('/me', (req, res) => {
      res.json({ authenticated: req.oidc.isAuthenticated(), user: req.oidc.user ?? null });
    });
    const listening = await listen(createServer(app), port);
    try {
      const jar = new CookieJar();
      expect(await (await request(jar, `${origin}/me`)).json()).toEqual({ authenticated: false, user: null });
      const login = await request(jar, `${origin}/login`);
      expect(login.status, await login.clone().text()).toBe(302);
      const authorizationUrl = new URL(login.headers.get('location') as string);
      expect(authorizationUrl.origin).toBe(new URL(provider.url).origin);

      const signer = privateKeyToAccount(generatePrivateKey());
      const { callbackUrl } = await walletSignIn({ authorizationUrl, signer });
      expect(callbackUrl.origin).toBe(origin);
      // Signet answers with a query-string redirect (response_mode=query): the callback is a GET.
      const callback = await request(jar, callbackUrl);
      expect(callback.status, await callback.clone().text()).toBe(302);
      const me = (await (await request(jar, `${origin}/me`)).json()) as { authenticated: boolean; user: Record<string, unknown> };
      expect(me.authenticated).toBe(true);
      expect(me.user).toMatchObject({ preferred_username: signer.address });
    } finally {
      await listening.close();
    }
  });
});
