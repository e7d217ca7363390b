import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp, loadConfig, SettingsError } from '@signet/provider';
import { runCli } from '@signet/provider/cli';
import {
  CookieJar,
  followToClient,
  insecure,
  pkceAuthorization,
  TEST_REDIRECT_URI as REDIRECT_URI,
  registerPublicClient,
  request,
  startTestProvider,
  walletSignIn,
} from '@signet/testkit';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'signet-persist-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function signIn(config: oidc.Configuration, signer = privateKeyToAccount(generatePrivateKey()), jar = new CookieJar()) {
  const { url, verifier } = await pkceAuthorization(config, { scope: 'openid profile' });
  const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer, jar });
  const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier });
  return { tokens, signer, jar };
}

describe('restart with SQLite: nothing is lost', () => {
  it('clients, signing keys, sessions and live access tokens survive a restart on the same port', async () => {
    const file = join(dir, 'restart.db');
    const first = await startTestProvider({ STORAGE_URL: `sqlite:${file}` });
    const port = new URL(first.url).port;
    const client = await registerPublicClient(first.url);
    const jwksBefore = await (await fetch(`${first.url}/jwks`)).json();
    const { tokens, signer, jar } = await signIn(client);
    await first.stop();
    // Let the HTTP client notice that its kept-alive connections to the old process closed.
    await new Promise((resolve) => setTimeout(resolve, 100));

    const second = await startTestProvider({ STORAGE_URL: `sqlite:${file}`, PORT: port, ISSUER: `http://localhost:${port}` });
    try {
      expect(second.url).toBe(first.url);
      expect(await (await fetch(`${second.url}/jwks`)).json()).toEqual(jwksBefore);
      // The access token issued before the restart still works.
      const sub = `eip155:1:${signer.address}`;
      expect(await oidc.fetchUserInfo(client, tokens.access_token, sub)).toMatchObject({ sub });
      // The ID token from before still verifies against the key set after.
      const jwks = createRemoteJWKSet(new URL(`${second.url}/jwks`));
      await expect(jwtVerify(tokens.id_token as string, jwks, { issuer: second.issuer })).resolves.toBeTruthy();
      // The client registered before the restart can still be used, and the session signs in silently.
      const { url: again } = await pkceAuthorization(client, { scope: 'openid profile' });
      const silent = await request(jar, again);
      expect(silent.status).toBe(303);
      expect(new URL(silent.headers.get('location') as string).searchParams.get('code')).toBeTruthy();
    } finally {
      await second.stop();
    }
  });
});

describe('signing key rotation', () => {
  it('a rotated key signs new tokens; the old one stays in the JWKS, so earlier tokens still verify', async () => {
    const file = join(dir, 'rotate.db');
    const provider = await startTestProvider({ STORAGE_URL: `sqlite:${file}` });
    try {
      const client = await registerPublicClient(provider.url);
      const before = await signIn(client);
      const oldKid = decodeProtectedHeader(before.tokens.id_token as string).kid;

      const lines: string[] = [];
      expect(
        await runCli(
          ['keys', 'rotate', '--json'],
          { STORAGE_URL: `sqlite:${file}`, ISSUER: provider.url, LOG_LEVEL: 'silent' },
          (l) => lines.push(l),
        ),
      ).toBe(0);
      const { signing, retired } = JSON.parse(lines[0] as string);
      expect(retired).toEqual([oldKid]);
      expect(await provider.app.reloadKeys()).toBe(true);

      const jwks = await (await fetch(`${provider.url}/jwks`)).json();
      expect(jwks.keys.map((k: { kid: string }) => k.kid)).toEqual([signing, oldKid]);
      expect(jwks.keys.every((k: Record<string, unknown>) => !('d' in k) && !('p' in k))).toBe(true);

      const after = await signIn(client);
      expect(decodeProtectedHeader(after.tokens.id_token as string).kid).toBe(signing);
      const set = createRemoteJWKSet(new URL(`${provider.url}/jwks`));
      await expect(jwtVerify(before.tokens.id_token as string, set, { issuer: provider.issuer })).resolves.toBeTruthy();
    } finally {
      await provider.stop();
    }
  });
});

