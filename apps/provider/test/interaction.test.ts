import {
  CookieJar,
  followToClient,
  getDetails,
  type InteractionDetails,
  messageFor,
  pkceAuthorization,
  postSignature,
  request,
  startInteraction,
  startTestProvider,
  type TestProvider,
} from '@signet/testkit';
import * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

const REDIRECT_URI = 'http://127.0.0.1:4999/callback';
const insecure = { execute: [oidc.allowInsecureRequests] };
const minutes = (n: number) => n * 60_000;

// One provider and client, shared by the "interaction contract" describes below.
let provider: TestProvider;
let client: oidc.Configuration;

const account = privateKeyToAccount(generatePrivateKey());

beforeAll(async () => {
  provider = await startTestProvider({ INTERACTION_BODY_LIMIT: '4096' });
  client = await oidc.dynamicClientRegistration(
    new URL(provider.url),
    { redirect_uris: [REDIRECT_URI], client_name: 'Bad input RP', token_endpoint_auth_method: 'none' },
    oidc.None(),
    insecure,
  );
});
afterAll(() => provider?.stop());

afterEach(() => {
  vi.useRealTimers();
});

async function open(extra: Record<string, string> = {}, jar = new CookieJar()) {
  const { url, verifier } = await pkceAuthorization(client, { scope: 'openid profile', state: 'st4te', ...extra });
  const interactionUrl = await startInteraction(jar, url);
  const details = await getDetails(jar, interactionUrl);
  return { jar, interactionUrl, details, verifier };
}

async function expectError(response: Response, status: number, error: string) {
  const body = await response.json();
  expect({ status: response.status, error: body.error }).toEqual({ status, error });
  expect(body.error_description).toEqual(expect.any(String));
}

const signed = async (details: InteractionDetails, overrides: Parameters<typeof messageFor>[2] = {}, signer = account) => {
  const message = messageFor(details, account.address, overrides);
  return { message, signature: await signer.signMessage({ message }) };
};

async function codeFor() {
  const { jar, interactionUrl, details, verifier } = await open();
  const ok = await postSignature(jar, interactionUrl, await signed(details));
  const callback = await followToClient(jar, interactionUrl, ok.headers.get('location') as string);
  return { callback, verifier, jar };
}

describe('the interaction contract: every bad input has its status and code, and loses nothing', () => {
  it('GET with Accept: application/json returns the details the message must use', async () => {
    const { details, interactionUrl } = await open();
    expect(details).toMatchObject({
      uid: interactionUrl.pathname.split('/')[2],
      nonce: Buffer.from(details.uid, 'utf8').toString('hex'),
      domain: new URL(provider.url).host,
      uri: provider.url,
      resources: [REDIRECT_URI],
      chainIds: [1],
      client: { client_id: client.clientMetadata().client_id, client_name: 'Bad input RP' },
      scopes: ['openid', 'profile'],
      prompt: 'login',
    });
    expect(details.statement).toBe(`Sign in to Bad input RP with ${new URL(provider.url).host}.`);
    expect(Date.parse(details.expiresAt) - Date.parse(details.issuedAfter)).toBe(minutes(10));
  });

  it('GET without the interaction cookie, or for an unknown uid, is refused', async () => {
    const { interactionUrl } = await open();
    const noCookie = await fetch(interactionUrl, { headers: { accept: 'application/json' } });
    await expectError(noCookie, 400, 'INTERACTION_COOKIE_MISSING');
    // The right value without oidc-provider's signature on it: not this sign-in's cookie.
    const uid = interactionUrl.pathname.split('/')[2] as string;
    for (const cookie of [`_interaction=${uid}`, `_interaction=${uid}; _interaction.sig=AAAAAAAAAAAAAAAAAAAAAAAAAAA`]) {
      const forged = await fetch(interactionUrl, { headers: { accept: 'application/json', cookie } });
      await expectError(forged, 400, 'SESSION_CHANGED');
    }
    const unknown = await fetch(`${provider.url}/interaction/doesnotexist123`, { headers: { accept: 'application/json' } });
    await expectError(unknown, 404, 'INTERACTION_NOT_FOUND');
  });
});

