/**
 * Sign in from another device (RFC 8628) against a real provider over HTTP, on both profiles:
 * discovery, the device authorization response, the person's pages (typed code, a code from
 * verification_uri_complete shown for confirmation, the wallet step with the verification URI as
 * the message's resource, "return to your device"), and the polling device's answers:
 * authorization_pending, slow_down, access_denied, expired_token, then tokens.
 */
import {
  CookieJar,
  confirmUserCode,
  type DeviceAuthorization,
  deviceAuthorization,
  followToDevicePage,
  formValue,
  getDetails,
  messageFor,
  openDevicePage,
  pkceAuthorization,
  pollDeviceToken,
  postDeviceForm,
  postSignature,
  registerDeviceClient,
  registerPublicClient,
  request,
  startTestProvider,
  type TestProvider,
  walletSignIn,
} from '@signet/testkit';
import { decodeJwt } from 'jose';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

/** The provider on `profile`, its discovery document and a registered device client. */
function deviceProvider(profile: 'self-hosted' | 'hosted') {
  let provider: TestProvider;
  let discovery: Record<string, string>;
  let client: { client_id: string };

  beforeAll(async () => {
    provider = await startTestProvider({ PROFILE: profile });
    discovery = await (await fetch(`${provider.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`)).json();
    client = await registerDeviceClient(discovery.registration_endpoint as string, {
      scope: 'openid profile offline_access',
    });
  });
  afterAll(() => provider?.stop());

  const start = (scope = 'openid profile offline_access') =>
    deviceAuthorization(discovery.device_authorization_endpoint as string, client.client_id, scope, {
      'user-agent': 'living-room-tv/1.0',
    });

  const poll = (codes: DeviceAuthorization) =>
    pollDeviceToken(discovery.token_endpoint as string, client.client_id, codes.device_code);

  /** The wallet step of a device sign-in: the details, a signed message, the post; the 303's target. */
  async function sign(jar: CookieJar, interactionUrl: URL, account = privateKeyToAccount(generatePrivateKey())) {
    const details = await getDetails(jar, interactionUrl);
    const message = messageFor(details, account.address);
    const response = await postSignature(jar, interactionUrl, { message, signature: await account.signMessage({ message }) });
    return { account, details, response };
  }

  return {
    get provider() {
      return provider;
    },
    get discovery() {
      return discovery;
    },
    get client() {
      return client;
    },
    start,
    poll,
    sign,
  };
}
type DeviceProvider = ReturnType<typeof deviceProvider>;

