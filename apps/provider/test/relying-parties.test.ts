/**
 * What stock relying parties need, over real HTTP against the real provider: registration as
 * oidc-agent sends it (no auth method, then HTTP Basic with an empty secret), one rule for
 * unsupported scopes (registration, authorization, refresh), the email scope, the
 * chain-independent subject (subject_chain) and back-channel logout to two clients of one session.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp, loadConfig } from '@signet/provider';
import { runCli } from '@signet/provider/cli';
import { CookieJar, request, startInteraction, startTestProvider, walletSignIn } from '@signet/testkit';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REDIRECT_URI = 'http://localhost:4242';
const basic = (id: string, secret = '') => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

type Discovery = Record<string, unknown> & {
  registration_endpoint: string;
  authorization_endpoint: string;
  token_endpoint: string;
  userinfo_endpoint: string;
  introspection_endpoint: string;
  revocation_endpoint: string;
  end_session_endpoint: string;
  jwks_uri: string;
};

/** A provider, its discovery document, and the raw requests a stock client makes. */
async function harness(env: Record<string, string> = {}) {
  const provider = await startTestProvider(env);
  const discovery = (await (await fetch(`${provider.url}/.well-known/openid-configuration`)).json()) as Discovery;

  async function register(metadata: Record<string, unknown>) {
    const response = await fetch(discovery.registration_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT_URI], ...metadata }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> & { client_id: string } };
  }

  async function token(params: Record<string, string>, authorization?: string) {
    const response = await fetch(discovery.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization ? { authorization } : {}) },
      body: new URLSearchParams(params),
    });
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  }

  /** The code exchange of a public client (client_id in the body, PKCE). */
  const exchange = (clientId: string, { code, verifier }: { code: string; verifier: string }) =>
    token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier, client_id: clientId });

  /** An authorization request of `clientId` to this provider (REDIRECT_URI, code flow). */
  function authorizationUrl(clientId: string, params: Record<string, string>) {
    const url = new URL(discovery.authorization_endpoint);
    url.search = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      ...params,
    }).toString();
    return url;
  }

  /** Authorization with PKCE, a wallet signature, and the code; `jar` keeps one provider session. */
  async function signIn(
    clientId: string,
    {
      scope = 'openid profile',
      signer = privateKeyToAccount(generatePrivateKey()),
      chainId,
      jar = new CookieJar(),
      extra = {},
    }: {
      scope?: string;
      signer?: ReturnType<typeof privateKeyToAccount>;
      chainId?: number;
      jar?: CookieJar;
      extra?: Record<string, string>;
    } = {},
  ) {
    const verifier = oidc.randomPKCECodeVerifier();
    const url = authorizationUrl(clientId, {
      scope,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...extra,
    });
    const { callbackUrl, details } = await walletSignIn({ authorizationUrl: url, signer, chainId, jar });
    const code = callbackUrl.searchParams.get('code');
    if (!code) throw new Error(`no code: ${callbackUrl}`);
    return { code, verifier, details, signer, jar };
  }

  return { provider, discovery, register, token, exchange, signIn, authorizationUrl };
}

