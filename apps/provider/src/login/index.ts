/**
 * A program that holds its own key (Ethereum or Solana) signs in to a client it is registered
 * as, without a browser, and gets the client's tokens: standard OAuth on the wire, no grant of
 * Signet's own. Two ways, picked by `grant` (LoginGrant):
 *
 * - the JWT bearer grant (RFC 7523), for a client registered with it (an agent's: no redirect
 *   URI): one token request with an assertion the key signs (assertion.ts);
 * - the authorization code flow with PKCE, the browser's part done through the
 *   interaction contract (docs/ARCHITECTURE.md) exactly as the wallet page does it:
 *
 *   1. discovery, then GET the authorization endpoint (PKCE S256, state, nonce) with a fresh
 *      cookie jar: 303 to /interaction/<uid>, with the interaction's cookies;
 *   2. GET /interaction/<uid> as JSON: the details;
 *   3. the message from the details by the very functions the page uses (`messageFromDetails`,
 *      `solanaMessageFromDetails`), dated by the provider's clock, signed with the key;
 *   4. POST it: 303 onward; the redirects followed, on the provider, up to the redirect URI
 *      with the code (nothing needs to listen there: the code is read from the Location);
 *   5. the code exchanged with the PKCE verifier (openid-client checks the ID token, state, nonce).
 *
 * Before signing, the details must be the issuer's (`details-check.ts`): the domain its host, the
 * URI on its origin, the resources exactly the program's redirect URI.
 *
 * Each login is a fresh signature checked as a person's is (message, nonce, domain, resource,
 * chain, a gated client's holdings): the jar starts empty, so no provider session is reused.
 * `refresh` renews the tokens with the refresh token (a client registered for that grant; on the
 * self-hosted profile ask for `offline_access`).
 */
import { base58 } from '@scure/base';
import type { SolanaNetwork } from '@signet/siws/message';
import * as oidc from 'openid-client';
import { CookieJar } from 'tough-cookie';
import { messageFromDetails } from '../signin/contract.ts';
import type { InteractionDetails } from '../signin/details.ts';
import { solanaMessageFromDetails } from '../signin/solana/contract.ts';
import { JWT_BEARER_GRANT, signAssertion } from './assertion.ts';
import { checkDetailsAreTheIssuers } from './details-check.ts';
import { LoginError } from './errors.ts';
import type { LoginSigner } from './keys.ts';

export { type AssertionOptions, assertionSubject, JWT_BEARER_GRANT, signAssertion } from './assertion.ts';
export { LoginError } from './errors.ts';
export { type EthereumSigner, ethereumKey, type LoginSigner, type SolanaSigner, solanaKey } from './keys.ts';

export type ClientOptions = {
  /** The issuer exactly as discovery names it (hosted: with its trailing slash). */
  issuer: string;
  clientId: string;
  /** A confidential client's secret (sent as HTTP Basic); none for a public client. */
  clientSecret?: string;
};

/**
 * How to sign in: `jwt-bearer`, one request with an assertion signed by the key (RFC 7523: a client
 * registered with that grant); `authorization_code`, the interactive path through the interaction
 * contract (a client with a redirect URI). Default: `jwt-bearer` when no redirect URI is given,
 * `authorization_code` when one is: a client that has the grant needs no redirect URI, and one
 * without it keeps signing in as before, with no refused request first.
 */
export type LoginGrant = 'jwt-bearer' | 'authorization_code';

export type LoginOptions = ClientOptions & {
  /** One of the client's registered redirect URIs (nothing needs to listen there); the interactive path only. */
  redirectUri?: string;
  /** Default: `jwt-bearer` without redirectUri, `authorization_code` with it. */
  grant?: LoginGrant;
  signer: LoginSigner;
  /** Default `openid`. */
  scope?: string;
  /** Ethereum: the chain to sign on (default: the first the provider allows). */
  chainId?: number;
  /** Solana: the cluster (default: the first the provider allows). */
  solanaNetwork?: SolanaNetwork;
};

