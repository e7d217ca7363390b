import { CookieJar, startTestProvider, type TestProvider, walletSignIn } from '@signet/testkit';
import * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REDIRECT_URI = 'http://127.0.0.1:4999/callback';
const insecure = { execute: [oidc.allowInsecureRequests] };

// One self-hosted provider, shared by the "whole flow" describes below.
let provider: TestProvider;

beforeAll(async () => {
  provider = await startTestProvider();
});
afterAll(() => provider?.stop());

async function register(metadata: Partial<oidc.ClientMetadata> = {}) {
  return oidc.dynamicClientRegistration(
    new URL(provider.url),
    { redirect_uris: [REDIRECT_URI], client_name: 'Flow test RP', token_endpoint_auth_method: 'none', ...metadata },
    oidc.None(),
    insecure,
  );
}

async function authorize(config: oidc.Configuration, scope = 'openid profile siwe') {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  return { url, verifier, state, nonce };
}

describe('self-hosted provider: the whole flow with openid-client', () => {
  it('discovery, registration, PKCE, code exchange, ID token validation and userinfo', async () => {
    const config = await register();
    const metadata = config.serverMetadata();
    expect(metadata.authorization_endpoint).toBe(`${provider.url}/auth`);
    const { url, verifier, state, nonce } = await authorize(config);
    const account = privateKeyToAccount(generatePrivateKey());

    const { callbackUrl, details } = await walletSignIn({ authorizationUrl: url, signer: account });
    expect(details.nonce).toBe(Buffer.from(details.uid).toString('hex'));
    expect(callbackUrl.origin + callbackUrl.pathname).toBe(REDIRECT_URI);

    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    const sub = `eip155:1:${account.address}`;
    expect(claims?.sub).toBe(sub);
    expect(claims?.iss).toBe(provider.issuer);
    expect(claims?.aud).toBe(config.clientMetadata().client_id);
    expect(claims?.preferred_username).toBe(account.address);
    expect(claims?.picture).toBeUndefined();
    expect(String(claims?.siwe_message)).toContain(`\nNonce: ${details.nonce}\n`);
    expect(claims?.siwe_signature).toMatch(/^0x[0-9a-f]{130}$/);
    expect(tokens.expires_in).toBeGreaterThan(3500);
    expect(tokens.expires_in).toBeLessThanOrEqual(3600);

    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, sub);
    expect(userinfo).toMatchObject({ sub, preferred_username: account.address, siwe_message: claims?.siwe_message });
  });

  it('scope "openid profile" gives no siwe claims; scope "openid" gives only sub', async () => {
    const config = await register();
    const account = privateKeyToAccount(generatePrivateKey());
    for (const [scope, expected, absent] of [
      ['openid profile', ['preferred_username'], ['siwe_message', 'siwe_signature']],
      ['openid', [], ['preferred_username', 'picture', 'siwe_message']],
    ] as const) {
      const { url, verifier, state, nonce } = await authorize(config, scope);
      const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer: account });
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: verifier,
        expectedState: state,
        expectedNonce: nonce,
      });
      const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, `eip155:1:${account.address}`);
      for (const claim of expected) expect(userinfo).toHaveProperty(claim);
      for (const claim of absent) {
        expect(userinfo).not.toHaveProperty(claim);
        expect(tokens.claims()).not.toHaveProperty(claim);
      }
    }
  });

  it('a second client in the same browser session needs a fresh signature; the first client signs in silently', async () => {
    const first = await register();
    const second = await register({ client_name: 'Second RP' });
    const account = privateKeyToAccount(generatePrivateKey());
    const jar = new CookieJar();
    const a = await authorize(first);
    await walletSignIn({ authorizationUrl: a.url, signer: account, jar });

    // Same client again: the session and its grant suffice, no interaction.
    const again = await authorize(first);
    const { request } = await import('@signet/testkit');
    const silent = await request(jar, again.url);
    expect(silent.status).toBe(303);
    expect(new URL(silent.headers.get('location') as string).searchParams.get('code')).toBeTruthy();

    // Another client: an interaction (consent prompt) that asks for a signature again.
    const b = await authorize(second);
    const toInteraction = await request(jar, b.url);
    expect(toInteraction.status).toBe(303);
    expect(toInteraction.headers.get('location')).toMatch(/\/interaction\//);
    const { callbackUrl, details } = await walletSignIn({ authorizationUrl: b.url, signer: account, jar });
    expect(details.prompt).toBe('consent');
    const tokens = await oidc.authorizationCodeGrant(second, callbackUrl, {
      pkceCodeVerifier: b.verifier,
      expectedState: b.state,
      expectedNonce: b.nonce,
    });
    expect(tokens.claims()?.sub).toBe(`eip155:1:${account.address}`);
  });
});