describe('stock dynamic registration: oidc-agent registers without an auth method, then sends HTTP Basic with an empty secret', () => {
  let h: Awaited<ReturnType<typeof harness>>;
  beforeAll(async () => {
    h = await harness();
  });
  afterAll(() => h?.provider.stop());

  it('a public client authenticating with its id and an empty secret is a public client: code, refresh, revocation work', async () => {
    const { status, body: client } = await h.register({
      client_name: 'oidc-agent:signet',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
    expect(status).toBe(201);
    expect(client.token_endpoint_auth_method).toBe('none');
    expect(client.client_secret).toBeUndefined();

    const { code, verifier } = await h.signIn(client.client_id, {
      scope: 'openid profile offline_access',
      extra: { prompt: 'consent' },
    });
    const exchanged = await h.token(
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier },
      basic(client.client_id),
    );
    expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
    expect(exchanged.body.refresh_token).toBeTruthy();

    const renewed = await h.token(
      { grant_type: 'refresh_token', refresh_token: exchanged.body.refresh_token as string },
      basic(client.client_id),
    );
    expect(renewed.status, JSON.stringify(renewed.body)).toBe(200);
    expect(renewed.body.access_token).toBeTruthy();

    const revoked = await fetch(h.discovery.revocation_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(client.client_id) },
      body: new URLSearchParams({ token: renewed.body.refresh_token as string }),
    });
    expect(revoked.status).toBe(200);
  });

  it('…and still needs PKCE: no code_challenge is refused at authorization, a wrong verifier at the token endpoint', async () => {
    const { body: client } = await h.register({});
    const { code } = await h.signIn(client.client_id);
    const url = h.authorizationUrl(client.client_id, { scope: 'openid' });
    // From a browser that has not signed in to this client, the error is a page of the provider's
    // (redirects/unused-clients.ts), with the error and a link onward.
    const refused = await fetch(url, { redirect: 'manual' });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('location')).toBeNull();
    const page = await refused.text();
    expect(page).toContain('invalid_request');
    expect(page).toMatch(/PKCE/);

    const wrong = await h.token(
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: oidc.randomPKCECodeVerifier() },
      basic(client.client_id),
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
  });

  it('a confidential client sending an empty secret is still refused, and so is Basic naming another client than client_id', async () => {
    const { body: confidential } = await h.register({ token_endpoint_auth_method: 'client_secret_basic' });
    const { code, verifier } = await h.signIn(confidential.client_id);
    const empty = await h.token(
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier },
      basic(confidential.client_id),
    );
    expect(empty.status).toBe(400);
    expect(empty.body.error).toBe('invalid_request');

    const { body: publicClient } = await h.register({});
    const other = await h.signIn(publicClient.client_id);
    const mismatch = await h.token(
      {
        grant_type: 'authorization_code',
        code: other.code,
        redirect_uri: REDIRECT_URI,
        code_verifier: other.verifier,
        client_id: confidential.client_id,
      },
      basic(publicClient.client_id),
    );
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error).toBe('invalid_request');
  });
});

describe.each([
  ['hosted', 'openid profile offline_access made_up', 'openid profile offline_access'],
  ['self-hosted', 'openid profile offline_access made_up', 'openid profile offline_access'],
] as const)('scope values the %s profile does not support are dropped everywhere', (profile, asked, kept) => {
  let h: Awaited<ReturnType<typeof harness>>;
  beforeAll(async () => {
    h = await harness({ PROFILE: profile });
  });
  afterAll(() => h?.provider.stop());

  it(`registration (${asked} → ${kept}), authorization and refresh; a supported scope that was not granted is refused at refresh`, async () => {
    const { status, body: client } = await h.register({
      scope: asked,
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
    });
    expect(status, JSON.stringify(client)).toBe(201);
    expect(client.scope).toBe(kept);

    // offline_access is honoured on self-hosted only with prompt=consent (the signature is the consent).
    const { code, verifier, details } = await h.signIn(client.client_id, {
      scope: asked,
      extra: profile === 'self-hosted' ? { prompt: 'consent' } : {},
    });
    // oidc-provider keeps offline_access only with prompt=consent (and hosted needs neither).
    expect(details.scopes).toEqual(profile === 'self-hosted' ? kept.split(' ') : ['openid', 'profile']);
    const tokens = await h.exchange(client.client_id, { code: code, verifier: verifier });
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect(tokens.body.scope?.split(' ')).not.toContain('made_up');

    const renewed = await h.token({
      grant_type: 'refresh_token',
      refresh_token: tokens.body.refresh_token as string,
      scope: asked,
      client_id: client.client_id,
    });
    expect(renewed.status, JSON.stringify(renewed.body)).toBe(200);

    const notGranted = await h.token({
      grant_type: 'refresh_token',
      refresh_token: renewed.body.refresh_token as string,
      scope: 'openid siwe',
      client_id: client.client_id,
    });
    expect(notGranted.status).toBe(400);
    expect(notGranted.body.error).toBe('invalid_scope');
  });
});