export type Tokens = {
  /** Always from a login; from a refresh when the grant has `openid`. */
  id_token?: string;
  access_token: string;
  token_type: string;
  refresh_token?: string;
  expires_in?: number;
  scope?: string;
};

export type LoginResult = {
  /** The ID token's `sub` (as this client is given it: the account id, or a pairwise value). */
  sub: string;
  tokens: Tokens;
  /** The ID token's claims, checked by openid-client (signature, issuer, audience, nonce). */
  claims: Record<string, unknown>;
  /** New tokens from this result's refresh token (LoginError when there is none, or it is refused). */
  refresh(): Promise<LoginResult>;
};

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

async function configure(options: ClientOptions): Promise<oidc.Configuration> {
  let issuer: URL;
  try {
    issuer = new URL(options.issuer);
  } catch {
    throw new LoginError('INVALID_ISSUER', `the issuer ${JSON.stringify(options.issuer)} is not a URL`);
  }
  // http:// only for a loopback issuer (development); anything else must be https.
  const insecure = issuer.protocol === 'http:';
  if (insecure && !LOOPBACK.has(issuer.hostname)) {
    throw new LoginError('INSECURE_ISSUER', `the issuer must be https (http is taken only for localhost): ${issuer.href}`);
  }
  const execute = insecure ? [oidc.allowInsecureRequests] : [];
  try {
    return await oidc.discovery(
      issuer,
      options.clientId,
      options.clientSecret,
      options.clientSecret === undefined ? oidc.None() : oidc.ClientSecretBasic(),
      { execute },
    );
  } catch (error) {
    throw fromOidcError(error, `discovery at ${issuer.href} failed`);
  }
}

/** openid-client's errors (an OAuth error answer, a bad response, a network failure), in words. */
function fromOidcError(error: unknown, doing: string): LoginError {
  if (error instanceof LoginError) return error;
  const e = error as { error?: string; error_description?: string; status?: number; message?: string; cause?: unknown };
  if (typeof e.error === 'string') {
    return new LoginError(e.error, e.error_description ?? `${doing}: ${e.error}`, e.status);
  }
  const cause = e.cause as { error?: string; error_description?: string } | undefined;
  if (typeof cause?.error === 'string') {
    return new LoginError(cause.error, cause.error_description ?? `${doing}: ${cause.error}`, e.status);
  }
  // A 401 with WWW-Authenticate (a wrong client secret): the challenge's parameters.
  const challenge = Array.isArray(e.cause)
    ? (e.cause as { parameters?: { error?: string; error_description?: string } }[]).find((c) => c.parameters?.error)
    : undefined;
  if (challenge?.parameters?.error) {
    const { error: code, error_description: description } = challenge.parameters;
    return new LoginError(code, description ?? `${doing}: ${code}`, e.status);
  }
  return new LoginError('UNEXPECTED_ANSWER', `${doing}: ${e.message ?? String(error)}`, e.status);
}

/** HTTP with the jar's cookies and no automatic redirects (each hop is looked at). */
function browserOf() {
  const jar = new CookieJar();
  return async (url: URL, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    const cookie = await jar.getCookieString(url.href);
    if (cookie) headers.set('cookie', cookie);
    let response: Response;
    try {
      response = await fetch(url, { ...init, headers, redirect: 'manual' });
    } catch (error) {
      throw new LoginError('UNEXPECTED_ANSWER', `${url.origin} could not be reached (${(error as Error).message})`);
    }
    for (const header of response.headers.getSetCookie()) await jar.setCookie(header, url.href, { ignoreError: true });
    return response;
  };
}

/** A refusal's words: the provider's `{ error, error_description }`, or the start of whatever it sent. */
async function refusal(response: Response, doing: string): Promise<LoginError> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { error?: unknown; error_description?: unknown };
    if (typeof body.error === 'string') {
      return new LoginError(
        body.error,
        typeof body.error_description === 'string' ? body.error_description : `${doing}: ${body.error}`,
        response.status,
      );
    }
  } catch {
    // not JSON
  }
  return new LoginError('UNEXPECTED_ANSWER', `${doing}: HTTP ${response.status}`, response.status);
}

