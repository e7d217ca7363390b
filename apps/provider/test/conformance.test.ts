/**
 * The OpenID Foundation's OP conformance test plans (Basic, Implicit, Config, Dynamic,
 * RP-initiated logout), module by module, against the real provider over HTTP. The certification
 * suite itself needs the internet and a public issuer; these tests drive the same requests and
 * check the same outcomes. docs/conformance.md maps every module to its test here or elsewhere;
 * test names start with the module name.
 */
import { createHash } from 'node:crypto';
import {
  CookieJar,
  followToClient,
  getDetails,
  messageFor,
  postSignature,
  request,
  startInteraction,
  startTestProvider,
  walletSignIn,
} from '@signet/testkit';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, type JWTPayload, jwtVerify, UnsecuredJWT } from 'jose';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markUsed } from '../src/clients/usage.ts';
import { rotateSigningKeys } from '../src/oidc/keys.ts';

const CALLBACK = 'http://127.0.0.1:4999/callback';
const CALLBACK_QUERY = 'http://127.0.0.1:4999/callback?tenant=a';
const BYE = 'http://127.0.0.1:4999/bye';
/**
 * Self-hosted issues a refresh token for offline_access, which OpenID Connect grants only with
 * prompt=consent; hosted has no offline_access and gives one to any client registered for the
 * refresh_token grant (the unknown scope is ignored there).
 */
const OFFLINE = { scope: 'openid offline_access', prompt: 'consent' };

type Discovery = Record<string, unknown> & {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  userinfo_endpoint: string;
  jwks_uri: string;
  registration_endpoint: string;
  end_session_endpoint: string;
};
type Client = { client_id: string; client_secret?: string };

/** One provider, its discovery document, and the requests a conformance-suite client makes. */
async function harness(env: Record<string, string> = {}) {
  const provider = await startTestProvider(env);
  const discovery = (await (await fetch(discoveryUrl(provider.issuer))).json()) as Discovery;
  const jwks = createRemoteJWKSet(new URL(discovery.jwks_uri));

  async function register(metadata: Record<string, unknown>): Promise<Response> {
    return fetch(discovery.registration_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(metadata),
    });
  }
  async function client(metadata: Record<string, unknown> = {}): Promise<Client> {
    const response = await register({
      redirect_uris: [CALLBACK, CALLBACK_QUERY],
      post_logout_redirect_uris: [BYE],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'client_secret_basic',
      ...metadata,
    });
    expect(response.status, await response.clone().text()).toBe(201);
    const registered = (await response.json()) as Client;
    // The certification suite's clients are the operator's, recorded as `signet clients add`
    // records its clients: error responses then reach them as redirects, as the suite expects. A
    // dynamically registered client gets them only in a browser that has signed in to it
    // (redirects.test.ts; docs/conformance.md).
    await markUsed(provider.app.services.store, registered.client_id, 'operator');
    return registered;
  }
  function authorizationUrl(rp: Client, parameters: Record<string, string | undefined> = {}): URL {
    const url = new URL(discovery.authorization_endpoint);
    const all = {
      client_id: rp.client_id,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid',
      state: 'st',
      nonce: 'n-0S6',
      ...parameters,
    };
    for (const [key, value] of Object.entries(all)) if (value !== undefined) url.searchParams.set(key, value);
    return url;
  }
  async function token(rp: Client, body: Record<string, string>) {
    const basic = Buffer.from(`${encodeURIComponent(rp.client_id)}:${encodeURIComponent(rp.client_secret ?? '')}`).toString(
      'base64',
    );
    const response = await fetch(discovery.token_endpoint, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  }
  async function exchange(rp: Client, callback: URL, redirectUri = CALLBACK) {
    const code = callback.searchParams.get('code');
    expect(code, `no code at ${callback}`).toBeTruthy();
    const answer = await token(rp, { grant_type: 'authorization_code', code: code as string, redirect_uri: redirectUri });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body as { access_token: string; id_token: string; refresh_token?: string };
  }
  async function verifyIdToken(idToken: string, rp: Client) {
    return (await jwtVerify(idToken, jwks, { issuer: discovery.issuer, audience: rp.client_id, algorithms: ['RS256'] })).payload;
  }
  /** A complete sign-in in `jar`; returns the tokens and the verified ID token. */
  async function signIn(
    rp: Client,
    jar = new CookieJar(),
    parameters: Record<string, string | undefined> = {},
    signer = wallet(),
  ) {
    const { callbackUrl } = await walletSignIn({ authorizationUrl: authorizationUrl(rp, parameters), signer, jar });
    const tokens = await exchange(rp, callbackUrl, parameters.redirect_uri);
    return { jar, tokens, idToken: await verifyIdToken(tokens.id_token, rp), signer, callbackUrl };
  }
  return { provider, discovery, jwks, register, client, authorizationUrl, token, exchange, verifyIdToken, signIn };
}