describe('the email scope', () => {
  it('self-hosted advertises it by default; hosted keeps its exact discovery values unless EMAIL_SCOPE=true', async () => {
    for (const [env, hasEmail] of [
      [{}, true],
      [{ EMAIL_SCOPE: 'false' }, false],
      [{ PROFILE: 'hosted' }, false],
      [{ PROFILE: 'hosted', EMAIL_SCOPE: 'true' }, true],
    ] as const) {
      const { provider, discovery } = await harness(env);
      await provider.stop();
      expect({ env, scope: (discovery.scopes_supported as string[]).includes('email') }).toEqual({ env, scope: hasEmail });
      expect({ env, claims: (discovery.claims_supported as string[]).filter((c) => c.startsWith('email')) }).toEqual({
        env,
        claims: hasEmail ? ['email', 'email_verified'] : [],
      });
      if (env.PROFILE === 'hosted') {
        // The spec table's scopes, with email only when asked.
        expect(discovery.scopes_supported).toEqual(hasEmail ? ['openid', 'profile', 'email'] : ['openid', 'profile']);
      }
    }
  });

  it('the wallets scope and the wallet, wallets claims: advertised by default on self-hosted, on hosted only with ADVERTISE_WALLETS_SCOPE=true', async () => {
    for (const [env, advertised] of [
      [{}, true],
      [{ ADVERTISE_WALLETS_SCOPE: 'false' }, false],
      [{ PROFILE: 'hosted' }, false],
      [{ PROFILE: 'hosted', ADVERTISE_WALLETS_SCOPE: 'true' }, true],
      [{ PROFILE: 'hosted', ADVERTISE_WALLETS_SCOPE: 'true', EMAIL_SCOPE: 'true' }, true],
    ] as const) {
      const { provider, discovery } = await harness(env);
      await provider.stop();
      const scopes = discovery.scopes_supported as string[];
      const claims = discovery.claims_supported as string[];
      expect({ env, scope: scopes.includes('wallets') }).toEqual({ env, scope: advertised });
      expect({ env, claims: claims.filter((c) => c === 'wallet' || c === 'wallets') }).toEqual({
        env,
        claims: advertised ? ['wallet', 'wallets'] : [],
      });
      if (env.PROFILE === 'hosted') {
        // The table's values first, each extension added once, in the order turned on.
        expect(scopes).toEqual([
          'openid',
          'profile',
          ...(advertised ? ['wallets'] : []),
          ...('EMAIL_SCOPE' in env ? ['email'] : []),
        ]);
      }
    }
  });

  it('a synthetic address set by the operator: <address>@<domain>, unverified; the page says so; registration cannot set it', async () => {
    const clientsFile = join(tmpdir(), `signet-email-clients-${process.pid}-${Date.now()}.json`);
    writeFileSync(
      clientsFile,
      JSON.stringify([
        {
          client_id: 'grafana',
          redirect_uris: [REDIRECT_URI],
          client_name: 'Grafana',
          synthetic_email_domain: 'wallet.example.com',
        },
        { client_id: 'plain', redirect_uris: [REDIRECT_URI], client_name: 'Plain' },
      ]),
    );
    const h = await harness({ CLIENTS_FILE: clientsFile });
    try {
      const { code, verifier, details, signer, jar } = await h.signIn('grafana', { scope: 'openid profile email' });
      expect(details.email).toEqual({ ens: false, syntheticDomain: 'wallet.example.com' });
      const tokens = await h.exchange('grafana', { code: code, verifier: verifier });
      const claims = decodeJwt(tokens.body.id_token as string);
      expect(claims.email).toBe(`${signer.address.toLowerCase()}@wallet.example.com`);
      expect(claims.email_verified).toBe(false);
      const userinfo = (await (
        await fetch(h.discovery.userinfo_endpoint, { headers: { authorization: `Bearer ${tokens.body.access_token}` } })
      ).json()) as Record<string, unknown>;
      expect(userinfo).toMatchObject({ email: claims.email, email_verified: false });

      // The page, before signing, in words.
      const page = await request(jar, await startInteraction(jar, await pageOf(h, 'grafana', 'openid email')), {
        headers: { accept: 'text/html' },
      });
      expect(await page.text()).toContain('an address made from your Ethereum address, 0x…@wallet.example.com (not a mailbox)');

      // A client that did not opt in gets no email, even with the scope.
      const plain = await h.signIn('plain', { scope: 'openid email' });
      expect(plain.details.email).toBeUndefined();
      const plainTokens = await h.exchange('plain', { code: plain.code, verifier: plain.verifier });
      expect(decodeJwt(plainTokens.body.id_token as string).email).toBeUndefined();

      for (const metadata of [
        { synthetic_email_domain: 'wallet.example.com' },
        { ens_email: 'yes' },
        { synthetic_email_domain: 'Not a domain' },
      ]) {
        const refused = await h.register(metadata);
        expect({ metadata, status: refused.status, error: refused.body.error }).toEqual({
          metadata,
          status: 400,
          error: 'invalid_client_metadata',
        });
      }
      const optedIn = await h.register({ ens_email: true });
      expect(optedIn.status).toBe(201);
      expect(optedIn.body.ens_email).toBe(true);
    } finally {
      await h.provider.stop();
    }
  });
});

