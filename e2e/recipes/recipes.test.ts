/**
 * "Use Signet from …" recipes (docs/recipes.md), each run exactly as written against the real
 * provider over HTTP, on both profiles: the recipe's configuration file is imported as is, a
 * real app serves it on a loopback port, a wallet signs in, and the app's own session shows
 * the address.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Auth } from '@auth/core';
import { getRequestListener } from '@hono/node-server';
import { CookieJar, request, startTestProvider, type TestProvider, walletSignIn } from '@signet/testkit';
import { memoryAdapter } from 'better-auth/adapters/memory';
import express from 'express';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signetAuthConfig } from './authjs.config.ts';
import { signetBetterAuth } from './better-auth.config.ts';
import { memoryLogoutStore, signetAuth } from './express-openid-connect.config.ts';
import { signetApp } from './hono-oidc-auth.config.ts';
import { signetAuthOptions } from './next-auth.config.ts';
import { registerConfidential } from './relying-party.ts';

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

// next-auth 4's types load Next.js's global types (which make NODE_ENV required in every
// process.env literal of this repository), so its handler is loaded untyped.
const NextAuth = createRequire(import.meta.url)('next-auth').default as (
  req: unknown,
  res: unknown,
  options: ReturnType<typeof signetAuthOptions>,
) => Promise<void>;

/** Sends a Web Response (Auth.js, better-auth) back through Node's response. */
async function sendWebResponse(response: Response, res: import('node:http').ServerResponse) {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  headers['set-cookie'] = response.headers.getSetCookie();
  res.writeHead(response.status, headers).end(Buffer.from(await response.arrayBuffer()));
}

/**
 * The provider on `profile` with e-mail on, private fetches allowed (logout tokens to loopback), and
 * better-auth's client in its CLIENTS_FILE.
 */