/** Discovery and the whole sign-in from another device. */
function deviceSignInTests(env: DeviceProvider) {
  it('discovery advertises the device authorization endpoint; the device gets codes, the verification URI and an interval', async () => {
    const { provider, discovery, start } = env;
    expect(discovery.device_authorization_endpoint).toBe(`${provider.url}/device/auth`);
    expect(discovery.grant_types_supported).toContain('urn:ietf:params:oauth:grant-type:device_code');
    const codes = await start();
    expect(codes.user_code).toMatch(USER_CODE);
    expect(codes.verification_uri).toBe(`${provider.url}/device`);
    expect(codes.verification_uri_complete).toBe(`${provider.url}/device?user_code=${codes.user_code}`);
    expect(codes.expires_in).toBe(600);
    expect(codes.interval).toBe(5);
  });

  it('the whole sign-in: the device polls (pending, slow_down), the person types the code, confirms, signs; the device gets tokens', async () => {
    const { provider, discovery, client, start, poll, sign } = env;
    const codes = await start();
    expect(await poll(codes)).toEqual({ status: 400, body: expect.objectContaining({ error: 'authorization_pending' }) });
    // Sooner than the interval: slow_down (RFC 8628 §3.5).
    expect(await poll(codes)).toEqual({ status: 400, body: expect.objectContaining({ error: 'slow_down' }) });

    const jar = new CookieJar();
    const entry = await openDevicePage(jar, codes.verification_uri);
    expect(entry.status).toBe(200);
    expect(entry.page).toContain('Enter the code your device');
    expect(entry.xsrf).toMatch(/^[0-9a-f]{48}$/);
    // Typed in lower case, without the dash: the same code.
    const typed = await postDeviceForm(jar, codes.verification_uri, {
      xsrf: entry.xsrf,
      user_code: codes.user_code.toLowerCase().replace('-', ''),
    });
    expect(typed.status).toBe(200);
    const confirmation = await typed.text();
    expect(confirmation).toContain('Living-room TV');
    expect(confirmation).toContain(codes.user_code);
    expect(confirmation).toContain('Continue only if the device showing this code is in front of you');
    expect(confirmation).toContain('living-room-tv/1.0');
    const confirmed = await postDeviceForm(jar, codes.verification_uri, {
      xsrf: formValue(confirmation, 'xsrf') as string,
      user_code: formValue(confirmation, 'user_code') as string,
      confirm: 'yes',
    });
    expect(confirmed.status).toBe(303);
    const interactionUrl = new URL(confirmed.headers.get('location') as string, codes.verification_uri);
    expect(interactionUrl.pathname).toMatch(/^\/interaction\//);

    // The wallet page in its HTML form says where the sign-in goes.
    const page = await (await request(jar, interactionUrl, { headers: { accept: 'text/html' } })).text();
    expect(page).toContain('the sign-in goes to <strong>Living-room TV</strong> on your other device');

    const { account, details, response } = await sign(jar, interactionUrl);
    expect(details.resources).toEqual([`${provider.url}/device`]);
    expect(details.client.client_name).toBe('Living-room TV');
    expect(details.scopes).toEqual(expect.arrayContaining(['openid', 'profile']));
    expect(response.status).toBe(303);
    const landed = await followToDevicePage(jar, interactionUrl, response.headers.get('location') as string);
    expect(landed.pathname).toBe('/device/success');
    const end = await (await request(jar, landed)).text();
    expect(end).toContain('You can return to your device');
    expect(end).toContain('Living-room TV');

    // The device's next poll: the tokens (an answer that is not "pending" is never held back for pace).
    const tokens = await poll(codes);
    expect(tokens.status).toBe(200);
    const sub = `eip155:1:${account.address}`;
    expect(decodeJwt(tokens.body.id_token as string).sub).toBe(sub);
    expect(decodeJwt(tokens.body.id_token as string).aud).toBe(client.client_id);
    expect(tokens.body.refresh_token).toEqual(expect.any(String));

    // A refresh works as for any client.
    const refresh = (token: string) =>
      fetch(discovery.token_endpoint as string, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token, client_id: client.client_id }),
      });
    const refreshed = await refresh(tokens.body.refresh_token as string);
    expect(refreshed.status, await refreshed.clone().text()).toBe(200);
    const renewed = (await refreshed.json()) as { id_token: string; refresh_token: string };
    expect(decodeJwt(renewed.id_token).sub).toBe(sub);

    // The device code is spent: a second use is refused and revokes what it issued.
    expect((await poll(codes)).body.error).toBe('invalid_grant');
    expect((await refresh(renewed.refresh_token)).status).toBe(400);
  });
}