describe('the email scope: the operator channels', () => {
  it('signet clients add --synthetic-email-domain / --ens-email; a pairwise client cannot have a synthetic address', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'signet-email-cli-'));
    try {
      const env = { STORAGE_URL: `sqlite:${join(dir, 'signet.db')}`, LOG_LEVEL: 'silent' };
      const out: string[] = [];
      expect(
        await runCli(
          [
            'clients',
            'add',
            '--redirect-uri',
            REDIRECT_URI,
            '--synthetic-email-domain',
            'wallet.example.com',
            '--ens-email',
            '--json',
          ],
          env,
          (line) => out.push(line),
        ),
      ).toBe(0);
      const { client_id } = JSON.parse(out.pop() as string) as { client_id: string };
      const h = await harness(env);
      try {
        const { code, verifier, signer } = await h.signIn(client_id, { scope: 'openid email' });
        const tokens = await h.exchange(client_id, { code: code, verifier: verifier });
        // No ENS name here: the synthetic address.
        expect(decodeJwt(tokens.body.id_token as string)).toMatchObject({
          email: `${signer.address.toLowerCase()}@wallet.example.com`,
          email_verified: false,
        });
      } finally {
        await h.provider.stop();
      }

      const file = join(dir, 'clients.json');
      writeFileSync(
        file,
        JSON.stringify([
          {
            client_id: 'p',
            client_secret: 'a-secret-of-some-length',
            redirect_uris: [REDIRECT_URI],
            subject_type: 'pairwise',
            synthetic_email_domain: 'wallet.example.com',
          },
        ]),
      );
      const config = loadConfig({ PROFILE: 'hosted', CLIENTS_FILE: file, STORAGE_URL: 'memory:', LOG_LEVEL: 'silent' });
      await expect(buildApp(config, { keyRefreshMs: 0 })).rejects.toThrow(
        /CLIENTS_FILE: entry 0 \(client_id p\): synthetic_email_domain names the address/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The wallet page's URL for a new authorization of `clientId` in `jar`'s session. */
async function pageOf(h: Awaited<ReturnType<typeof harness>>, clientId: string, scope: string) {
  return h.authorizationUrl(clientId, {
    scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
    prompt: 'login',
  });
}

describe('the chain-independent subject (subject_chain)', () => {
  let h: Awaited<ReturnType<typeof harness>>;
  beforeAll(async () => {
    h = await harness({ PROFILE: 'hosted', CHAIN_IDS: '1,8453' });
  });
  afterAll(() => h?.provider.stop());

  async function subjects(clientId: string, secret: string, signer: ReturnType<typeof privateKeyToAccount>, chainId: number) {
    const { code, verifier } = await h.signIn(clientId, { signer, chainId });
    const tokens = await h.token(
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier },
      basic(clientId, secret),
    );
    const idToken = decodeJwt(tokens.body.id_token as string).sub;
    const userinfo = (
      (await (
        await fetch(h.discovery.userinfo_endpoint, { headers: { authorization: `Bearer ${tokens.body.access_token}` } })
      ).json()) as { sub: string }
    ).sub;
    const introspection = (
      (await (
        await fetch(h.discovery.introspection_endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(clientId, secret) },
          body: new URLSearchParams({ token: tokens.body.access_token as string }),
        })
      ).json()) as { sub: string }
    ).sub;
    return { idToken, userinfo, introspection, idTokenRaw: tokens.body.id_token as string };
  }

  it('"any": one EOA is eip155:0:<address> on every chain, in the ID token, userinfo and introspection; the default keeps the signed chain', async () => {
    const signer = privateKeyToAccount(generatePrivateKey());
    const { body: any } = await h.register({ subject_chain: 'any' });
    const { body: signed } = await h.register({});
    expect(any.subject_chain).toBe('any');
    const expected = `eip155:0:${signer.address}`;
    for (const chainId of [1, 8453]) {
      const got = await subjects(any.client_id, any.client_secret as string, signer, chainId);
      expect(got).toMatchObject({ idToken: expected, userinfo: expected, introspection: expected });
      const plain = await subjects(signed.client_id, signed.client_secret as string, signer, chainId);
      expect(plain).toMatchObject({
        idToken: `eip155:${chainId}:${signer.address}`,
        userinfo: `eip155:${chainId}:${signer.address}`,
        introspection: `eip155:${chainId}:${signer.address}`,
      });
    }
  });

  it('pairwise stays pairwise: one value across chains with "any", one per chain without', async () => {
    const signer = privateKeyToAccount(generatePrivateKey());
    const { body: any } = await h.register({ subject_chain: 'any', subject_type: 'pairwise' });
    const { body: signed } = await h.register({ subject_type: 'pairwise' });
    const [anyOn1, anyOn8453, signedOn1, signedOn8453] = [
      await subjects(any.client_id, any.client_secret as string, signer, 1),
      await subjects(any.client_id, any.client_secret as string, signer, 8453),
      await subjects(signed.client_id, signed.client_secret as string, signer, 1),
      await subjects(signed.client_id, signed.client_secret as string, signer, 8453),
    ];
    expect(anyOn1.idToken).toBe(anyOn8453.idToken);
    expect(anyOn1.introspection).toBe(anyOn1.idToken);
    expect(anyOn1.idToken).not.toContain(signer.address);
    expect(signedOn1.idToken).not.toBe(signedOn8453.idToken);
  });

  it('prompt=none with the id_token_hint of an "any" client finds the same person (no login_required)', async () => {
    const signer = privateKeyToAccount(generatePrivateKey());
    const { body: any } = await h.register({ subject_chain: 'any' });
    const jar = new CookieJar();
    const first = await h.signIn(any.client_id, { signer, jar, chainId: 8453 });
    const tokens = await h.token(
      { grant_type: 'authorization_code', code: first.code, redirect_uri: REDIRECT_URI, code_verifier: first.verifier },
      basic(any.client_id, any.client_secret as string),
    );
    const url = h.authorizationUrl(any.client_id, {
      scope: 'openid',
      prompt: 'none',
      id_token_hint: tokens.body.id_token as string,
    });
    let location = new URL((await request(jar, url)).headers.get('location') as string, url);
    while (location.origin === new URL(h.provider.url).origin) {
      location = new URL((await request(jar, location)).headers.get('location') as string, location);
    }
    expect(location.searchParams.get('error')).toBeNull();
    expect(location.searchParams.get('code')).toBeTruthy();
  });

  it('a value other than "signed" or "any" is refused at registration', async () => {
    const refused = await h.register({ subject_chain: 'all' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: 'invalid_client_metadata' });
    expect(String(refused.body.error_description)).toContain('subject_chain');
  });
});