function recipesProvider(profile: (typeof profiles)[number]) {
  let provider: TestProvider;
  let dir: string;

  /** better-auth's port: its client is the operator's (CLIENTS_FILE), with a synthetic email address. */
  let betterAuthPort: number;

  beforeAll(async () => {
    betterAuthPort = await reservePort();
    dir = mkdtempSync(join(tmpdir(), 'signet-recipes-'));
    const clientsFile = join(dir, 'clients.json');
    writeFileSync(
      clientsFile,
      JSON.stringify([
        {
          client_id: 'better-auth',
          client_secret: 'a-better-auth-client-secret-for-the-recipe-test',
          redirect_uris: [`http://127.0.0.1:${betterAuthPort}/api/auth/callback/signet`],
          client_name: 'better-auth app',
          synthetic_email_domain: 'wallet.example.com',
        },
      ]),
    );
    // EMAIL_SCOPE: on by default on self-hosted, the operator's choice on hosted. ALLOW_PRIVATE_FETCH:
    // logout tokens to a relying party on loopback (development only).
    provider = await startTestProvider({
      PROFILE: profile,
      EMAIL_SCOPE: 'true',
      ALLOW_PRIVATE_FETCH: 'true',
      CLIENTS_FILE: clientsFile,
    });
  });
  afterAll(async () => {
    await provider?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  return {
    get provider() {
      return provider;
    },
    get dir() {
      return dir;
    },
    get betterAuthPort() {
      return betterAuthPort;
    },
  };
}
type RecipesProvider = ReturnType<typeof recipesProvider>;

/** Auth.js and express-openid-connect. */
function authJsAndExpressTests(env: RecipesProvider) {
  it('Auth.js (@auth/core, generic OIDC provider): sign in, session holds the address', async () => {
    const { provider } = env;
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
      await sendWebResponse(await Auth(await toWebRequest(req, origin), config), res);
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

  it('express-openid-connect (confidential client): sign in, req.oidc.user holds the address; back-channel logout ends the session', async () => {
    const { provider } = env;
    const port = await reservePort();
    const origin = `http://127.0.0.1:${port}`;
    const { clientId, clientSecret } = await registerConfidential(provider, `${origin}/callback`, {
      backchannel_logout_uri: `${origin}/backchannel-logout`,
      post_logout_redirect_uris: [`${origin}/`],
    });
    const app = express();
    app.use(
      signetAuth({
        SIGNET_ISSUER: provider.issuer,
        SIGNET_CLIENT_ID: clientId,
        SIGNET_CLIENT_SECRET: clientSecret,
        BASE_URL: origin,
        SESSION_SECRET: 'another-test-secret-of-thirty-two-characters',
        BACKCHANNEL_LOGOUT_STORE: memoryLogoutStore(),
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
      const providerJar = new CookieJar();
      const { callbackUrl } = await walletSignIn({ authorizationUrl, signer, jar: providerJar });
      expect(callbackUrl.origin).toBe(origin);
      // Signet answers with a query-string redirect (response_mode=query): the callback is a GET.
      const callback = await request(jar, callbackUrl);
      expect(callback.status, await callback.clone().text()).toBe(302);
      const me = (await (await request(jar, `${origin}/me`)).json()) as { authenticated: boolean; user: Record<string, unknown> };
      expect(me.authenticated).toBe(true);
      expect(me.user).toMatchObject({ preferred_username: signer.address });

      // The person signs out at Signet (the provider's own session, not through this app): the
      // provider POSTs a logout token to /backchannel-logout, and the app's session is over.
      const end = await request(providerJar, new URL('/session/end', provider.url));
      const page = await end.text();
      const xsrf = /name="xsrf" value="([^"]+)"/.exec(page)?.[1] as string;
      const done = await request(providerJar, new URL(/action="([^"]+)"/.exec(page)?.[1] as string, provider.url), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ xsrf, logout: 'yes' }),
      });
      expect(done.status).toBe(303);
      expect(await (await request(jar, `${origin}/me`)).json()).toEqual({ authenticated: false, user: null });
    } finally {
      await listening.close();
    }
  });
}

/** better-auth and next-auth 4. */
function betterAuthAndNextAuthTests(env: RecipesProvider) {
  it('better-auth (genericOAuth): sign in; the user is created with the email claim, no profile mapping', async () => {
    const { provider, betterAuthPort } = env;
    const origin = `http://127.0.0.1:${betterAuthPort}`;
    const auth = signetBetterAuth({
      SIGNET_ISSUER: provider.issuer,
      SIGNET_CLIENT_ID: 'better-auth',
      SIGNET_CLIENT_SECRET: 'a-better-auth-client-secret-for-the-recipe-test',
      BASE_URL: origin,
      BETTER_AUTH_SECRET: 'a-better-auth-secret-of-at-least-thirty-two-characters',
      database: memoryAdapter({ user: [], session: [], account: [], verification: [] }),
    });
    const app = await listen(
      createServer(async (req, res) => {
        await sendWebResponse(await auth.handler(await toWebRequest(req, origin)), res);
      }),
      betterAuthPort,
    );
    try {
      const jar = new CookieJar();
      const start = await request(jar, `${origin}/api/auth/sign-in/social`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin },
        body: JSON.stringify({ provider: 'signet', callbackURL: '/' }),
      });
      expect(start.status, await start.clone().text()).toBe(200);
      const authorizationUrl = new URL(((await start.json()) as { url: string }).url);
      expect(authorizationUrl.searchParams.get('scope')).toBe('openid profile email');

      const signer = privateKeyToAccount(generatePrivateKey());
      const { callbackUrl, details } = await walletSignIn({ authorizationUrl, signer });
      expect(details.email).toEqual({ ens: false, syntheticDomain: 'wallet.example.com' });
      const callback = await request(jar, callbackUrl);
      expect(callback.status, await callback.clone().text()).toBe(302);
      expect(callback.headers.get('location')).toBe('/');
      const session = (await (await request(jar, `${origin}/api/auth/get-session`)).json()) as {
        user?: { email?: string; emailVerified?: boolean };
      };
      expect(session.user).toMatchObject({ email: `${signer.address.toLowerCase()}@wallet.example.com`, emailVerified: false });
    } finally {
      await app.close();
    }
  });

  it('next-auth 4 (an OAuth provider with wellKnown, as a pages API route): sign in, the session holds the address', async () => {
    const { provider } = env;
    const port = await reservePort();
    const origin = `http://127.0.0.1:${port}`;
    const { clientId, clientSecret } = await registerConfidential(provider, `${origin}/api/auth/callback/signet`);
    const options = signetAuthOptions({
      SIGNET_ISSUER: provider.issuer,
      SIGNET_CLIENT_ID: clientId,
      SIGNET_CLIENT_SECRET: clientSecret,
      NEXTAUTH_SECRET: 'a-next-auth-secret-of-at-least-thirty-two-characters',
    });
    // What Next.js does for pages/api/auth/[...nextauth].ts: parsed query (with the route's
    // segments as `nextauth`), body and cookies, then the exported handler.
    const app = express();
    app.use(express.urlencoded({ extended: false }));
    app.use('/api/auth', (req, res) => {
      const url = new URL(req.url, origin);
      const cookies = Object.fromEntries(
        (req.headers.cookie ?? '')
          .split(/;\s*/)
          .filter(Boolean)
          .map((pair) => [pair.slice(0, pair.indexOf('=')), decodeURIComponent(pair.slice(pair.indexOf('=') + 1))]),
      );
      const nextReq = Object.create(req, {
        query: { value: { ...Object.fromEntries(url.searchParams), nextauth: url.pathname.split('/').filter(Boolean) } },
        cookies: { value: cookies },
      });
      return NextAuth(nextReq, res, options);
    });
    const previous = process.env.NEXTAUTH_URL;
    process.env.NEXTAUTH_URL = origin; // next-auth 4's one required setting: the app's origin
    const listening = await listen(createServer(app), port);
    try {
      const jar = new CookieJar();
      const csrf = await request(jar, `${origin}/api/auth/csrf`);
      const { csrfToken } = JSON.parse(await csrf.text()) as { csrfToken: string };
      const signin = await request(jar, `${origin}/api/auth/signin/signet`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrfToken, callbackUrl: `${origin}/` }),
      });
      expect(signin.status, await signin.clone().text()).toBe(302);
      const authorizationUrl = new URL(signin.headers.get('location') as string);
      expect(authorizationUrl.origin).toBe(new URL(provider.url).origin);
      expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');

      const signer = privateKeyToAccount(generatePrivateKey());
      const { callbackUrl } = await walletSignIn({ authorizationUrl, signer });
      const callback = await request(jar, callbackUrl);
      expect(callback.status, await callback.clone().text()).toBe(302);
      expect(callback.headers.get('location')).toBe(`${origin}/`);
      const session = (await (await request(jar, `${origin}/api/auth/session`)).json()) as { user?: { name?: string } };
      expect(session.user?.name).toBe(signer.address);
    } finally {
      process.env.NEXTAUTH_URL = previous;
      if (previous === undefined) delete process.env.NEXTAUTH_URL;
      await listening.close();
    }
  });
}