describe('the interaction contract: malformed and mismatched submissions, form posts and expiry', () => {
  it('refuses each malformed or mismatched submission with its own code; the sign-in then still succeeds', async () => {
    const { jar, interactionUrl, details } = await open();
    const post = (body: { message: string; signature: string }) => postSignature(jar, interactionUrl, body);
    const raw = (body: string, contentType: string) =>
      request(jar, interactionUrl, {
        method: 'POST',
        headers: { 'content-type': contentType, accept: 'application/json' },
        body,
      });
    const other = privateKeyToAccount(generatePrivateKey());
    const now = Date.now();

    await expectError(await raw('{"message": ', 'application/json'), 400, 'INVALID_REQUEST');
    await expectError(await raw(JSON.stringify({ message: 'x' }), 'application/json'), 400, 'INVALID_REQUEST');
    await expectError(await raw(JSON.stringify({ message: 1, signature: 2 }), 'application/json'), 400, 'INVALID_REQUEST');
    await expectError(await raw('message=hi', 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    await expectError(
      await raw(JSON.stringify({ message: 'x'.repeat(5000), signature: '0x' }), 'application/json'),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    await expectError(await post({ message: 'hello, sign me in', signature: '0x00' }), 400, 'UNABLE_TO_PARSE');

    const cases: [Parameters<typeof messageFor>[2], number, string][] = [
      [{ nonce: 'aaaaaaaaaaaaaaaa' }, 400, 'NONCE_MISMATCH'],
      [{ domain: 'evil.example.com' }, 400, 'DOMAIN_MISMATCH'],
      [{ domain: `${new URL(provider.url).hostname}:1` }, 400, 'DOMAIN_MISMATCH'],
      [{ uri: 'https://evil.example.com/' }, 400, 'URI_MISMATCH'],
      [{ scheme: 'https' }, 400, 'SCHEME_MISMATCH'],
      [{ chainId: 137 }, 400, 'CHAIN_NOT_ALLOWED'],
      [{ expirationTime: new Date(now - 1000) }, 400, 'EXPIRED_MESSAGE'],
      // Later than the sign-in's own expiry (none, or the details' own or earlier, is fine).
      [{ expirationTime: new Date(Date.parse(details.expiresAt) + 1000) }, 400, 'MESSAGE_MISMATCH'],
      [{ notBefore: new Date(now + minutes(5)) }, 400, 'NOT_YET_VALID_MESSAGE'],
      [{ issuedAt: new Date(now + minutes(5)) }, 400, 'ISSUED_IN_FUTURE'],
      [{ issuedAt: new Date(now - minutes(5)) }, 400, 'MESSAGE_TOO_OLD'],
      [{ resources: ['https://evil.example.com/cb'] }, 400, 'RESOURCE_MISMATCH'],
      [{ resources: undefined }, 400, 'RESOURCE_MISMATCH'],
    ];
    for (const [overrides, status, error] of cases) {
      await expectError(await post(await signed(details, overrides)), status, error);
    }
    await expectError(await post(await signed(details, {}, other)), 401, 'INVALID_SIGNATURE');
    const good = await signed(details);
    await expectError(await post({ ...good, signature: 'not-hex' }), 401, 'INVALID_SIGNATURE');
    await expectError(
      await post({ message: good.message.replace(account.address, account.address.toLowerCase()), signature: good.signature }),
      400,
      'INVALID_ADDRESS',
    );

    // None of it issued anything, and the interaction is still usable.
    const ok = await post(good);
    expect(ok.status).toBe(303);
    const callback = await followToClient(jar, interactionUrl, ok.headers.get('location') as string);
    expect(callback.searchParams.get('code')).toBeTruthy();
    expect(callback.searchParams.get('state')).toBe('st4te');

    // The interaction is gone: replaying the same signed message is refused.
    await expectError(await post(good), 404, 'INTERACTION_NOT_FOUND');
  });

  it('answers a form post with the page and its error (HTML), and without the cookie refuses', async () => {
    const { jar, interactionUrl, details } = await open();
    const bad = await signed(details, { nonce: 'bbbbbbbbbbbbbbbb' });
    const page = await postSignature(jar, interactionUrl, bad, 'form');
    expect(page.status).toBe(400);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const text = await page.text();
    expect(text).toContain('NONCE_MISMATCH');
    expect(text).toContain('Bad input RP');

    const noCookie = await fetch(interactionUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(await signed(details)),
    });
    await expectError(noCookie, 400, 'INTERACTION_COOKIE_MISSING');
  });

  it('a form post with a good signature continues with 303, even with the CRLF line breaks browsers send', async () => {
    const { jar, interactionUrl, details } = await open();
    const { message, signature } = await signed(details);
    const response = await postSignature(jar, interactionUrl, { message: message.replaceAll('\n', '\r\n'), signature }, 'form');
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toMatch(/\/auth\//);
  });

  it('an interaction older than 10 minutes is expired (410), and says so', async () => {
    const { jar, interactionUrl, details } = await open();
    const good = await signed(details);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + minutes(11) });
    await expectError(await postSignature(jar, interactionUrl, good), 410, 'INTERACTION_EXPIRED');
    const page = await request(jar, interactionUrl, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(410);
    expect(await page.text()).toContain('Back to Bad input RP');
  });
});

describe('the interaction contract: replays, aborts and redirects', () => {
  it('a second post of the same signed message, before the browser goes on, is refused (409); the first one still completes', async () => {
    const { jar, interactionUrl, details } = await open();
    const good = await signed(details);
    const first = await postSignature(jar, interactionUrl, good);
    expect(first.status).toBe(303);
    await expectError(await postSignature(jar, interactionUrl, good), 409, 'INTERACTION_COMPLETED');
    await expectError(await request(jar, `${interactionUrl}/abort`, { method: 'POST' }), 409, 'INTERACTION_COMPLETED');
    const callback = await followToClient(jar, interactionUrl, first.headers.get('location') as string);
    expect(callback.searchParams.get('code')).toBeTruthy();
  });

  it('two posts of the same signed message at once: exactly one wins, the other gets 409', async () => {
    const { jar, interactionUrl, details } = await open();
    const good = await signed(details);
    const responses = await Promise.all([postSignature(jar, interactionUrl, good), postSignature(jar, interactionUrl, good)]);
    expect(responses.map((r) => r.status).sort()).toEqual([303, 409]);
  });

  it('after an abort, a signed message for the same sign-in is refused (409)', async () => {
    const { jar, interactionUrl, details } = await open();
    expect((await request(jar, `${interactionUrl}/abort`, { method: 'POST' })).status).toBe(303);
    await expectError(await postSignature(jar, interactionUrl, await signed(details)), 409, 'INTERACTION_COMPLETED');
  });

  it('abort ends the flow with access_denied for the client: a page linking there from a browser new to it, a redirect from one signed in to it', async () => {
    // A browser that has not signed in to this client: the provider's page, whose link carries the error.
    const { jar, interactionUrl } = await open();
    const response = await request(jar, `${interactionUrl}/abort`, { method: 'POST' });
    expect(response.status).toBe(303);
    const page = await request(jar, new URL(response.headers.get('location') as string, interactionUrl));
    expect(page.status).toBe(400);
    const href = /<a class="button" href="([^"]+)"/.exec(await page.text())?.[1]?.replaceAll('&amp;', '&');
    const link = new URL(href as string);
    expect(`${link.origin}${link.pathname}`).toBe(REDIRECT_URI);
    expect(link.searchParams.get('error')).toBe('access_denied');
    expect(link.searchParams.get('state')).toBe('st4te');

    // A browser that has signed in to it: oidc-provider's redirect, at once.
    const signedIn = await codeFor();
    const again = await open({ prompt: 'login' }, signedIn.jar);
    const aborted = await request(again.jar, `${again.interactionUrl}/abort`, { method: 'POST' });
    const callback = await followToClient(again.jar, again.interactionUrl, aborted.headers.get('location') as string);
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
    expect(callback.searchParams.get('error')).toBe('access_denied');
  });

  it('never redirects to an unregistered redirect_uri', async () => {
    const url = oidc.buildAuthorizationUrl(client, {
      redirect_uri: 'http://127.0.0.1:4999/elsewhere',
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const response = await fetch(url, { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toContain('invalid_redirect_uri');
  });
});

describe('the interaction contract: PKCE, codes, introspection and revocation', () => {
  it('a public client without PKCE is refused at the authorization endpoint', async () => {
    const url = oidc.buildAuthorizationUrl(client, { redirect_uri: REDIRECT_URI, scope: 'openid', state: 'x' });
    const response = await fetch(url, { redirect: 'manual' });
    // No code, and (this browser never signed in to the client) the error on the provider's page.
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    const page = await response.text();
    expect(page).toContain('invalid_request');
    expect(page).toMatch(/PKCE/);
  });

  it('a wrong PKCE verifier is refused at the token endpoint and issues nothing', async () => {
    const { callback } = await codeFor();
    await expect(
      oidc.authorizationCodeGrant(client, callback, { pkceCodeVerifier: oidc.randomPKCECodeVerifier(), expectedState: 'st4te' }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('a replayed code is refused, and the tokens the code issued are revoked', async () => {
    const { callback, verifier } = await codeFor();
    const tokens = await oidc.authorizationCodeGrant(client, callback, { pkceCodeVerifier: verifier, expectedState: 'st4te' });
    const sub = `eip155:1:${account.address}`;
    await expect(oidc.fetchUserInfo(client, tokens.access_token, sub)).resolves.toMatchObject({ sub });
    await expect(
      oidc.authorizationCodeGrant(client, callback, { pkceCodeVerifier: verifier, expectedState: 'st4te' }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(oidc.fetchUserInfo(client, tokens.access_token, sub)).rejects.toMatchObject({ status: 401 });
  });

  it('introspection and revocation need client authentication and work for its tokens', async () => {
    const secretClient = await oidc.dynamicClientRegistration(
      new URL(provider.url),
      { redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'client_secret_basic' },
      oidc.ClientSecretBasic(),
      insecure,
    );
    const jar = new CookieJar();
    const url = oidc.buildAuthorizationUrl(secretClient, { redirect_uri: REDIRECT_URI, scope: 'openid' });
    const interactionUrl = await startInteraction(jar, url);
    const details = await getDetails(jar, interactionUrl);
    const ok = await postSignature(jar, interactionUrl, await signed(details));
    const callback = await followToClient(jar, interactionUrl, ok.headers.get('location') as string);
    const tokens = await oidc.authorizationCodeGrant(secretClient, callback);

    const active = await oidc.tokenIntrospection(secretClient, tokens.access_token);
    expect(active).toMatchObject({
      active: true,
      sub: `eip155:1:${account.address}`,
      client_id: secretClient.clientMetadata().client_id,
    });

    const anonymous = await fetch(`${provider.url}/token/introspection`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.access_token }),
    });
    expect(anonymous.status).toBe(400);

    await oidc.tokenRevocation(secretClient, tokens.access_token);
    expect(await oidc.tokenIntrospection(secretClient, tokens.access_token)).toMatchObject({ active: false });
  });
});