/** A relying party's back-channel logout endpoint: records every logout token it is sent. */
async function logoutReceiver(): Promise<{ url: string; server: Server; tokens: string[]; next(): Promise<string> }> {
  const tokens: string[] = [];
  const waiting: ((token: string) => void)[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const token = new URLSearchParams(body).get('logout_token');
      if (req.method === 'POST' && req.headers['content-type'] === 'application/x-www-form-urlencoded' && token) {
        tokens.push(token);
        waiting.shift()?.(token);
      }
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/backchannel-logout`;
  return {
    url,
    server,
    tokens,
    next: () =>
      tokens.length > waiting.length ? Promise.resolve(tokens[waiting.length] as string) : new Promise((r) => waiting.push(r)),
  };
}

describe('back-channel logout', () => {
  it('discovery advertises it; an http or private backchannel_logout_uri is refused unless ALLOW_PRIVATE_FETCH', async () => {
    const h = await harness();
    try {
      expect(h.discovery.backchannel_logout_supported).toBe(true);
      expect(h.discovery.backchannel_logout_session_supported).toBe(true);
      for (const uri of [
        'http://127.0.0.1:9/logout',
        'https://127.0.0.1/logout',
        'https://localhost/logout',
        'http://rp.example/logout',
      ]) {
        const refused = await h.register({ backchannel_logout_uri: uri });
        expect({ uri, status: refused.status, error: refused.body.error }).toEqual({
          uri,
          status: 400,
          error: 'invalid_client_metadata',
        });
      }
      const accepted = await h.register({ backchannel_logout_uri: 'https://rp.example/logout' });
      expect(accepted.status).toBe(201);
      expect(accepted.body.backchannel_logout_uri).toBe('https://rp.example/logout');
    } finally {
      await h.provider.stop();
    }
  });

  describe('two clients in one session', () => {
    let h: Awaited<ReturnType<typeof harness>>;
    let a: Awaited<ReturnType<typeof logoutReceiver>>;
    let b: Awaited<ReturnType<typeof logoutReceiver>>;
    beforeAll(async () => {
      [h, a, b] = await Promise.all([harness({ ALLOW_PRIVATE_FETCH: 'true' }), logoutReceiver(), logoutReceiver()]);
    });
    afterAll(async () => {
      await h?.provider.stop();
      a?.server.close();
      b?.server.close();
    });

    it('signing out at Signet POSTs a logout token to each, with the sub each was given and the sid when asked', async () => {
      const { body: clientA } = await h.register({
        backchannel_logout_uri: a.url,
        post_logout_redirect_uris: ['http://localhost:4242/bye'],
      });
      const { body: clientB } = await h.register({
        backchannel_logout_uri: b.url,
        backchannel_logout_session_required: true,
        subject_chain: 'any',
      });
      const signer = privateKeyToAccount(generatePrivateKey());
      const jar = new CookieJar();
      const idTokens: Record<string, Record<string, unknown> & { raw: string }> = {};
      for (const client of [clientA, clientB]) {
        const { code, verifier } = await h.signIn(client.client_id, { signer, jar });
        const tokens = await h.exchange(client.client_id, { code: code, verifier: verifier });
        idTokens[client.client_id] = { ...decodeJwt(tokens.body.id_token as string), raw: tokens.body.id_token as string };
      }
      expect(idTokens[clientB.client_id]?.sub).toBe(`eip155:0:${signer.address}`);
      expect(idTokens[clientB.client_id]?.sid).toBeTruthy();

      const end = new URL(h.discovery.end_session_endpoint);
      end.search = new URLSearchParams({
        id_token_hint: idTokens[clientA.client_id]?.raw as string,
        post_logout_redirect_uri: 'http://localhost:4242/bye',
      }).toString();
      const confirmation = await (await request(jar, end)).text();
      const xsrf = /name="xsrf" value="([^"]+)"/.exec(confirmation)?.[1] as string;
      const action = /action="([^"]+)"/.exec(confirmation)?.[1] as string;
      const done = await request(jar, new URL(action, h.provider.url), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ xsrf, logout: 'yes' }),
      });
      expect(done.status).toBe(303);

      const keys = createRemoteJWKSet(new URL(h.discovery.jwks_uri));
      for (const [receiver, client] of [
        [a, clientA],
        [b, clientB],
      ] as const) {
        const { payload, protectedHeader } = await jwtVerify(await receiver.next(), keys, {
          issuer: h.provider.issuer,
          audience: client.client_id,
        });
        expect(protectedHeader.typ).toBe('logout+jwt');
        expect(payload.events).toEqual({ 'http://schemas.openid.net/event/backchannel-logout': {} });
        expect(payload.sub).toBe(idTokens[client.client_id]?.sub);
        expect(payload.nonce).toBeUndefined();
        if (client === clientB) expect(payload.sid).toBe(idTokens[clientB.client_id]?.sid);
      }
      expect(a.tokens).toHaveLength(1);
      expect(b.tokens).toHaveLength(1);
    });
  });
});
