/**
 * Client libraries people use: those that send the secret in the body (client_secret_post), and
 * browser apps on the hosted profile that renew their session with a (rotating) refresh token.
 */
import { startTestProvider, TEST_REDIRECT_URI, walletSignIn } from '@signet/testkit';
import * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';

const insecure = { execute: [oidc.allowInsecureRequests] };

async function signIn(config: oidc.Configuration, scope: string) {
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: TEST_REDIRECT_URI,
    scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer: privateKeyToAccount(generatePrivateKey()) });
  return oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier });
}

describe('client authentication and refresh for the libraries people use', () => {
  it('self-hosted accepts and advertises client_secret_post', async () => {
    const provider = await startTestProvider();
    try {
      const discovery = await (await fetch(`${provider.url}/.well-known/openid-configuration`)).json();
      expect(discovery.token_endpoint_auth_methods_supported).toContain('client_secret_post');
      const registered = await oidc.dynamicClientRegistration(
        new URL(provider.url),
        { redirect_uris: [TEST_REDIRECT_URI], token_endpoint_auth_method: 'client_secret_post' },
        undefined,
        insecure,
      );
      const metadata = registered.clientMetadata();
      expect(metadata.client_secret).toEqual(expect.any(String));
      const config = await oidc.discovery(
        new URL(provider.url),
        metadata.client_id,
        metadata.client_secret as string,
        oidc.ClientSecretPost(),
        insecure,
      );
      const tokens = await signIn(config, 'openid');
      expect(tokens.access_token).toBeTruthy();
    } finally {
      await provider.stop();
    }
  });

  it('hosted: a browser app registered for refresh_token gets one without offline_access, and it rotates', async () => {
    const provider = await startTestProvider({ PROFILE: 'hosted' });
    try {
      const discovery = await (await fetch(`${provider.url}/.well-known/openid-configuration`)).json();
      // The spec table's scopes, exactly.
      expect(discovery.scopes_supported).toEqual(['openid', 'profile']);
      expect(discovery.grant_types_supported).toContain('refresh_token');
      const registered = await oidc.dynamicClientRegistration(
        new URL(provider.url),
        {
          redirect_uris: [TEST_REDIRECT_URI],
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code', 'refresh_token'],
        },
        undefined,
        insecure,
      );
      const config = await oidc.discovery(
        new URL(provider.url),
        registered.clientMetadata().client_id,
        undefined,
        oidc.None(),
        insecure,
      );
      const tokens = await signIn(config, 'openid profile');
      expect(tokens.refresh_token).toBeTruthy();
      const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
      expect(refreshed.access_token).toBeTruthy();
      expect(refreshed.refresh_token).toBeTruthy();
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
      // Rotation: presented again within REFRESH_REUSE_GRACE_SECONDS, the old token answers the
      // same pair (a lost response); once the successor has been used, it is spent.
      const again = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
      expect(again.refresh_token).toBe(refreshed.refresh_token);
      await oidc.refreshTokenGrant(config, refreshed.refresh_token as string);
      await expect(oidc.refreshTokenGrant(config, tokens.refresh_token as string)).rejects.toMatchObject({
        error: 'invalid_grant',
      });
      // A client not registered for refresh_token gets none.
      const plain = await oidc.dynamicClientRegistration(
        new URL(provider.url),
        { redirect_uris: [TEST_REDIRECT_URI], token_endpoint_auth_method: 'none' },
        undefined,
        insecure,
      );
      const plainConfig = await oidc.discovery(
        new URL(provider.url),
        plain.clientMetadata().client_id,
        undefined,
        oidc.None(),
        insecure,
      );
      expect((await signIn(plainConfig, 'openid')).refresh_token).toBeUndefined();
    } finally {
      await provider.stop();
    }
  });
});

describe('client authentication and refresh for the libraries people use: CORS', () => {
  it('CORS: browsers reach the token endpoint and userinfo only from a registered origin', async () => {
    const provider = await startTestProvider();
    try {
      const appOrigin = new URL(TEST_REDIRECT_URI).origin;
      const evil = 'https://evil.example';
      const discovery = await fetch(`${provider.url}/.well-known/openid-configuration`, { headers: { origin: evil } });
      expect(discovery.headers.get('access-control-allow-origin')).toBe(evil);
      const jwks = await fetch(`${provider.url}/jwks`, { headers: { origin: evil } });
      expect(jwks.headers.get('access-control-allow-origin')).toBe(evil);

      const register = async (method: string) =>
        (
          await oidc.dynamicClientRegistration(
            new URL(provider.url),
            { redirect_uris: [TEST_REDIRECT_URI], token_endpoint_auth_method: method },
            undefined,
            insecure,
          )
        ).clientMetadata();
      const token = (origin: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
        fetch(`${provider.url}/token`, {
          method: 'POST',
          headers: { origin, 'content-type': 'application/x-www-form-urlencoded', ...headers },
          body: new URLSearchParams({ grant_type: 'authorization_code', code: 'x', redirect_uri: TEST_REDIRECT_URI, ...body }),
        });
      const pub = await register('none');
      const foreign = await token(evil, { client_id: pub.client_id, code_verifier: 'v'.repeat(43) });
      expect(foreign.status).toBe(400);
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
      expect(await foreign.json()).toMatchObject({
        error: 'invalid_request',
        error_description: expect.stringContaining('origin'),
      });
      const own = await token(appOrigin, { client_id: pub.client_id, code_verifier: 'v'.repeat(43) });
      expect(await own.json()).toMatchObject({ error: 'invalid_grant' });
      expect(own.headers.get('access-control-allow-origin')).toBe(appOrigin);

      // A confidential client is a server: no browser origin may use its credentials.
      const secret = await register('client_secret_basic');
      const basic = `Basic ${Buffer.from(`${encodeURIComponent(secret.client_id)}:${encodeURIComponent(secret.client_secret as string)}`).toString('base64')}`;
      const confidential = await token(appOrigin, {}, { authorization: basic });
      expect(confidential.status).toBe(400);
      expect(confidential.headers.get('access-control-allow-origin')).toBeNull();

      // userinfo: only from the origin of the token's client.
      const config = await oidc.discovery(new URL(provider.url), pub.client_id, undefined, oidc.None(), insecure);
      const { access_token } = await signIn(config, 'openid');
      const userinfo = (origin: string) =>
        fetch(`${provider.url}/me`, { headers: { origin, authorization: `Bearer ${access_token}` } });
      const fromApp = await userinfo(appOrigin);
      expect(fromApp.status).toBe(200);
      expect(fromApp.headers.get('access-control-allow-origin')).toBe(appOrigin);
      const fromEvil = await userinfo(evil);
      expect(fromEvil.status).toBe(400);
      expect(fromEvil.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await provider.stop();
    }
  });
});
