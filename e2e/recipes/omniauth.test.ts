/**
 * Ruby's omniauth_openid_connect (Debian's ruby-omniauth-openid-connect, with Rack and WEBrick),
 * exactly as docs/recipes.md shows it (e2e/recipes/omniauth/app.rb), started once per profile and
 * signed into by a wallet through the interaction contract. The only addition is
 * omniauth/http-issuer.rb, which lets the gem discover an http issuer (the test provider's).
 */
import { join } from 'node:path';
import { CookieJar, freePort, request, startTestProvider, type TestProvider, walletSignIn } from '@signet/testkit';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireDebianPart } from '../../scripts/debian-parts.mjs';
import { type RelyingParty, registerConfidential, startRelyingParty } from './relying-party.ts';

const DIR = join(import.meta.dirname, 'omniauth');

describe.each(['self-hosted', 'hosted'] as const)('omniauth_openid_connect on the %s profile', (profile) => {
  let provider: TestProvider;
  let app: RelyingParty;

  beforeAll(async () => {
    requireDebianPart('omniauth');
    provider = await startTestProvider({ PROFILE: profile });
    const origin = `http://127.0.0.1:${await freePort()}`;
    const { clientId, clientSecret } = await registerConfidential(provider, `${origin}/auth/signet/callback`);
    app = await startRelyingParty(
      'ruby',
      ['-r', join(DIR, 'http-issuer.rb'), join(DIR, 'app.rb')],
      {
        SIGNET_ISSUER: provider.issuer,
        SIGNET_CLIENT_ID: clientId,
        SIGNET_CLIENT_SECRET: clientSecret,
        BASE_URL: origin,
        SESSION_SECRET: 'a-test-session-secret-that-is-long-enough-for-rack-session-cookies-0123456789',
      },
      origin,
    );
  });
  afterAll(async () => {
    await app?.stop();
    await provider?.stop();
  });

  it('sign in: the POST that starts it, state and nonce, the ID token verified; auth.uid is the subject', async () => {
    const jar = new CookieJar();
    const page = await (await request(jar, `${app.url}/`)).text();
    const token = /name="authenticity_token" value="([^"]+)"/.exec(page)?.[1];
    expect(token, page).toBeTruthy();
    const start = await request(jar, `${app.url}/auth/signet`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ authenticity_token: token as string }),
    });
    expect(start.status, app.output()).toBe(302);
    const authorizationUrl = new URL(start.headers.get('location') as string);
    expect(authorizationUrl.origin).toBe(new URL(provider.url).origin);
    expect(authorizationUrl.searchParams.get('nonce')).toBeTruthy();

    const signer = privateKeyToAccount(generatePrivateKey());
    const { callbackUrl } = await walletSignIn({ authorizationUrl, signer, jar });
    expect(callbackUrl.origin).toBe(app.url);
    const callback = await request(jar, callbackUrl);
    expect(callback.status, `${await callback.clone().text()}\n${app.output()}`).toBe(200);
    expect(await callback.json()).toEqual({ uid: `eip155:1:${signer.address}`, nickname: signer.address, email: null });
  });
});