/** The confirmation page, live sessions, signing out and failed wallet steps. */
function deviceSessionTests(env: DeviceProvider) {
  it('a code from verification_uri_complete is shown with the warning and must be confirmed; nothing is posted by itself', async () => {
    const { start, poll } = env;
    const codes = await start();
    const jar = new CookieJar();
    const linked = await request(jar, codes.verification_uri_complete);
    expect(linked.status).toBe(200);
    const page = await linked.text();
    expect(page).toContain(codes.user_code);
    expect(page).toContain('The link you opened carries this code.');
    expect(page).toContain('If someone sent you this link');
    // No auto-submitting form (oidc-provider's own answer to a code in the URL), no script at all.
    expect(page).not.toMatch(/<script/i);
    expect((await poll(codes)).body.error).toBe('authorization_pending');
    const confirmed = await postDeviceForm(jar, codes.verification_uri, {
      xsrf: formValue(page, 'xsrf') as string,
      user_code: formValue(page, 'user_code') as string,
      confirm: 'yes',
    });
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get('location')).toMatch(/\/interaction\//);
  });

  it('a device sign-in takes a fresh signature even inside a live provider session that already granted the device', async () => {
    const { provider, start, poll, sign } = env;
    // This browser already signed in to a site, and then signed this very device client in: a
    // live provider session holding a grant for it. Without the rule, the next code would be
    // confirmed with no wallet step at all.
    const site = await registerPublicClient(provider.url);
    const account = privateKeyToAccount(generatePrivateKey());
    const jar = new CookieJar();
    await walletSignIn({ authorizationUrl: (await pkceAuthorization(site)).url, signer: account, jar });
    expect(jar.names()).toContain('_session');
    for (let round = 0; round < 2; round++) {
      const codes = await start();
      const interactionUrl = await confirmUserCode(jar, codes.verification_uri, codes.user_code);
      expect(interactionUrl.pathname, `round ${round}`).toMatch(/^\/interaction\//);
      expect((await poll(codes)).body.error).toBe('authorization_pending');
      const { response } = await sign(jar, interactionUrl, account);
      expect(response.status).toBe(303);
      expect((await followToDevicePage(jar, interactionUrl, response.headers.get('location') as string)).pathname).toBe(
        '/device/success',
      );
      expect((await poll(codes)).status).toBe(200);
    }
  });

  it('signing out in the browser the person signed on does not sign the device out (its tokens outlive that session)', async () => {
    const { provider, discovery, start, poll, sign } = env;
    const codes = await start('openid');
    const jar = new CookieJar();
    const interactionUrl = await confirmUserCode(jar, codes.verification_uri, codes.user_code);
    const { response } = await sign(jar, interactionUrl);
    await followToDevicePage(jar, interactionUrl, response.headers.get('location') as string);
    const tokens = await poll(codes);
    expect(tokens.status).toBe(200);
    const userinfo = () =>
      fetch(discovery.userinfo_endpoint as string, { headers: { authorization: `Bearer ${tokens.body.access_token}` } });
    expect((await userinfo()).status).toBe(200);
    // The person signs out of the provider in that browser.
    const logoutPage = await (await request(jar, discovery.end_session_endpoint as string)).text();
    const signedOut = await request(jar, `${provider.url}/session/end/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xsrf: formValue(logoutPage, 'xsrf') as string, logout: 'yes' }),
    });
    expect(signedOut.status).toBe(303);
    expect(jar.names()).not.toContain('_session');
    expect((await userinfo()).status).toBe(200);
  });

  it('a failed wallet step does not burn the code: a wrong message is refused, the right one then signs in', async () => {
    const { start, poll, sign } = env;
    const codes = await start();
    const jar = new CookieJar();
    const interactionUrl = await confirmUserCode(jar, codes.verification_uri, codes.user_code);
    const details = await getDetails(jar, interactionUrl);
    const account = privateKeyToAccount(generatePrivateKey());
    // Signed for a website (its redirect URI) instead of the device: refused.
    const forSite = messageFor(details, account.address, { resources: ['https://app.example/callback'] });
    const refused = await postSignature(jar, interactionUrl, {
      message: forSite,
      signature: await account.signMessage({ message: forSite }),
    });
    expect(refused.status).toBe(400);
    expect((await refused.json()).error).toBe('RESOURCE_MISMATCH');
    // A signature by another key: refused.
    const message = messageFor(details, account.address);
    const other = privateKeyToAccount(generatePrivateKey());
    const forged = await postSignature(jar, interactionUrl, { message, signature: await other.signMessage({ message }) });
    expect(forged.status).toBe(401);
    expect((await poll(codes)).body.error).toBe('authorization_pending');
    const { response } = await sign(jar, interactionUrl, account);
    expect(response.status).toBe(303);
    await followToDevicePage(jar, interactionUrl, response.headers.get('location') as string);
    const tokens = await poll(codes);
    expect(tokens.status).toBe(200);
    expect(decodeJwt(tokens.body.id_token as string).sub).toBe(`eip155:1:${account.address}`);
  });
}

/** Cancelling, and wrong, used or expired codes. */
function deviceRefusalTests(env: DeviceProvider) {
  it('cancelling on the confirmation page, or on the wallet page, tells the device access_denied', async () => {
    const { start, poll } = env;
    const onConfirmation = await start();
    const jar = new CookieJar();
    const entry = await openDevicePage(jar, onConfirmation.verification_uri);
    const typed = await (
      await postDeviceForm(jar, onConfirmation.verification_uri, { xsrf: entry.xsrf, user_code: onConfirmation.user_code })
    ).text();
    const cancelled = await postDeviceForm(jar, onConfirmation.verification_uri, {
      xsrf: formValue(typed, 'xsrf') as string,
      user_code: onConfirmation.user_code,
      abort: 'yes',
    });
    expect(cancelled.status).toBe(200);
    expect(await cancelled.text()).toContain('Sign-in cancelled');
    expect(await poll(onConfirmation)).toEqual({ status: 400, body: expect.objectContaining({ error: 'access_denied' }) });

    const onWalletPage = await start();
    const interactionUrl = await confirmUserCode(jar, onWalletPage.verification_uri, onWalletPage.user_code);
    const aborted = await request(jar, new URL(`${interactionUrl.pathname}/abort`, interactionUrl), { method: 'POST' });
    expect(aborted.status).toBe(303);
    const resumed = await request(jar, new URL(aborted.headers.get('location') as string, interactionUrl));
    expect(await resumed.text()).toContain('Sign-in cancelled');
    expect(await poll(onWalletPage)).toEqual({ status: 400, body: expect.objectContaining({ error: 'access_denied' }) });
    // The code is spent: entering it again is refused in words.
    const again = await openDevicePage(jar, onWalletPage.verification_uri);
    const reuse = await postDeviceForm(jar, onWalletPage.verification_uri, {
      xsrf: again.xsrf,
      user_code: onWalletPage.user_code,
    });
    expect(reuse.status).toBe(400);
    expect(await reuse.text()).toContain('That code was already used');
  });

  it('a wrong, used or expired code is refused with words (400); an expired device code polls expired_token', async () => {
    const { provider, start, poll } = env;
    const jar = new CookieJar();
    const entry = await openDevicePage(jar, `${provider.url}/device`);
    const wrong = await postDeviceForm(jar, `${provider.url}/device`, { xsrf: entry.xsrf, user_code: 'BBBB-BBBB' });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain('That code is not right');
    const empty = await postDeviceForm(jar, `${provider.url}/device`, {
      xsrf: formValue(await (await openDevicePage(jar, `${provider.url}/device`)).page, 'xsrf') as string,
      user_code: '',
    });
    expect(empty.status).toBe(400);
    expect(await empty.text()).toContain('Enter the code your device shows');
    const stale = await postDeviceForm(jar, `${provider.url}/device`, { xsrf: 'not-the-token', user_code: 'BBBB-BBBB' });
    expect(stale.status).toBe(400);
    expect(await stale.text()).toContain('This page was open too long');

    const codes = await start();
    // As if its ten minutes had passed: the stored device code's expiry moved into the past.
    const key = `oidc:DeviceCode:${codes.device_code}`;
    const stored = JSON.parse((await provider.app.services.store.get(key)) as string);
    await provider.app.services.store.set(key, JSON.stringify({ ...stored, exp: Math.floor(Date.now() / 1000) - 1 }), 600);
    const expired = await request(jar, codes.verification_uri_complete);
    expect(expired.status).toBe(400);
    expect(await expired.text()).toContain('That code has expired');
    expect(await poll(codes)).toEqual({ status: 400, body: expect.objectContaining({ error: 'expired_token' }) });
  });
}

describe.each(['self-hosted', 'hosted'] as const)('sign in from another device on the %s profile', (profile) => {
  const env = deviceProvider(profile);
  deviceSignInTests(env);
  deviceSessionTests(env);
  deviceRefusalTests(env);
});