/** The error a redirect carries to the redirect URI (RFC 6749 §4.1.2.1), if any. */
function redirectError(url: URL): LoginError | undefined {
  const error = url.searchParams.get('error');
  return error ? new LoginError(error, url.searchParams.get('error_description') ?? error) : undefined;
}

/** Signs in with the signer's key and returns the client's tokens. Throws LoginError, in words. */
export async function login(options: LoginOptions): Promise<LoginResult> {
  const grant = options.grant ?? (options.redirectUri === undefined ? 'jwt-bearer' : 'authorization_code');
  if (grant === 'authorization_code' && options.redirectUri === undefined) {
    throw new LoginError(
      'MISSING_REDIRECT_URI',
      'the interactive sign-in (authorization_code) needs one of the client’s redirect URIs',
    );
  }
  const config = await configure(options);
  if (grant === 'jwt-bearer') return jwtBearerLogin(config, options);
  return interactiveLogin(config, { ...options, redirectUri: options.redirectUri as string });
}

/**
 * The JWT bearer grant (RFC 7523): one token request with an assertion signed by the key
 * (assertion.ts); the ID token is checked by openid-client (signature, issuer, audience).
 */
async function jwtBearerLogin(config: oidc.Configuration, options: LoginOptions): Promise<LoginResult> {
  const metadata = config.serverMetadata();
  if (!metadata.grant_types_supported?.includes(JWT_BEARER_GRANT)) {
    throw new LoginError(
      'GRANT_NOT_SUPPORTED',
      `${metadata.issuer} does not offer the JWT bearer grant; sign in interactively (give a redirect URI)`,
    );
  }
  const assertion = await signAssertion(options.signer, {
    audience: metadata.issuer,
    chainId: options.chainId,
    solanaNetwork: options.solanaNetwork,
  });
  try {
    const tokens = await oidc.genericGrantRequest(config, JWT_BEARER_GRANT, { assertion, scope: options.scope ?? 'openid' });
    return resultOf(config, tokens);
  } catch (error) {
    throw fromOidcError(error, 'the assertion was refused');
  }
}

/** The message of these details, built as the wallet page builds it, and the signer's signature of it. */
async function signedMessage(
  details: InteractionDetails,
  options: LoginOptions,
  now: number,
): Promise<{ message: string; signature: string }> {
  const { signer } = options;
  if (signer.kind === 'solana') {
    if (!details.namespaces.includes('solana')) {
      throw new LoginError('NAMESPACE_NOT_OFFERED', 'this sign-in does not take Solana accounts (the provider or the client)');
    }
    const network = options.solanaNetwork ?? details.solanaNetworks?.[0];
    if (!network || !details.solanaNetworks?.includes(network)) {
      throw new LoginError(
        'NAMESPACE_NOT_OFFERED',
        `Solana network ${network} is not one of ${details.solanaNetworks?.join(', ')}`,
      );
    }
    const message = solanaMessageFromDetails(details, { address: signer.address, network, now });
    return { message, signature: base58.encode(await signer.signMessage(message)) };
  }
  if (!details.namespaces.includes('eip155')) {
    throw new LoginError('NAMESPACE_NOT_OFFERED', 'this sign-in does not take Ethereum accounts');
  }
  const message = messageFromDetails(details, { address: signer.address, chainId: options.chainId, now });
  return { message, signature: await signer.signMessage(message) };
}