describe('pre-registered clients (CLIENTS_FILE) and the CLI', () => {
  it('a client from CLIENTS_FILE signs in with client_secret_basic', async () => {
    const file = join(dir, 'clients.json');
    writeFileSync(
      file,
      JSON.stringify([
        {
          client_id: 'static-rp',
          client_secret: 'a-long-static-secret-of-at-least-32-chars',
          redirect_uris: [REDIRECT_URI],
          client_name: 'Static RP',
        },
      ]),
    );
    const provider = await startTestProvider({ CLIENTS_FILE: file });
    try {
      const client = await oidc.discovery(
        new URL(provider.url),
        'static-rp',
        'a-long-static-secret-of-at-least-32-chars',
        oidc.ClientSecretBasic(),
        insecure,
      );
      const url = oidc.buildAuthorizationUrl(client, { redirect_uri: REDIRECT_URI, scope: 'openid' });
      const signer = privateKeyToAccount(generatePrivateKey());
      const { callbackUrl, details } = await walletSignIn({ authorizationUrl: url, signer });
      expect(details.client.client_name).toBe('Static RP');
      const tokens = await oidc.authorizationCodeGrant(client, callbackUrl);
      expect(tokens.claims()?.sub).toBe(`eip155:1:${signer.address}`);
    } finally {
      await provider.stop();
    }
  });

  it.each([
    ['not JSON', '{', /CLIENTS_FILE: .* is not valid JSON/],
    ['not an array', '{}', /CLIENTS_FILE: .* must hold a JSON array/],
    ['an entry without client_id', '[{"redirect_uris":["https://a.example/cb"]}]', /CLIENTS_FILE: entry 0 has no client_id/],
    [
      'a duplicate client_id',
      '[{"client_id":"a","redirect_uris":["https://a.example/cb"]},{"client_id":"a","redirect_uris":["https://a.example/cb"]}]',
      /client_id a appears twice/,
    ],
  ])('refuses to start with a CLIENTS_FILE that is %s', (_name, content, message) => {
    const file = join(dir, `bad-${Math.random()}.json`);
    writeFileSync(file, content);
    expect(() => loadConfig({ CLIENTS_FILE: file })).toThrow(message);
  });

  it('refuses to start with a client whose metadata is invalid, naming the entry', async () => {
    const file = join(dir, 'invalid-client.json');
    writeFileSync(
      file,
      JSON.stringify([
        { client_id: 'ok', token_endpoint_auth_method: 'none', redirect_uris: ['https://a.example/cb'] },
        { client_id: 'bad', token_endpoint_auth_method: 'none', redirect_uris: ['http://public.example/cb'] },
      ]),
    );
    const config = loadConfig({ CLIENTS_FILE: file, STORAGE_URL: 'memory:', LOG_LEVEL: 'silent' });
    await expect(buildApp(config, { keyRefreshMs: 0 })).rejects.toThrow(/CLIENTS_FILE: entry 1 \(client_id bad\): redirect_uris/);
  });

  it('clients add / list / remove manage clients in storage, validated like registrations', async () => {
    const file = join(dir, 'cli.db');
    const env = { STORAGE_URL: `sqlite:${file}`, LOG_LEVEL: 'silent' };
    const out: string[] = [];
    const print = (line: string) => out.push(line);
    expect(
      await runCli(['clients', 'add', '--redirect-uri', REDIRECT_URI, '--name', 'CLI RP', '--secret', '--json'], env, print),
    ).toBe(0);
    const added = JSON.parse(out.pop() as string);
    expect(added.client_secret).toEqual(expect.any(String));
    await expect(runCli(['clients', 'add', '--redirect-uri', 'http://public.example/cb'], env, print)).rejects.toThrow(
      /redirect_uris/,
    );
    // An https URL as client_id names a metadata document, never a stored client.
    await expect(
      runCli(['clients', 'add', '--redirect-uri', REDIRECT_URI, '--id', 'https://app.example/client.json'], env, print),
    ).rejects.toThrow(/--id may not be an https URL/);

    // The running provider (another process would do the same) knows the client at once.
    const provider = await startTestProvider({ STORAGE_URL: `sqlite:${file}` });
    try {
      const client = await oidc.discovery(
        new URL(provider.url),
        added.client_id,
        added.client_secret,
        oidc.ClientSecretBasic(),
        insecure,
      );
      const url = oidc.buildAuthorizationUrl(client, { redirect_uri: REDIRECT_URI, scope: 'openid' });
      const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer: privateKeyToAccount(generatePrivateKey()) });
      await expect(oidc.authorizationCodeGrant(client, callbackUrl)).resolves.toHaveProperty('access_token');
    } finally {
      await provider.stop();
    }

    expect(await runCli(['clients', 'list', '--json'], env, print)).toBe(0);
    expect(JSON.parse(out.pop() as string)).toEqual([
      expect.objectContaining({ client_id: added.client_id, client_name: 'CLI RP', auth: 'client_secret_basic' }),
    ]);
    expect(await runCli(['clients', 'remove', added.client_id], env, print)).toBe(0);
    expect(await runCli(['clients', 'list', '--json'], env, print)).toBe(0);
    expect(JSON.parse(out.pop() as string)).toEqual([]);
  });
});

