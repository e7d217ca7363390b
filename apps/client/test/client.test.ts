import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { buildClientApp, type ClientConfig, loadClientConfig } from '@signet/client';
import { runCli } from '@signet/provider/cli';
import { CookieJar, request, startInteraction, startTestProvider, type TestProvider, walletSignIn } from '@signet/testkit';
import * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SECRET = 'a-session-secret-of-more-than-32-characters!';
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'signet-client-'));
  dirs.push(dir);
  return dir;
};

type RunningClient = { url: string; config: ClientConfig; stop(): Promise<void> };

/** The reference client over real HTTP, on 127.0.0.1 (the provider is on localhost: separate cookies). */
async function startClient(
  provider: TestProvider,
  env: Record<string, string> = {},
  dataDir = tempDir(),
  atPort = 0,
): Promise<RunningClient> {
  const server = serve({ fetch: () => new Response('starting'), port: atPort, hostname: '127.0.0.1' }) as Server;
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  const config = loadClientConfig({
    SESSION_SECRET: SECRET,
    ISSUER: provider.url,
    REDIRECT_URI: `${origin}/api/auth/callback`,
    CLIENT_URI: origin,
    LOGO_URI: `${origin}/logo.svg`,
    CONTACTS: 'ops@example.com',
    DATA_DIR: dataDir,
    PORT: String(port),
    ...env,
  });
  const { app } = buildClientApp(config, { execute: [oidc.allowInsecureRequests] });
  server.removeAllListeners('request');
  const { getRequestListener } = await import('@hono/node-server');
  server.on('request', getRequestListener(app.fetch));
  return {
    url: origin,
    config,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A browser: click "Sign in", sign with the wallet, come back to the client. */
async function browserSignIn(client: RunningClient, signer = privateKeyToAccount(generatePrivateKey()), jar = new CookieJar()) {
  const login = await request(jar, `${client.url}/api/auth/login`);
  expect(login.status).toBe(302);
  const authorizationUrl = login.headers.get('location') as string;
  const { callbackUrl } = await walletSignIn({ authorizationUrl, signer, jar });
  expect(callbackUrl.href.startsWith(`${client.url}/api/auth/callback?`)).toBe(true);
  const back = await request(jar, callbackUrl);
  return { jar, signer, back, authorizationUrl };
}

const registeredClients = async (provider: TestProvider) =>
  (await provider.app.services.store.keys('oidc:Client:')).filter((k) => !k.endsWith(':consumed'));

// One self-hosted provider, shared by the "reference client against the self-hosted provider" describes below.
let provider: TestProvider;

beforeAll(async () => {
  provider = await startTestProvider();
});
afterAll(() => provider?.stop());

describe('reference client against the self-hosted provider', () => {
  it('first use: registers itself, signs in with PKCE/state/nonce, and shows the user', async () => {
    const dataDir = tempDir();
    const client = await startClient(provider, { SCOPE: 'openid profile siwe' }, dataDir);
    try {
      const { jar, signer, back, authorizationUrl } = await browserSignIn(client);
      const params = new URL(authorizationUrl).searchParams;
      expect(params.get('code_challenge_method')).toBe('S256');
      expect(params.get('state')).toBeTruthy();
      expect(params.get('nonce')).toBeTruthy();
      expect(params.get('scope')).toBe('openid profile siwe');
      expect(back.status).toBe(302);
      expect(back.headers.get('location')).toBe('/');
      const cookie = back.headers.getSetCookie().find((c) => c.startsWith('signet_rp='));
      expect(cookie).toMatch(/HttpOnly/i);
      expect(cookie).toMatch(/SameSite=Lax/i);
      expect(cookie).not.toMatch(/Secure/i);

      const me = await request(jar, `${client.url}/api/auth/me`);
      expect(me.status).toBe(200);
      const user = await me.json();
      expect(user).toEqual({
        sub: `eip155:1:${signer.address}`,
        preferredUsername: signer.address,
        siweMessage: expect.stringContaining(signer.address),
      });
      const page = await (await request(jar, `${client.url}/`)).text();
      expect(page).toContain(`eip155:1:${signer.address}`);
      expect(page).toContain('Sign out');

      const stored = JSON.parse(readFileSync(join(dataDir, 'client.json'), 'utf8'));
      expect(stored).toMatchObject({
        issuer: provider.url,
        client_id: expect.any(String),
        registration_access_token: expect.any(String),
      });
      expect(stored).not.toHaveProperty('client_secret');
      const registered = await (
        await fetch(stored.registration_client_uri, { headers: { authorization: `Bearer ${stored.registration_access_token}` } })
      ).json();
      expect(registered).toMatchObject({
        client_name: 'Signet example app',
        redirect_uris: [`${client.url}/api/auth/callback`],
        post_logout_redirect_uris: [`${client.url}/`],
        client_uri: `${client.url}/`,
        logo_uri: `${client.url}/logo.svg`,
        contacts: ['ops@example.com'],
        token_endpoint_auth_method: 'none',
      });
    } finally {
      await client.stop();
    }
  });

  it('reuses its registration after a restart (no second registration)', async () => {
    const dataDir = tempDir();
    const before = (await registeredClients(provider)).length;
    const first = await startClient(provider, {}, dataDir);
    await browserSignIn(first);
    const clientId = JSON.parse(readFileSync(join(dataDir, 'client.json'), 'utf8')).client_id;
    await first.stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = await startClient(provider, {}, dataDir, Number(new URL(first.url).port));
    try {
      const { jar } = await browserSignIn(second);
      expect((await request(jar, `${second.url}/api/auth/me`)).status).toBe(200);
      expect(JSON.parse(readFileSync(join(dataDir, 'client.json'), 'utf8')).client_id).toBe(clientId);
      expect((await registeredClients(provider)).length).toBe(before + 1);
    } finally {
      await second.stop();
    }
  });

  it('concurrent first logins, on two instances sharing DATA_DIR, register exactly once', async () => {
    const dataDir = tempDir();
    const before = (await registeredClients(provider)).length;
    const a = await startClient(provider, {}, dataDir);
    const b = await startClient(provider, { REDIRECT_URI: `${a.url}/api/auth/callback` }, dataDir);
    try {
      const logins = await Promise.all(
        Array.from({ length: 12 }, (_, i) => fetch(`${(i % 2 ? a : b).url}/api/auth/login`, { redirect: 'manual' })),
      );
      expect(logins.every((r) => r.status === 302)).toBe(true);
      const ids = new Set(logins.map((r) => new URL(r.headers.get('location') as string).searchParams.get('client_id')));
      expect(ids.size).toBe(1);
      expect((await registeredClients(provider)).length).toBe(before + 1);
      expect(existsSync(join(dataDir, 'client.json.lock'))).toBe(false);
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});

describe('reference client against the self-hosted provider: refusals and errors', () => {
  it('a wrong state ends at / with a readable error and no session', async () => {
    const client = await startClient(provider);
    try {
      const jar = new CookieJar();
      const login = await request(jar, `${client.url}/api/auth/login`);
      const authorizationUrl = new URL(login.headers.get('location') as string);
      authorizationUrl.searchParams.set('state', 'forged-state');
      const { callbackUrl } = await walletSignIn({ authorizationUrl, signer: privateKeyToAccount(generatePrivateKey()), jar });
      const back = await request(jar, callbackUrl);
      const location = new URL(back.headers.get('location') as string, client.url);
      expect(location.pathname).toBe('/');
      expect(location.searchParams.get('error')).toBeTruthy();
      expect(location.searchParams.get('error_description')).toMatch(/state/);
      expect((await request(jar, `${client.url}/api/auth/me`)).status).toBe(401);
      const page = await (await request(jar, `${client.url}${location.pathname}${location.search}`)).text();
      expect(page).toContain('Sign-in failed');
      // A callback with no sign-in started in this browser is refused too.
      const stray = await fetch(`${client.url}/api/auth/callback?code=x&state=y`, { redirect: 'manual' });
      expect(new URL(stray.headers.get('location') as string, client.url).searchParams.get('error')).toBe('no_pending_sign_in');
    } finally {
      await client.stop();
    }
  });

  it('a provider error (the user cancels) ends at / with the error and no session, through the provider’s page', async () => {
    const client = await startClient(provider);
    try {
      // This browser has not signed in to the client through the provider: the provider shows the
      // error itself and links onward (provider test redirects.test.ts); the person follows the link.
      const jar = new CookieJar();
      const login = await request(jar, `${client.url}/api/auth/login`);
      const interactionUrl = await startInteraction(jar, login.headers.get('location') as string);
      const abort = await request(jar, `${interactionUrl}/abort`, { method: 'POST' });
      const page = await request(jar, new URL(abort.headers.get('location') as string, interactionUrl));
      expect(page.status).toBe(400);
      const link = /<a class="button" href="([^"]+)"/.exec(await page.text())?.[1]?.replaceAll('&amp;', '&');
      expect(link).toBeDefined();
      const callbackUrl = new URL(link as string);
      expect(callbackUrl.origin).toBe(new URL(client.url).origin);
      const back = await request(jar, callbackUrl);
      const location = new URL(back.headers.get('location') as string, client.url);
      expect(location.searchParams.get('error')).toBe('access_denied');
      expect((await request(jar, `${client.url}/api/auth/me`)).status).toBe(401);
    } finally {
      await client.stop();
    }
  });
});

describe('reference client against the self-hosted provider: logout, stray callbacks and static credentials', () => {
  it('logout clears the session and redirects to end_session_endpoint with id_token_hint and post_logout_redirect_uri', async () => {
    const client = await startClient(provider);
    try {
      const { jar } = await browserSignIn(client);
      // The page's own "Sign out" (a same-origin navigation, as a browser labels it).
      const logout = await request(jar, `${client.url}/api/auth/logout`, { headers: { 'sec-fetch-site': 'same-origin' } });
      expect(logout.status).toBe(302);
      const target = new URL(logout.headers.get('location') as string);
      expect(`${target.origin}${target.pathname}`).toBe(`${provider.url}/session/end`);
      expect(target.searchParams.get('id_token_hint')).toMatch(/^ey/);
      expect(target.searchParams.get('post_logout_redirect_uri')).toBe(`${client.url}/`);
      expect((await request(jar, `${client.url}/api/auth/me`)).status).toBe(401);
      // The provider accepts it: its confirmation page comes back.
      expect((await request(jar, target)).status).toBe(200);
    } finally {
      await client.stop();
    }
  });

  it('logout CSRF: a GET another site caused only asks to confirm; a POST needs the page’s token and origin; the page’s form signs out', async () => {
    const client = await startClient(provider);
    try {
      const { jar } = await browserSignIn(client);
      const signedIn = async () => (await request(jar, `${client.url}/api/auth/me`)).status === 200;
      // A link or an <img> on another site, or a client that sends no Sec-Fetch-Site at all.
      for (const headers of [{ 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }, {}] as Record<
        string,
        string
      >[]) {
        const get = await request(jar, `${client.url}/api/auth/logout`, { headers });
        expect(get.status, JSON.stringify(headers)).toBe(200);
        expect(await get.text()).toContain('Sign out of Signet example app?');
        expect(await signedIn()).toBe(true);
      }
      // A cross-site form post: no token, a wrong one, or another origin.
      const post = (body: Record<string, string>, headers: Record<string, string> = {}) =>
        request(jar, `${client.url}/api/auth/logout`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
          body: new URLSearchParams(body),
        });
      const page = await (await request(jar, `${client.url}/`)).text();
      const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] as string;
      expect(csrf).toMatch(/^[\w-]{20,}$/);
      expect(page).toContain('<form method="post" action="/api/auth/logout">');
      expect((await post({})).status).toBe(403);
      expect((await post({ csrf: `${csrf}x` })).status).toBe(403);
      expect((await post({ csrf }, { origin: 'https://evil.example' })).status).toBe(403);
      expect(await signedIn()).toBe(true);
      // The page's form: signed out, then on to the provider's logout with the ID token.
      const out = await post({ csrf }, { origin: client.url });
      expect(out.status).toBe(302);
      expect(new URL(out.headers.get('location') as string).searchParams.get('id_token_hint')).toMatch(/^ey/);
      expect(await signedIn()).toBe(false);
    } finally {
      await client.stop();
    }
  });

  it('a callback another site sends (no sign-in pending here, or another state) changes nothing: the user stays signed in', async () => {
    const client = await startClient(provider);
    try {
      const { jar } = await browserSignIn(client);
      const stray = await request(jar, `${client.url}/api/auth/callback?error=access_denied&state=whatever`);
      expect(new URL(stray.headers.get('location') as string, client.url).searchParams.get('error')).toBe('no_pending_sign_in');
      expect((await request(jar, `${client.url}/api/auth/me`)).status).toBe(200);
      // A sign-in in progress is not ended by an answer with another state either.
      const login = await request(jar, `${client.url}/api/auth/login`);
      const state = new URL(login.headers.get('location') as string).searchParams.get('state') as string;
      const forged = await request(jar, `${client.url}/api/auth/callback?error=access_denied&state=not-${state}`);
      expect(new URL(forged.headers.get('location') as string, client.url).searchParams.get('error')).toBe('state_mismatch');
      expect((await request(jar, `${client.url}/api/auth/me`)).status).toBe(200);
      // The real answer to it (the person cancels) ends that sign-in, and the earlier one stays.
      const answer = await request(jar, `${client.url}/api/auth/callback?error=access_denied&state=${state}`);
      expect(new URL(answer.headers.get('location') as string, client.url).searchParams.get('error')).toBe('access_denied');
      expect((await request(jar, `${client.url}/api/auth/me`)).status).toBe(200);
      const again = await request(jar, `${client.url}/api/auth/callback?error=access_denied&state=${state}`);
      expect(new URL(again.headers.get('location') as string, client.url).searchParams.get('error')).toBe('no_pending_sign_in');
    } finally {
      await client.stop();
    }
  });

  it('with CLIENT_ID and CLIENT_SECRET it skips registration and uses client_secret_basic', async () => {
    const out: string[] = [];
    const file = join(tempDir(), 'preregistered.db');
    const pre = await startTestProvider({ STORAGE_URL: `sqlite:${file}` });
    const probe = await startClient(pre);
    await probe.stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const redirect = probe.config.redirectUri;
    await runCli(
      ['clients', 'add', '--redirect-uri', redirect, '--name', 'Pre-registered', '--secret', '--json'],
      { STORAGE_URL: `sqlite:${file}`, LOG_LEVEL: 'silent' },
      (l) => out.push(l),
    );
    const { client_id, client_secret } = JSON.parse(out[0] as string);
    const dataDir = tempDir();
    const client = await startClient(
      pre,
      { CLIENT_ID: client_id, CLIENT_SECRET: client_secret },
      dataDir,
      Number(new URL(probe.url).port),
    );
    try {
      const { jar } = await browserSignIn(client);
      expect((await request(jar, `${client.url}/api/auth/me`)).status).toBe(200);
      expect(existsSync(join(dataDir, 'client.json'))).toBe(false);
    } finally {
      await client.stop();
      await pre.stop();
    }
  });
});

describe('reference client against the hosted profile', () => {
  it('registers, receives a secret, and uses it', async () => {
    const provider = await startTestProvider({ PROFILE: 'hosted' });
    const dataDir = tempDir();
    const client = await startClient(provider, {}, dataDir);
    try {
      const { jar, signer } = await browserSignIn(client);
      expect(await (await request(jar, `${client.url}/api/auth/me`)).json()).toMatchObject({ sub: `eip155:1:${signer.address}` });
      const stored = JSON.parse(readFileSync(join(dataDir, 'client.json'), 'utf8'));
      expect(stored.client_secret).toEqual(expect.any(String));
      expect(stored.registration_client_uri).toBe(`${provider.url}/client/${stored.client_id}`);
    } finally {
      await client.stop();
      await provider.stop();
    }
  });
});

describe('reference client settings', () => {
  it('refuses to start with a short SESSION_SECRET, naming it (real process)', () => {
    const result = spawnSync(
      process.execPath,
      ['--conditions=@signet/source', '--import', 'tsx', join(import.meta.dirname, '..', 'src', 'server.ts')],
      {
        env: { ...process.env, SESSION_SECRET: 'short' },
        encoding: 'utf8',
        timeout: 20_000,
      },
    );
    expect(result.status).toBe(78);
    expect(result.stderr).toContain('SESSION_SECRET: must be at least 32 characters');
    expect(result.stderr).not.toContain('short');
  });

  it.each([
    [{}, /^SESSION_SECRET: is required/],
    [{ SESSION_SECRET: SECRET, ISSUER: 'http://id.example.com' }, /^ISSUER: must be https/],
    [{ SESSION_SECRET: SECRET, SCOPE: 'profile' }, /^SCOPE: must include openid/],
    [{ SESSION_SECRET: SECRET, CONTACTS: 'nope' }, /^CONTACTS:/],
    [{ SESSION_SECRET: SECRET, CLIENT_SECRET: 'x' }, /^CLIENT_SECRET: is set without CLIENT_ID/],
  ])('refuses %j', (env, message) => {
    expect(() => loadClientConfig(env)).toThrow(message);
  });

  it('has the documented defaults, and Secure cookies in production', async () => {
    const config = loadClientConfig({ SESSION_SECRET: SECRET });
    expect(config).toMatchObject({
      port: 3001,
      issuer: 'http://localhost:3000',
      redirectUri: 'http://localhost:3001/api/auth/callback',
      scope: 'openid profile',
      clientUri: 'http://localhost:3001/',
      logoUri: 'http://localhost:3001/logo.svg',
      dataDir: './data',
      production: false,
    });
    // A DATA_DIR that does not exist yet (not ./data: a test leaves nothing in the repository).
    const dataDir = join(tempDir(), 'state', 'client');
    const { app } = buildClientApp(
      loadClientConfig({ SESSION_SECRET: SECRET, NODE_ENV: 'production', ISSUER: 'http://127.0.0.1:9', DATA_DIR: dataDir }),
    );
    const response = await app.request('/api/auth/login');
    // The registration keeps the client's secret there: made for this user only (a 0755 ./data
    // made by the client was what the provider then warned about at npm start).
    for (const dir of [dataDir, join(dataDir, '..')]) expect((statSync(dir).mode & 0o777).toString(8)).toBe('700');
    // The provider is unreachable here, so login ends at / with an error, but the session cookie policy shows.
    expect(response.status).toBe(302);
    expect(new URL(response.headers.get('location') as string, 'http://x').searchParams.get('error')).toBe(
      'provider_unavailable',
    );
    const me = await app.request('/api/auth/me');
    expect(me.status).toBe(401);
  });
});