const wallet = () => privateKeyToAccount(generatePrivateKey());
const discoveryUrl = (issuer: string) => `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
const location = (response: Response, base: string) => new URL(response.headers.get('location') ?? 'about:blank', base);
const halfHash = (value: string) => createHash('sha256').update(value).digest().subarray(0, 16).toString('base64url');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An authorization request whose answer is a redirect straight to the client (no interaction). */
async function redirectedToClient(jar: CookieJar, url: URL): Promise<URL> {
  const response = await request(jar, url);
  expect(response.status).toBe(303);
  const target = location(response, url.href);
  expect(target.pathname, `expected a redirect to the client, got ${target}`).not.toMatch(/^\/interaction\//);
  return followToClient(jar, url, target.href);
}

/** An authorization request that needs the wallet: it leads to an interaction. */
async function needsSignature(jar: CookieJar, url: URL): Promise<URL> {
  const interaction = await startInteraction(jar, url);
  expect(interaction.pathname).toMatch(/^\/interaction\//);
  return interaction;
}

/** The provider on `profile` and one relying party registered with require_auth_time. */
function basicHarness(profile: string) {
  let h: Awaited<ReturnType<typeof harness>>;
  let rp: Client;

  beforeAll(async () => {
    h = await harness({ PROFILE: profile });
    // require_auth_time: auth_time in every ID token (without it, only when max_age is asked).
    rp = await h.client({ require_auth_time: true });
  });
  afterAll(() => h?.provider.stop());

  return {
    get h() {
      return h;
    },
    get rp() {
      return rp;
    },
  };
}
type BasicHarness = ReturnType<typeof basicHarness>;

/** OP Basic: the code flow, userinfo and scopes. */
function basicCodeFlowTests(env: BasicHarness) {
  it('oidcc-server: code flow, ID token signed RS256 with iss, aud, exp, iat, nonce, auth_time; userinfo sub matches', async () => {
    const { h, rp } = env;
    const { idToken, tokens, signer } = await h.signIn(rp);
    expect(idToken).toMatchObject({
      sub: `eip155:1:${signer.address}`,
      nonce: 'n-0S6',
      iss: h.discovery.issuer,
      aud: rp.client_id,
    });
    expect(idToken.iat).toEqual(expect.any(Number));
    expect(idToken.exp).toBeGreaterThan(idToken.iat as number);
    expect(idToken.auth_time).toEqual(expect.any(Number));
    const userinfo = await fetch(h.discovery.userinfo_endpoint, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect((await userinfo.json()).sub).toBe(idToken.sub);
  });

  it('oidcc-response-type-missing: an error, never a code', async () => {
    const { h, rp } = env;
    const response = await request(new CookieJar(), h.authorizationUrl(rp, { response_type: undefined }));
    const target = location(response, h.provider.url);
    expect(target.origin + target.pathname).toBe(CALLBACK);
    expect(target.searchParams.get('error')).toBe('invalid_request');
    expect(target.searchParams.get('error_description')).toMatch(/response_type/);
    expect(target.searchParams.get('code')).toBeNull();
  });

  it('oidcc-ensure-redirect-uri-in-authorization-request: without redirect_uri, an error page, never a redirect', async () => {
    const { h, rp } = env;
    const response = await request(new CookieJar(), h.authorizationUrl(rp, { redirect_uri: undefined }));
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toContain('redirect_uri');
  });

  it('oidcc-userinfo-get, oidcc-userinfo-post-header, oidcc-userinfo-post-body: the bearer token in the header (GET, POST) or the form body', async () => {
    const { h, rp } = env;
    const { tokens, idToken } = await h.signIn(rp);
    const asGet = await fetch(h.discovery.userinfo_endpoint, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    const asPostHeader = await fetch(h.discovery.userinfo_endpoint, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    const asPostBody = await fetch(h.discovery.userinfo_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ access_token: tokens.access_token }),
    });
    for (const response of [asGet, asPostHeader, asPostBody]) {
      expect(response.status).toBe(200);
      expect((await response.json()).sub).toBe(idToken.sub);
    }
    // Both at once is refused (RFC 6750 §2: one method per request).
    const both = await fetch(h.discovery.userinfo_endpoint, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ access_token: tokens.access_token }),
    });
    expect(both.status).toBe(400);
  });

  it('oidcc-ensure-request-without-nonce-succeeds-for-code-flow', async () => {
    const { h, rp } = env;
    const { idToken } = await h.signIn(rp, new CookieJar(), { nonce: undefined });
    expect(idToken.nonce).toBeUndefined();
  });

  it('oidcc-scope-profile, oidcc-ensure-other-scope-order-succeeds: profile claims in any scope order', async () => {
    const { h, rp } = env;
    const { idToken, tokens, signer } = await h.signIn(rp, new CookieJar(), { scope: 'profile openid' });
    expect(idToken.preferred_username).toBe(signer.address);
    const userinfo = await (
      await fetch(h.discovery.userinfo_endpoint, { headers: { authorization: `Bearer ${tokens.access_token}` } })
    ).json();
    expect(userinfo).toMatchObject({ sub: idToken.sub, preferred_username: signer.address });
  });

  it('oidcc-scope-email, -address, -phone, -all: unsupported scopes are ignored, the sign-in succeeds without those claims', async () => {
    const { h, rp } = env;
    const { idToken, tokens } = await h.signIn(rp, new CookieJar(), { scope: 'openid email address phone' });
    const userinfo = await (
      await fetch(h.discovery.userinfo_endpoint, { headers: { authorization: `Bearer ${tokens.access_token}` } })
    ).json();
    for (const claims of [idToken, userinfo]) {
      expect(Object.keys(claims)).not.toContain('email');
      expect(Object.keys(claims)).not.toContain('address');
      expect(Object.keys(claims)).not.toContain('phone_number');
    }
  });
}

/** OP Basic: display, prompt, max_age and id_token_hint. */
function basicPromptAndSessionTests(env: BasicHarness) {
  it('oidcc-display-page, oidcc-display-popup, oidcc-login-hint, oidcc-ui-locales, oidcc-claims-locales, oidcc-ensure-request-with-acr-values-succeeds, oidcc-ensure-request-with-unknown-parameter-succeeds', async () => {
    const { h, rp } = env;
    for (const extra of [
      { display: 'page' },
      { display: 'popup' },
      { login_hint: 'vitalik.eth' },
      { ui_locales: 'se fr' },
      { claims_locales: 'se' },
      { acr_values: '1 2' },
      { extra: 'foobar' },
    ]) {
      const { idToken } = await h.signIn(rp, new CookieJar(), extra);
      expect(idToken.sub, JSON.stringify(extra)).toMatch(/^eip155:1:0x/);
    }
  });

  it('oidcc-prompt-none-not-logged-in: login_required at the redirect URI, with the state', async () => {
    const { h, rp } = env;
    const target = await redirectedToClient(new CookieJar(), h.authorizationUrl(rp, { prompt: 'none' }));
    expect(target.origin + target.pathname).toBe(CALLBACK);
    expect(target.searchParams.get('error')).toBe('login_required');
    expect(target.searchParams.get('state')).toBe('st');
  });

  it('oidcc-prompt-none-logged-in: a code without a new signature, the same subject and auth_time', async () => {
    const { h, rp } = env;
    const first = await h.signIn(rp);
    const target = await redirectedToClient(first.jar, h.authorizationUrl(rp, { prompt: 'none' }));
    const tokens = await h.exchange(rp, target);
    const idToken = await h.verifyIdToken(tokens.id_token, rp);
    expect(idToken.sub).toBe(first.idToken.sub);
    expect(idToken.auth_time).toBe(first.idToken.auth_time);
  });

  it('oidcc-prompt-login: a live session still has to sign again, and auth_time moves', async () => {
    const { h, rp } = env;
    const first = await h.signIn(rp);
    await sleep(1100);
    await needsSignature(first.jar, h.authorizationUrl(rp, { prompt: 'login' }));
    const again = await h.signIn(rp, first.jar, { prompt: 'login' }, first.signer);
    expect(again.idToken.sub).toBe(first.idToken.sub);
    expect(again.idToken.auth_time as number).toBeGreaterThan(first.idToken.auth_time as number);
  });

  it('oidcc-max-age-1: an older sign-in needs a fresh signature; oidcc-max-age-10000: a recent one does not', async () => {
    const { h, rp } = env;
    const first = await h.signIn(rp);
    const recent = await redirectedToClient(first.jar, h.authorizationUrl(rp, { max_age: '10000' }));
    const recentToken = await h.verifyIdToken((await h.exchange(rp, recent)).id_token, rp);
    expect(recentToken.auth_time).toBe(first.idToken.auth_time);
    await sleep(2100);
    await needsSignature(first.jar, h.authorizationUrl(rp, { max_age: '1' }));
    const fresh = await h.signIn(rp, first.jar, { max_age: '1' }, first.signer);
    expect(fresh.idToken.auth_time as number).toBeGreaterThan(first.idToken.auth_time as number);
  });

  it('oidcc-id-token-hint: prompt=none with the session’s ID token succeeds; with another account’s, login_required', async () => {
    const { h, rp } = env;
    const first = await h.signIn(rp);
    const same = await redirectedToClient(
      first.jar,
      h.authorizationUrl(rp, { prompt: 'none', id_token_hint: first.tokens.id_token }),
    );
    expect(same.searchParams.get('code')).toBeTruthy();
    const other = await h.signIn(rp);
    const mismatch = await redirectedToClient(
      first.jar,
      h.authorizationUrl(rp, { prompt: 'none', id_token_hint: other.tokens.id_token }),
    );
    expect(mismatch.searchParams.get('error')).toBe('login_required');
  });
}

/** OP Basic: request objects, claims and redirect URIs. */
function basicRequestAndRedirectTests(env: BasicHarness) {
  it('oidcc-unsigned-request-object-supported-correctly-or-rejected-as-unsupported: rejected as unsupported', async () => {
    const { h, rp } = env;
    expect(h.discovery.request_parameter_supported ?? false).toBe(false);
    const requestObject = new UnsecuredJWT({
      client_id: rp.client_id,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid',
    })
      .setIssuer(rp.client_id)
      .setAudience(h.discovery.issuer)
      .encode();
    const target = await redirectedToClient(new CookieJar(), h.authorizationUrl(rp, { request: requestObject }));
    expect(target.searchParams.get('error')).toBe('request_not_supported');
    expect(target.searchParams.get('code')).toBeNull();
  });

  it('oidcc-request-uri-unsigned, oidcc-request-uri-signed-rs256: request_uri rejected as unsupported', async () => {
    const { h, rp } = env;
    expect(h.discovery.request_uri_parameter_supported ?? false).toBe(false);
    const target = await redirectedToClient(
      new CookieJar(),
      h.authorizationUrl(rp, { request_uri: 'https://rp.example/request.jwt' }),
    );
    expect(target.searchParams.get('error')).toBe('request_uri_not_supported');
  });

  it('oidcc-claims-essential: the claims parameter is not supported and is ignored; the sign-in succeeds', async () => {
    const { h, rp } = env;
    expect(h.discovery.claims_parameter_supported ?? false).toBe(false);
    const claims = JSON.stringify({ userinfo: { name: { essential: true } }, id_token: { email: { essential: true } } });
    const { idToken } = await h.signIn(rp, new CookieJar(), { claims });
    expect(idToken.sub).toMatch(/^eip155:/);
    expect(idToken.email).toBeUndefined();
  });

  it('oidcc-redirect-uri-query-OK, -query-mismatch, -query-added: a registered query must match exactly', async () => {
    const { h, rp } = env;
    const { callbackUrl } = await h.signIn(rp, new CookieJar(), { redirect_uri: CALLBACK_QUERY });
    expect(callbackUrl.searchParams.get('tenant')).toBe('a');
    expect(callbackUrl.searchParams.get('code')).toBeTruthy();
    for (const redirectUri of [
      'http://127.0.0.1:4999/callback?tenant=b',
      'http://127.0.0.1:4999/callback?tenant=a&x=1',
      `${CALLBACK}?extra=1`,
    ]) {
      const response = await request(new CookieJar(), h.authorizationUrl(rp, { redirect_uri: redirectUri }));
      expect(response.status, redirectUri).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(await response.text()).toContain('redirect_uri');
    }
  });
}

/** OP Basic: code reuse, key rotation, form_post and the token request's redirect_uri. */
function basicCodeReuseKeysAndFormPostTests(env: BasicHarness) {
  it('oidcc-codereuse-30seconds (shortened): a code spent a while ago is refused, and its tokens are revoked', async () => {
    const { h, rp } = env;
    const { tokens, callbackUrl } = await h.signIn(rp, new CookieJar(), OFFLINE);
    expect(tokens.refresh_token).toEqual(expect.any(String));
    await sleep(1500);
    const reuse = await h.token(rp, {
      grant_type: 'authorization_code',
      code: callbackUrl.searchParams.get('code') as string,
      redirect_uri: CALLBACK,
    });
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');
    const userinfo = await fetch(h.discovery.userinfo_endpoint, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(userinfo.status).toBe(401);
    const refresh = await h.token(rp, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string });
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('oidcc-server-rotate-keys: during a live session the new key signs; the session, earlier ID tokens and refresh tokens still work', async () => {
    const { h, rp } = env;
    const before = await h.signIn(rp, new CookieJar(), OFFLINE);
    const oldKid = decodeProtectedHeader(before.tokens.id_token).kid;
    const { added } = await rotateSigningKeys(h.provider.app.services.store);
    expect(await h.provider.app.reloadKeys()).toBe(true);
    const keys = (await (await fetch(h.discovery.jwks_uri)).json()) as { keys: { kid: string }[] };
    expect(keys.keys.map((k) => k.kid)).toEqual([added.kid, oldKid]);
    // A fresh JWKS fetch (as a client that sees an unknown kid would do) verifies both.
    const freshKeys = createRemoteJWKSet(new URL(h.discovery.jwks_uri));
    await expect(jwtVerify(before.tokens.id_token, freshKeys, { issuer: h.discovery.issuer })).resolves.toBeTruthy();
    const silent = await redirectedToClient(before.jar, h.authorizationUrl(rp, { prompt: 'none' }));
    const after = await h.exchange(rp, silent);
    expect(decodeProtectedHeader(after.id_token).kid).toBe(added.kid);
    const { payload } = await jwtVerify(after.id_token, freshKeys, { issuer: h.discovery.issuer, audience: rp.client_id });
    expect(payload.sub).toBe(before.idToken.sub);
    const refreshed = await h.token(rp, { grant_type: 'refresh_token', refresh_token: before.tokens.refresh_token as string });
    expect(refreshed.status).toBe(200);
    expect(decodeProtectedHeader(refreshed.body.id_token as string).kid).toBe(added.kid);
  });

  it('response_mode=form_post (oidcc-formpost-basic plan): the code and state arrive in an auto-submitted form the page’s CSP allows', async () => {
    const { h, rp } = env;
    const jar = new CookieJar();
    const url = h.authorizationUrl(rp, { response_mode: 'form_post' });
    const interaction = await startInteraction(jar, url);
    const details = await getDetails(jar, interaction);
    const signer = wallet();
    const message = messageFor(details, signer.address);
    const posted = await postSignature(jar, interaction, { message, signature: await signer.signMessage({ message }) });
    expect(posted.status).toBe(303);
    let response = await request(jar, location(posted, interaction.href));
    for (let hop = 0; hop < 3 && response.status === 303; hop++)
      response = await request(jar, location(response, interaction.href));
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain(`action="${CALLBACK}"`);
    const code = /name="code" value="([^"]+)"/.exec(page)?.[1];
    expect(code).toBeTruthy();
    expect(/name="state" value="([^"]+)"/.exec(page)?.[1]).toBe('st');
    const csp = response.headers.get('content-security-policy') ?? '';
    // The form may go to the client, and the page's one inline script (submit) may run.
    expect(csp).toMatch(/form-action [^;]*http:\/\/127\.0\.0\.1:4999/);
    const script = /<script[^>]*>([\s\S]*?)<\/script>/.exec(page)?.[1] as string;
    expect(csp).toContain(`'sha256-${createHash('sha256').update(script).digest('base64')}'`);
    const tokens = await h.exchange(rp, new URL(`${CALLBACK}?code=${code}`));
    expect(decodeJwt(tokens.id_token).sub).toBe(`eip155:1:${signer.address}`);
  });

  it('a token request with a redirect_uri other than the authorization request’s is refused', async () => {
    const { h, rp } = env;
    const jar = new CookieJar();
    const { callbackUrl } = await walletSignIn({
      authorizationUrl: h.authorizationUrl(rp, { redirect_uri: CALLBACK_QUERY }),
      signer: wallet(),
      jar,
    });
    const code = callbackUrl.searchParams.get('code') as string;
    const answer = await h.token(rp, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK });
    expect(answer.body.error).toBe('invalid_grant');
  });
}

describe.each(['self-hosted', 'hosted'])(
  'OP Basic (oidcc-basic-certification-test-plan), %s profile, client_secret_basic',
  (profile) => {
    const env = basicHarness(profile);
    basicCodeFlowTests(env);
    basicPromptAndSessionTests(env);
    basicRequestAndRedirectTests(env);
    basicCodeReuseKeysAndFormPostTests(env);
  },
);

describe('OP Config (oidcc-config-certification-test-plan)', () => {
  it.each([['self-hosted'], ['hosted']])('oidcc-discovery-endpoint-verification on the %s profile', async (profile) => {
    const h = await harness({ PROFILE: profile });
    try {
      const d = h.discovery;
      expect(d.issuer).toBe(h.provider.issuer);
      for (const field of [
        'authorization_endpoint',
        'token_endpoint',
        'userinfo_endpoint',
        'jwks_uri',
        'registration_endpoint',
        'end_session_endpoint',
      ]) {
        const url = new URL(d[field] as string);
        expect(url.origin, field).toBe(new URL(d.issuer).origin);
        expect(url.pathname, field).not.toContain('//');
      }
      for (const field of [
        'response_types_supported',
        'subject_types_supported',
        'id_token_signing_alg_values_supported',
        'scopes_supported',
        'claims_supported',
      ]) {
        expect(d[field], field).toEqual(expect.arrayContaining([expect.any(String)]));
      }
      expect(d.id_token_signing_alg_values_supported).toContain('RS256');
      expect(d.scopes_supported).toContain('openid');
      expect(d.response_types_supported).toContain('code');
      const keys = (await (await fetch(d.jwks_uri)).json()) as {
        keys: { kid?: string; kty: string; use?: string; d?: string }[];
      };
      expect(keys.keys.length).toBeGreaterThan(0);
      for (const key of keys.keys) {
        expect(key).toMatchObject({ kty: 'RSA', kid: expect.any(String) });
        expect(key.d).toBeUndefined();
      }
    } finally {
      await h.provider.stop();
    }
  });
});

describe('OP Implicit (oidcc-implicit-certification-test-plan), hosted profile', () => {
  let h: Awaited<ReturnType<typeof harness>>;
  beforeAll(async () => {
    h = await harness({ PROFILE: 'hosted' });
  });
  afterAll(() => h?.provider.stop());
  const HTTPS_CALLBACK = 'https://rp.example/callback';
  const implicitClient = (responseType: string) =>
    h.client({
      redirect_uris: [HTTPS_CALLBACK],
      response_types: [responseType],
      grant_types: ['implicit'],
      token_endpoint_auth_method: 'none',
      post_logout_redirect_uris: undefined,
    });

  it('oidcc-implicit: id_token token in the fragment; at_hash is the access token’s left-half SHA-256', async () => {
    const rp = await implicitClient('id_token token');
    const url = h.authorizationUrl(rp, {
      response_type: 'id_token token',
      redirect_uri: HTTPS_CALLBACK,
      scope: 'openid profile',
    });
    const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer: wallet() });
    const fragment = new URLSearchParams(callbackUrl.hash.slice(1));
    const idToken: JWTPayload = await h.verifyIdToken(fragment.get('id_token') as string, rp);
    expect(idToken.nonce).toBe('n-0S6');
    expect(idToken.at_hash).toBe(halfHash(fragment.get('access_token') as string));
    expect(callbackUrl.searchParams.get('code')).toBeNull();
  });

  it('oidcc-ensure-request-without-nonce-fails: implicit without nonce is refused in the fragment', async () => {
    const rp = await implicitClient('id_token');
    const url = h.authorizationUrl(rp, { response_type: 'id_token', redirect_uri: HTTPS_CALLBACK, nonce: undefined });
    const response = await request(new CookieJar(), url);
    const target = location(response, url.href);
    expect(target.origin + target.pathname).toBe(HTTPS_CALLBACK);
    const fragment = new URLSearchParams(target.hash.slice(1));
    expect(fragment.get('error')).toBe('invalid_request');
    expect(fragment.get('error_description')).toMatch(/nonce/);
    expect(fragment.get('id_token')).toBeNull();
  });

  it('response types the profile does not offer (hybrid code id_token, so no c_hash) are refused at registration', async () => {
    const response = await h.register({
      redirect_uris: [HTTPS_CALLBACK],
      response_types: ['code id_token'],
      grant_types: ['authorization_code', 'implicit'],
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe('invalid_client_metadata');
    expect(h.discovery.response_types_supported).not.toContain('code id_token');
  });
});

describe('OP Dynamic (oidcc-dynamic-certification-test-plan), hosted profile', () => {
  // oidcc-registration-sector-uri and -sector-bad need an https sector document: e2e/conformance-sector.test.ts.
  let h: Awaited<ReturnType<typeof harness>>;
  beforeAll(async () => {
    h = await harness({ PROFILE: 'hosted' });
  });
  afterAll(() => h?.provider.stop());

  it('oidcc-registration-logo-uri, -policy-uri, -tos-uri: registered, returned, and shown on the sign-in page', async () => {
    const rp = await h.client({
      redirect_uris: ['https://rp.example/cb'],
      client_name: 'Conformance RP',
      logo_uri: 'https://rp.example/logo.png',
      policy_uri: 'https://rp.example/policy',
      tos_uri: 'https://rp.example/tos',
    });
    expect(rp).toMatchObject({
      logo_uri: 'https://rp.example/logo.png',
      policy_uri: 'https://rp.example/policy',
      tos_uri: 'https://rp.example/tos',
    });
    const jar = new CookieJar();
    const interaction = await needsSignature(jar, h.authorizationUrl(rp, { redirect_uri: 'https://rp.example/cb' }));
    const page = await (await request(jar, interaction)).text();
    expect(page).toContain('href="https://rp.example/policy"');
    expect(page).toContain('href="https://rp.example/tos"');
    expect(page).toContain(`/logo/${rp.client_id}`);
  });

  it('oidcc-idtoken-rs256 registers; oidcc-idtoken-unsigned (alg none) and other algorithms are refused', async () => {
    const ok = await h.register({ redirect_uris: ['https://rp.example/cb'], id_token_signed_response_alg: 'RS256' });
    expect(ok.status).toBe(201);
    for (const alg of ['none', 'HS256', 'ES256']) {
      const refused = await h.register({ redirect_uris: ['https://rp.example/cb'], id_token_signed_response_alg: alg });
      expect(refused.status, alg).toBe(400);
      expect((await refused.json()).error, alg).toBe('invalid_client_metadata');
    }
  });

  it('registration edge cases: no redirect URI, a fragment, plain http off loopback, a relative URI are refused with invalid_redirect_uri', async () => {
    for (const redirect_uris of [[], ['https://rp.example/cb#frag'], ['http://rp.example/cb'], ['/cb']]) {
      const response = await h.register({ redirect_uris });
      expect(response.status, JSON.stringify(redirect_uris)).toBe(400);
      expect((await response.json()).error, JSON.stringify(redirect_uris)).toMatch(/^invalid_(redirect_uri|client_metadata)$/);
    }
    const malformed = await fetch(h.discovery.registration_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(malformed.status).toBe(400);
  });
});

describe.each(['self-hosted', 'hosted'])(
  'OP RP-initiated logout (oidcc-rp-initiated-logout-certification-test-plan), %s profile',
  (profile) => {
    let h: Awaited<ReturnType<typeof harness>>;
    let rp: Client;
    beforeAll(async () => {
      h = await harness({ PROFILE: profile });
      rp = await h.client();
    });
    afterAll(() => h?.provider.stop());

    function endSession(parameters: Record<string, string>) {
      const url = new URL(h.discovery.end_session_endpoint);
      for (const [key, value] of Object.entries(parameters)) url.searchParams.set(key, value);
      return url;
    }
    /**
     * Confirms on the logout page; follows the provider's redirects and returns the last answer:
     * the provider's own page, or the redirect that leaves it (not followed).
     */
    async function confirm(jar: CookieJar, response: Response): Promise<Response> {
      expect(response.status).toBe(200);
      const page = await response.text();
      const xsrf = /name="xsrf" value="([^"]+)"/.exec(page)?.[1] as string;
      const action = /action="([^"]+)"/.exec(page)?.[1] as string;
      expect(xsrf).toBeTruthy();
      const done = await request(jar, new URL(action, h.provider.url), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ xsrf, logout: 'yes' }),
      });
      expect(done.status).toBe(303);
      let last = done;
      while (last.status === 303 && location(last, h.provider.url).origin === new URL(h.provider.url).origin) {
        last = await request(jar, location(last, h.provider.url));
      }
      return last;
    }

    it('oidcc-rp-initiated-logout: back at the registered URI with the state, and the session is over', async () => {
      const { jar, tokens } = await h.signIn(rp);
      const final = await confirm(
        jar,
        await request(jar, endSession({ id_token_hint: tokens.id_token, post_logout_redirect_uri: BYE, state: 'bye' })),
      );
      const back = location(final, h.provider.url);
      expect(back.origin + back.pathname).toBe(BYE);
      expect(back.searchParams.get('state')).toBe('bye');
      const after = await redirectedToClient(jar, h.authorizationUrl(rp, { prompt: 'none' }));
      expect(after.searchParams.get('error')).toBe('login_required');
    });

    it('oidcc-rp-initiated-logout-no-state, -only-state, -no-post-logout-redirect-uri, -no-params', async () => {
      const noState = await h.signIn(rp);
      const back = location(
        await confirm(
          noState.jar,
          await request(noState.jar, endSession({ id_token_hint: noState.tokens.id_token, post_logout_redirect_uri: BYE })),
        ),
        h.provider.url,
      );
      expect(back.origin + back.pathname).toBe(BYE);
      expect(back.searchParams.has('state')).toBe(false);

      for (const parameters of [
        (t: string) => ({ id_token_hint: t, state: 'only' }),
        (t: string) => ({ id_token_hint: t }),
        () => ({}),
      ]) {
        const session = await h.signIn(rp);
        const final = await confirm(session.jar, await request(session.jar, endSession(parameters(session.tokens.id_token))));
        // No post_logout_redirect_uri: the provider's own "signed out" page, never a redirect.
        expect(final.status).toBe(200);
        expect(await final.text()).toContain('signed out');
      }
    });

    it('oidcc-rp-initiated-logout-no-id-token-hint: client_id identifies the client, and the signed-out page offers its registered URI (no automatic redirect); without either, post_logout_redirect_uri is ignored', async () => {
      const { jar } = await h.signIn(rp);
      const final = await confirm(
        jar,
        await request(jar, endSession({ client_id: rp.client_id, post_logout_redirect_uri: BYE, state: 's' })),
      );
      // Without an id_token_hint nothing proves the request came from the client: the provider's
      // own page names the destination's host and links to it (with the state); it never redirects.
      expect(final.status).toBe(200);
      expect(final.headers.get('location')).toBeNull();
      const page = await final.text();
      expect(page).toContain('signed out');
      expect(page).toContain('127.0.0.1:4999');
      expect(page).toContain(`href="${BYE}?state=s"`);
      const after = await redirectedToClient(jar, h.authorizationUrl(rp, { prompt: 'none' }));
      expect(after.searchParams.get('error')).toBe('login_required');
      // Neither: the post_logout_redirect_uri is dropped (nothing says whose it is); the user ends
      // on the provider's own page.
      const bareJar = new CookieJar();
      const bare = await confirm(bareJar, await request(bareJar, endSession({ post_logout_redirect_uri: BYE, state: 's' })));
      expect(bare.status).toBe(200);
      expect(await bare.text()).toContain('signed out');
    });

    it('oidcc-rp-initiated-logout-bad-id-token-hint, -modified-id-token-hint, -bad-post-logout-redirect-uri, -query-added: an error page, never a redirect', async () => {
      const { jar, tokens } = await h.signIn(rp);
      const [header, payload, signature] = tokens.id_token.split('.') as [string, string, string];
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      const modified = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: 'eip155:1:0x0000000000000000000000000000000000000001' })).toString('base64url')}.${signature}`;
      for (const parameters of [
        { id_token_hint: 'not-a-jwt', post_logout_redirect_uri: BYE },
        { id_token_hint: modified, post_logout_redirect_uri: BYE },
        { id_token_hint: tokens.id_token, post_logout_redirect_uri: 'http://127.0.0.1:4999/elsewhere' },
        { id_token_hint: tokens.id_token, post_logout_redirect_uri: `${BYE}?added=1` },
      ]) {
        const response = await request(jar, endSession(parameters));
        expect(response.status, JSON.stringify(parameters)).toBe(400);
        expect(response.headers.get('location')).toBeNull();
      }
      // The session survived the refused requests.
      const still = await redirectedToClient(jar, h.authorizationUrl(rp, { prompt: 'none' }));
      expect(still.searchParams.get('code')).toBeTruthy();
    });
  },
);