/** @hono/oidc-auth. */
function honoTests(env: RecipesProvider) {
  it('@hono/oidc-auth: sign in, the session holds the subject', async () => {
    const { provider } = env;
    const port = await reservePort();
    const origin = `http://127.0.0.1:${port}`;
    const { clientId, clientSecret } = await registerConfidential(provider, `${origin}/callback`);
    const app = signetApp({
      SIGNET_ISSUER: provider.issuer,
      SIGNET_CLIENT_ID: clientId,
      SIGNET_CLIENT_SECRET: clientSecret,
      REDIRECT_URI: `${origin}/callback`,
      SESSION_SECRET: 'a-hono-session-secret-of-thirty-two-characters',
    });
    const listening = await listen(createServer(getRequestListener(app.fetch)), port);
    try {
      const jar = new CookieJar();
      const login = await request(jar, `${origin}/`);
      expect(login.status, await login.clone().text()).toBe(302);
      const authorizationUrl = new URL(login.headers.get('location') as string);
      expect(authorizationUrl.origin).toBe(new URL(provider.url).origin);

      const signer = privateKeyToAccount(generatePrivateKey());
      const { callbackUrl } = await walletSignIn({ authorizationUrl, signer });
      const callback = await request(jar, callbackUrl);
      expect(callback.status, await callback.clone().text()).toBe(302);
      const me = await request(jar, `${origin}/`);
      expect(me.status).toBe(200);
      expect(await me.json()).toEqual({ sub: `eip155:1:${signer.address}` });
    } finally {
      await listening.close();
    }
  });
}

describe.each(profiles)('recipes on the %s profile', (profile) => {
  const env = recipesProvider(profile);
  authJsAndExpressTests(env);
  betterAuthAndNextAuthTests(env);
  honoTests(env);
});