/** The authorization code flow with PKCE, the browser's part done through the interaction contract. */
async function interactiveLogin(
  config: oidc.Configuration,
  options: LoginOptions & { redirectUri: string },
): Promise<LoginResult> {
  const browser = browserOf();
  const redirect = new URL(options.redirectUri);
  const at = (url: URL) => url.origin === redirect.origin && url.pathname === redirect.pathname;

  // 1. The authorization request.
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const scope = options.scope ?? 'openid';
  const authorizationUrl = oidc.buildAuthorizationUrl(config, {
    redirect_uri: options.redirectUri,
    scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    // offline_access is granted only with prompt=consent (OpenID Connect Core §11); the signature is the consent.
    ...(scope.split(' ').includes('offline_access') ? { prompt: 'consent' } : {}),
  });
  const started = await browser(authorizationUrl, { headers: { accept: 'application/json' } });
  const location = started.headers.get('location');
  if (!location) throw await refusal(started, 'the authorization request was refused');
  const interactionUrl = new URL(location, authorizationUrl);
  if (at(interactionUrl)) throw redirectError(interactionUrl) ?? new LoginError('UNEXPECTED_ANSWER', 'no sign-in was asked for');
  if (interactionUrl.origin !== new URL(options.issuer).origin || !interactionUrl.pathname.startsWith('/interaction/')) {
    throw new LoginError(
      'UNEXPECTED_ANSWER',
      `the authorization request led to ${interactionUrl.origin}${interactionUrl.pathname}`,
    );
  }

  // 2. The details.
  const detailsResponse = await browser(interactionUrl, { headers: { accept: 'application/json' } });
  if (detailsResponse.status !== 200) throw await refusal(detailsResponse, 'the sign-in details could not be read');
  const read = Date.now();
  const details = (await detailsResponse.json()) as InteractionDetails;
  // Signed only if they are the issuer's own details for this program's redirect URI (a relay
  // in front of another provider would otherwise get a signature it can spend there).
  checkDetailsAreTheIssuers(details, new URL(options.issuer), options.redirectUri);
  // The provider's clock, as the page corrects for a skewed local one.
  const now = Date.parse(details.serverTime) + (Date.now() - read);

  // 3. The message, as the wallet page builds it, and its signature.
  const { message, signature } = await signedMessage(details, options, now);

  // 4. The signature; then the provider's redirects, up to the redirect URI.
  const posted = await browser(interactionUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ message, signature }),
  });
  if (posted.status !== 303) throw await refusal(posted, 'the signature was refused');
  let url = new URL(posted.headers.get('location') as string, interactionUrl);
  for (let hop = 0; !at(url); hop++) {
    if (hop === 5 || url.origin !== interactionUrl.origin) {
      throw new LoginError(
        'UNEXPECTED_ANSWER',
        `the sign-in did not end at the redirect URI (it went to ${url.origin}${url.pathname})`,
      );
    }
    const response = await browser(url);
    const next = response.headers.get('location');
    if (!next) throw await refusal(response, 'the sign-in did not finish');
    url = new URL(next, url);
  }
  const carried = redirectError(url);
  if (carried) throw carried;

  // 5. The code, exchanged with the PKCE verifier.
  try {
    const tokens = await oidc.authorizationCodeGrant(config, url, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    return resultOf(config, tokens);
  } catch (error) {
    throw fromOidcError(error, 'the code exchange failed');
  }
}

function resultOf(
  config: oidc.Configuration,
  response: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers,
): LoginResult {
  const claims = (response.claims() ?? {}) as Record<string, unknown>;
  const tokens: Tokens = {
    ...(response.id_token ? { id_token: response.id_token } : {}),
    access_token: response.access_token,
    token_type: response.token_type,
    ...(response.refresh_token ? { refresh_token: response.refresh_token } : {}),
    ...(response.expires_in === undefined ? {} : { expires_in: response.expires_in }),
    ...(response.scope ? { scope: response.scope } : {}),
  };
  return {
    sub: String(claims.sub),
    tokens,
    claims,
    refresh: () => refreshWith(config, tokens.refresh_token),
  };
}

async function refreshWith(config: oidc.Configuration, refreshToken: string | undefined): Promise<LoginResult> {
  if (!refreshToken) {
    throw new LoginError(
      'NO_REFRESH_TOKEN',
      'this sign-in gave no refresh token (register the client for the refresh_token grant; on the self-hosted profile ask for offline_access)',
    );
  }
  try {
    return resultOf(config, await oidc.refreshTokenGrant(config, refreshToken));
  } catch (error) {
    throw fromOidcError(error, 'the refresh failed');
  }
}

/** New tokens from a refresh token kept since an earlier login (a file, a secret store). */
export async function refresh(options: ClientOptions & { refreshToken: string }): Promise<LoginResult> {
  return refreshWith(await configure(options), options.refreshToken);
}