describe('settings are validated once, at start, naming the variable', () => {
  it.each([
    [{ PORT: '70000' }, /^PORT: must be a whole number from 1 to 65535/],
    [{ PORT: 'abc' }, /^PORT:/],
    [{ ISSUER: 'ftp://x.example' }, /^ISSUER:/],
    [{ ISSUER: 'https://x.example/path' }, /^ISSUER:/],
    [{ PROFILE: 'cloud' }, /^PROFILE: must be one of self-hosted, hosted/],
    [{ STORAGE_URL: 'postgres://x' }, /^STORAGE_URL:/],
    [{ ETH_RPC_URL: 'not a url' }, /^ETH_RPC_URL:/],
    [{ RPC_URLS: '137' }, /^RPC_URLS:/],
    [{ CHAIN_IDS: '1,abc' }, /^CHAIN_IDS:/],
    [{ SOLANA_NETWORKS: 'mainnet,localnet' }, /^SOLANA_NETWORKS: must be a comma-separated list of mainnet, devnet, testnet/],
    [{ SOLANA_NETWORKS: 'solana:mainnet' }, /^SOLANA_NETWORKS:/],
    [{ COOKIE_KEYS: 'short' }, /^COOKIE_KEYS:/],
    [{ TRUST_PROXY: 'maybe' }, /^TRUST_PROXY:/],
    [{ EMAIL_SCOPE: 'maybe' }, /^EMAIL_SCOPE: must be true or false/],
    [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL:/],
    [{ SIWE_STATEMENT: 'Say "hi"' }, /^SIWE_STATEMENT:/],
    [{ ENS_UNIVERSAL_RESOLVER: '0x12' }, /^ENS_UNIVERSAL_RESOLVER:/],
    [{ CLIENTS_FILE: join(dir, 'missing.json') }, /^CLIENTS_FILE: cannot read/],
  ])('%j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(SettingsError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      issuer: 'http://localhost:3000',
      profile: 'self-hosted',
      storage: { kind: 'sqlite', path: './data/signet.db' },
      chainIds: [1],
      solanaNetworks: [],
      trustProxy: false,
      logLevel: 'info',
    });
    expect(loadConfig({ RPC_URLS: '137=https://p.example' }).chainIds).toEqual([1, 137]);
    expect(loadConfig({ SOLANA_NETWORKS: 'devnet, mainnet,devnet' }).solanaNetworks).toEqual(['devnet', 'mainnet']);
    expect(loadConfig({ PROFILE: 'hosted', ISSUER: 'https://id.example.com' }).issuer).toBe('https://id.example.com/');
  });
});

describe('operations: metrics token', () => {
  it('with METRICS_TOKEN, /metrics needs it as a Bearer token', async () => {
    const provider = await startTestProvider({ METRICS_TOKEN: 'metrics-token-0123456789' });
    try {
      expect((await fetch(`${provider.url}/metrics`)).status).toBe(401);
      expect(
        (await fetch(`${provider.url}/metrics`, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status,
      ).toBe(401);
      const ok = await fetch(`${provider.url}/metrics`, { headers: { authorization: 'Bearer metrics-token-0123456789' } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('signet_sign_ins_total');
    } finally {
      await provider.stop();
    }
  });
});

describe('operations', () => {
  it('health reports storage; metrics count sign-ins; logout ends the session at the registered URI', async () => {
    const provider = await startTestProvider();
    try {
      expect(await (await fetch(`${provider.url}/health`)).json()).toMatchObject({ status: 'ok', storage: 'ok' });
      const client = await oidc.dynamicClientRegistration(
        new URL(provider.url),
        {
          redirect_uris: [REDIRECT_URI],
          post_logout_redirect_uris: ['http://127.0.0.1:4999/bye'],
          token_endpoint_auth_method: 'none',
        },
        oidc.None(),
        insecure,
      );
      const { tokens, jar } = await signIn(client);
      const metrics = await (await fetch(`${provider.url}/metrics`)).text();
      expect(metrics).toMatch(/signet_sign_ins_total\{result="success",method="eoa"\} 1/);
      expect(metrics).toMatch(/signet_siwe_verification_seconds_count\{method="eoa"\} 1/);
      expect(metrics).toMatch(/signet_tokens_issued_total\{kind="access_token"\} 1/);

      const endSession = oidc.buildEndSessionUrl(client, {
        id_token_hint: tokens.id_token as string,
        post_logout_redirect_uri: 'http://127.0.0.1:4999/bye',
        state: 'bye-state',
      });
      const confirm = await request(jar, endSession);
      expect(confirm.status).toBe(200);
      expect(confirm.headers.get('content-security-policy')).toContain('form-action');
      const page = await confirm.text();
      const xsrf = /name="xsrf" value="([^"]+)"/.exec(page)?.[1];
      expect(xsrf).toBeTruthy();
      const action = /action="([^"]+)"/.exec(page)?.[1] as string;
      const done = await request(jar, new URL(action, provider.url), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ xsrf: xsrf as string, logout: 'yes' }),
      });
      expect(done.status).toBe(303);
      const back = await followToClient(jar, new URL(provider.url), done.headers.get('location') as string);
      expect(`${back.origin}${back.pathname}`).toBe('http://127.0.0.1:4999/bye');
      expect(back.searchParams.get('state')).toBe('bye-state');
      // The session is gone: the next authorization needs a signature again.
      const { url: again } = await pkceAuthorization(client);
      const next = await request(jar, again);
      expect(next.headers.get('location')).toMatch(/\/interaction\//);
    } finally {
      await provider.stop();
    }
  });
});
