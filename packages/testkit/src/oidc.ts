/** openid-client shortcuts the provider tests share: a registered client, a PKCE authorization URL. */
import * as oidc from 'openid-client';

/** The loopback redirect URI test clients register (nothing listens there: tests read the redirect). */
export const TEST_REDIRECT_URI = 'http://127.0.0.1:4999/callback';

/** openid-client options for a provider on http://localhost (tests only). */
export const insecure = { execute: [oidc.allowInsecureRequests] };

/** Registers a public client (PKCE, no secret) through dynamic registration; more metadata may be given. */
export function registerPublicClient(
  providerUrl: string,
  metadata: Partial<oidc.ClientMetadata> = {},
): Promise<oidc.Configuration> {
  return oidc.dynamicClientRegistration(
    new URL(providerUrl),
    { redirect_uris: [TEST_REDIRECT_URI], token_endpoint_auth_method: 'none', ...metadata },
    oidc.None(),
    insecure,
  );
}

/** An authorization URL with a fresh PKCE S256 verifier (returned with it). */
export async function pkceAuthorization(config: oidc.Configuration, parameters: Record<string, string> = {}) {
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: TEST_REDIRECT_URI,
    scope: 'openid',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...parameters,
  });
  return { url, verifier };
}
