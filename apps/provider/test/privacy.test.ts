/**
 * A pairwise client must not learn the address: no claim it receives (ID token, userinfo)
 * carries it, so two sectors cannot correlate the user through a claim.
 */
import { startTestProvider, type TestProvider, walletSignIn } from '@signet/testkit';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const insecure = { execute: [oidc.allowInsecureRequests] };

describe('pairwise subjects reveal no address', () => {
  let provider: TestProvider;
  beforeAll(async () => {
    provider = await startTestProvider({ PROFILE: 'hosted' });
  });
  afterAll(() => provider?.stop());

  const signIn = async (metadata: Record<string, unknown>, scope: string) => {
    const redirectUri = 'http://127.0.0.1:4999/cb';
    const response = await fetch(`${provider.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [redirectUri], ...metadata }),
    });
    const registered = (await response.json()) as Record<string, string>;
    expect(response.status, JSON.stringify(registered)).toBe(201);
    const config = await oidc.discovery(
      new URL(provider.url),
      registered.client_id as string,
      registered.client_secret,
      oidc.ClientSecretBasic(),
      insecure,
    );
    const signer = privateKeyToAccount(generatePrivateKey());
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: redirectUri, scope });
    const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer });
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl);
    const idToken = decodeJwt(tokens.id_token as string);
    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub as string);
    return { signer, idToken, userinfo };
  };

  it('pairwise: neither the ID token nor userinfo carries the address, whatever the scopes', async () => {
    const { signer, idToken, userinfo } = await signIn({ subject_type: 'pairwise' }, 'openid profile siwe');
    const everything = JSON.stringify({ idToken, userinfo }).toLowerCase();
    expect(everything).not.toContain(signer.address.slice(2).toLowerCase());
    expect(idToken.preferred_username).toBeUndefined();
    expect(userinfo.siwe_message).toBeUndefined();
    expect(userinfo.siwe_signature).toBeUndefined();
  });

  it('public: the address stays the username (the subject names it anyway)', async () => {
    const { signer, userinfo } = await signIn({}, 'openid profile siwe');
    expect(userinfo.preferred_username).toBe(signer.address);
    expect(userinfo.siwe_message).toContain(signer.address);
  });
});
