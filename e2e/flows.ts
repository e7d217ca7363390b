/**
 * The relying party's side of a sign-in against a provider process, over plain HTTP: register a
 * public client, build a PKCE authorization URL, exchange a code. Shared by the multi-process tests.
 */
import * as oidc from 'openid-client';

export const REDIRECT_URI = 'http://127.0.0.1:4999/callback';

/** Where a replica is reached: anything with its base URL. */
type Target = { url: string };

export type RegisteredClient = { client_id: string; registration_access_token: string; registration_client_uri: string };

export async function registerPublicClient(target: Target): Promise<RegisteredClient> {
  const response = await fetch(`${target.url}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
  });
  if (response.status !== 201) throw new Error(`registration answered ${response.status}: ${await response.text()}`);
  return response.json() as Promise<RegisteredClient>;
}

export async function authorizationUrl(target: Target, clientId: string, scope = 'openid profile') {
  const verifier = oidc.randomPKCECodeVerifier();
  const url = new URL(`${target.url}/auth`);
  url.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  return { url, verifier };
}

export async function exchange(target: Target, clientId: string, code: string, verifier: string) {
  const response = await fetch(`${target.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
    }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}