describe('self-hosted provider: the whole flow with openid-client (forms, other accounts, refresh)', () => {
  it('POST /auth (form parameters) leads to the same sign-in as GET', async () => {
    const config = await register();
    const { url, verifier, state, nonce } = await authorize(config);
    const posted = await fetch(`${provider.url}/auth`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: url.searchParams.toString(),
    });
    expect(posted.status).toBe(303);
    const asGet = new URL(posted.headers.get('location') as string, provider.url);
    expect(asGet.pathname).toBe('/auth');
    expect(Object.fromEntries(asGet.searchParams)).toEqual(Object.fromEntries(url.searchParams));
    const account = privateKeyToAccount(generatePrivateKey());
    const { callbackUrl } = await walletSignIn({ authorizationUrl: asGet, signer: account });
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    expect(tokens.claims()?.sub).toBe(`eip155:1:${account.address}`);
    const wrongType = await fetch(`${provider.url}/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(wrongType.status).toBe(400);
  });

  it('signing with another account in a live session: the auto-submitted logout page is allowed by the CSP', async () => {
    const first = await register();
    const second = await register({ client_name: 'Other RP' });
    const jar = new CookieJar();
    const a = await authorize(first);
    await walletSignIn({ authorizationUrl: a.url, signer: privateKeyToAccount(generatePrivateKey()), jar });
    // The second client's consent prompt is signed by another account: oidc-provider ends the
    // session first with an auto-submitting form (an inline script it hashes into the CSP).
    const b = await authorize(second);
    const { request, startInteraction, getDetails, messageFor, postSignature } = await import('@signet/testkit');
    const interactionUrl = await startInteraction(jar, b.url);
    const details = await getDetails(jar, interactionUrl);
    const other = privateKeyToAccount(generatePrivateKey());
    const message = messageFor(details, other.address);
    const posted = await postSignature(jar, interactionUrl, { message, signature: await other.signMessage({ message }) });
    const resume = await request(jar, new URL(posted.headers.get('location') as string, interactionUrl));
    expect(resume.status).toBe(200);
    const csp = resume.headers.get('content-security-policy') as string;
    const body = await resume.text();
    const script = /<script[^>]*>([\s\S]*?)<\/script>/.exec(body)?.[1] as string;
    const { createHash } = await import('node:crypto');
    expect(csp).toContain(`'sha256-${createHash('sha256').update(script).digest('base64')}'`);
    expect(csp).toMatch(/form-action 'self' http:\/\/127\.0\.0\.1:4999/);
  });

  it('the same client with prompt=login, signed by another account in the live session: the logout-first step, then a code for the new account', async () => {
    // The interaction asks to extend the session's grant for this client; ending the old account's
    // session revokes that grant, which must not take the interaction with it.
    const config = await register();
    const jar = new CookieJar();
    const first = await authorize(config);
    await walletSignIn({ authorizationUrl: first.url, signer: privateKeyToAccount(generatePrivateKey()), jar });
    const again = await authorize(config);
    again.url.searchParams.set('prompt', 'login');
    const { request, startInteraction, getDetails, messageFor, postSignature } = await import('@signet/testkit');
    const interactionUrl = await startInteraction(jar, again.url);
    const other = privateKeyToAccount(generatePrivateKey());
    const message = messageFor(await getDetails(jar, interactionUrl), other.address);
    const posted = await postSignature(jar, interactionUrl, { message, signature: await other.signMessage({ message }) });
    const resume = await request(jar, new URL(posted.headers.get('location') as string, interactionUrl));
    // The auto-submitted logout form, submitted as the browser would.
    const form = /<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/.exec(await resume.text());
    expect(form).not.toBeNull();
    const fields = new URLSearchParams();
    for (const [, name, value] of (form?.[2] ?? '').matchAll(/name="([^"]+)" value="([^"]*)"/g))
      fields.append(name as string, value as string);
    const confirmed = await request(jar, new URL(form?.[1] as string, provider.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: fields,
    });
    expect(confirmed.status).toBe(303);
    const back = await request(jar, new URL(confirmed.headers.get('location') as string, provider.url));
    expect(back.status).toBe(303);
    const callback = new URL(back.headers.get('location') as string);
    expect(callback.origin + callback.pathname).toBe(REDIRECT_URI);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: again.verifier,
      expectedState: again.state,
      expectedNonce: again.nonce,
    });
    expect(tokens.claims()?.sub).toBe(`eip155:1:${other.address}`);
  });

  it('refresh tokens for clients that ask offline_access, and they refresh', async () => {
    const config = await register({ grant_types: ['authorization_code', 'refresh_token'] });
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid offline_access',
      prompt: 'consent',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const account = privateKeyToAccount(generatePrivateKey());
    const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer: account });
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier });
    expect(tokens.refresh_token).toBeTruthy();
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
    expect(refreshed.access_token).toBeTruthy();
    expect(refreshed.access_token).not.toBe(tokens.access_token);
  });
});
