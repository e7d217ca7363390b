/**
 * The oidc-provider instance: Signet's configuration of panva's library. oidc-provider does
 * discovery, registration and its management, PKCE, tokens, introspection, revocation,
 * logout and refresh; Signet supplies the account model, storage, keys, profile and pages.
 *
 * The configuration reads in sections, each a function below or a module beside this one:
 * subjects, cookies and keys, claims and scopes, client rules, lifetimes and refresh, features
 * (features.ts), interactions (sign-in-policy.ts), accounts (find-account.ts), pages (pages.ts),
 * client metadata (client-metadata.ts); then what is installed on the instance.
 */
import { createHmac } from 'node:crypto';
import type { Context } from 'koa';
import { type Configuration, type KoaContextWithOIDC, Provider } from 'oidc-provider';
import { recordSessionLogins } from '../accounts/sessions.ts';
import { JWT_BEARER_GRANT, registerJwtBearerGrant } from '../agents/grant.ts';
import type { DocumentClients } from '../clients/metadata-documents/index.ts';
import { reuseClientObjects } from '../clients/objects.ts';
import { withAuthMethodDefault } from '../clients/rules.ts';
import type { Config } from '../config.ts';
import { TTL } from '../deployment/lifetimes.ts';
import { type ProfileDefinition, profileFor } from '../deployment/profiles.ts';
import { expiresWithSession } from '../device/flow.ts';
import { freshSignatureForDevices } from '../device/policy.ts';
import { LEGAL_PATHS } from '../http/legal.ts';
import type { AuditLog } from '../observability/audit.ts';
import type { Logger } from '../observability/logger.ts';
import type { AccessGate } from '../onchain/access.ts';
import { libraryFetch } from '../outbound/library-fetch.ts';
import type { RefreshGrace } from '../refresh/grace.ts';
import { logLogoutTokens } from '../relying-party/backchannel.ts';
import { scopesSupportedBy } from '../relying-party/scopes.ts';
import { clientSubjects, grantIdOf, type SubjectOf, subjectFor } from '../relying-party/subject.ts';
import { accessTokenIdentity } from '../relying-party/token-claims.ts';
import { jwtAccessTokenClaims, storeJwtAccessTokens } from '../resources/jwt-access-tokens.ts';
import type { Services } from '../services.ts';
import { createOidcAdapter, type Store } from '../storage/index.ts';
import { extraClientMetadata } from './client-metadata.ts';
import { cookieSigner } from './cookie-signing.ts';
import { features } from './features.ts';
import { findAccount } from './find-account.ts';
import { errorPage } from './pages.ts';
import { atomicReplayDetection } from './replay-detection.ts';
import { signInPolicy } from './sign-in-policy.ts';

/** Error codes of a connection that ended before its answer was written: the client's doing, or a slow client cut off. */
const CONNECTION_ENDED = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_HTTP_REQUEST_TIMEOUT',
]);

export type ProviderDependencies = {
  config: Config;
  store: Store;
  logger: Logger;
  jwks: { keys: Record<string, unknown>[] };
  cookieKeys: string[];
  pairwiseSalt: string;
  /** Sets a page's security headers, allowing its form to lead to `redirectUri`'s origin. */
  pageHeaders(ctx: KoaContextWithOIDC, redirectUri?: string): void;
  /** The built stylesheets (hashed names) that oidc-provider's own pages link. */
  stylesheets?: string[];
  /** Clients' access conditions; checked again here whenever a refresh token is used. */
  access?: AccessGate;
  audit?: AuditLog;
  /** CLIENT_ID_METADATA_DOCUMENTS: clients identified by a metadata document (clients/metadata-documents/). */
  documents?: DocumentClients;
  /** REFRESH_REUSE_GRACE_SECONDS: a rotated refresh token presented again within it answers its successor (refresh/). */
  refresh?: RefreshGrace;
  /**
   * What agents' JWT bearer grant uses (agents/; JWT_BEARER_GRANT on). Absent where the provider
   * only validates clients (the CLI): the grant type is then known to client metadata, never served.
   */
  agents?: Services;
};

/** The `sub` each client is given: per grant (relying-party/subject.ts), pairwise where the client's subject type says. */
function subjects(store: Store, pairwiseSalt: string) {
  // Decided per sign-in: the grant the request concerns (relying-party/subject.ts).
  const subjectOf: SubjectOf = (accountId, client, ctx) => subjectFor(store, accountId, client, grantIdOf(ctx, client));
  // Stable per sector (the redirect URIs' host, or sector_identifier_uri's), opaque to clients;
  // over the chain-independent account id for a client with subject_chain "any".
  const pairwiseOf = async (accountId: string, client: { sectorIdentifier?: string }, ctx: KoaContextWithOIDC | undefined) =>
    createHmac('sha256', pairwiseSalt)
      .update(`${client.sectorIdentifier}\0${await subjectOf(accountId, client, ctx)}`)
      .digest('base64url');
  /** The `sub` a client is given for an account: pairwise, chain-independent, or the account id. */
  const clientSubject: SubjectOf = (accountId, client, ctx) =>
    (client as { subjectType?: string }).subjectType === 'pairwise'
      ? pairwiseOf(accountId, client, ctx)
      : subjectOf(accountId, client, ctx);
  return { subjectOf, pairwiseOf, clientSubject };
}

/** Cookies signed as keygrip signs them, compared with timingSafeEqual (cookie-signing.ts). */
function cookies(cookieKeys: string[]): Configuration['cookies'] {
  return {
    keys: cookieSigner(cookieKeys) as unknown as string[],
    long: { httpOnly: true, sameSite: 'lax' },
    short: { httpOnly: true, sameSite: 'lax' },
  };
}

/** Scopes and the claims they carry; a JWT access token's claims (resources/). */
function claimsAndScopes(store: Store, profile: ProfileDefinition, supportedScopes: ReadonlySet<string>) {
  return {
    scopes: profile.scopes,
    claims: {
      // `wallet` and `wallets` reach only account_subject clients (relying-party/account-subject.ts).
      // `amr` (RFC 8176): how the person signed in, where Signet knows it (a passkey: `pop` and more; passkeys/amr.ts).
      openid: ['sub', 'wallet', 'amr'],
      profile: ['preferred_username', 'picture'],
      wallets: ['wallets'],
      siwe: ['siwe_message', 'siwe_signature'],
      ...(supportedScopes.has('email') ? { email: ['email', 'email_verified'] } : {}),
    },
    // Scope claims go into the ID token too, not only to the userinfo endpoint.
    conformIdTokenClaims: false,
    // A JWT access token's `sub` is the client's subject, and its name the ID token's (resources/).
    formats: {
      customizers: {
        jwt: jwtAccessTokenClaims(
          (accountId, client, grantId) => subjectFor(store, accountId, client, grantId),
          (accountId, client, grantId, scopes) => accessTokenIdentity(store, accountId, client, grantId, scopes),
        ) as never,
      },
    },
  } satisfies Partial<Configuration>;
}

/** What a client may be and do: the profile's types and methods, defaults, PKCE, CORS, redirect URIs. */
function clientRules(profile: ProfileDefinition): Partial<Configuration> {
  return {
    responseTypes: profile.responseTypes as Configuration['responseTypes'],
    subjectTypes: profile.subjectTypes as Configuration['subjectTypes'],
    clientAuthMethods: profile.clientAuthMethods as Configuration['clientAuthMethods'],
    clientDefaults: {
      grant_types: ['authorization_code'],
      response_types: ['code'],
      id_token_signed_response_alg: 'RS256',
      token_endpoint_auth_method: profile.defaultClientAuthMethod,
    },
    enabledJWA: {
      idTokenSigningAlgValues: ['RS256'],
      userinfoSigningAlgValues: ['RS256'],
      clientAuthSigningAlgValues: ['RS256', 'PS256', 'ES256', 'EdDSA'],
    },
    // PKCE (S256) is required of public clients; confidential clients may use it.
    pkce: { required: (_ctx, client) => client.clientAuthMethod === 'none' },
    allowOmittingSingleRegisteredRedirectUri: false,
    // Browsers may call the token, userinfo, introspection and revocation endpoints only from
    // the origin of one of the client's redirect URIs, and only for public clients (a browser
    // cannot keep a secret) or userinfo. Discovery and the key set stay open to every origin.
    clientBasedCORS: (ctx, origin, client) =>
      origin !== 'null' &&
      (ctx.oidc.route === 'userinfo' || client.clientAuthMethod === 'none') &&
      (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin),
  };
}

/** Lifetimes, and when refresh tokens are issued. */
function lifetimes(profile: ProfileDefinition): Partial<Configuration> {
  return {
    ttl: { ...TTL },
    // oidc-provider's rule, but a device's tokens do not die with the browser session it was signed in from.
    expiresWithSession: expiresWithSession as Configuration['expiresWithSession'],
    // A client registered for the refresh_token grant, when `offline_access` was asked (oidc-provider's
    // rule); on the hosted profile any code of such a client (rotation stays oidc-provider's: every
    // use of a public client's refresh token replaces it). An agent's assertion (agents/) follows
    // oidc-provider's rule on both profiles: a program asks for `offline_access` when it wants to refresh.
    issueRefreshToken: async (ctx, client, source) =>
      client.grantTypeAllowed('refresh_token') &&
      ((profile.refreshTokensWithoutOfflineAccess && ctx.oidc.params?.grant_type !== JWT_BEARER_GRANT) ||
        source.scopes.has('offline_access')),
  };
}

export function createProvider(deps: ProviderDependencies): Provider {
  const { config, store, logger, jwks, pageHeaders, stylesheets = [], access, documents, refresh } = deps;
  const profile = profileFor(config);
  const supportedScopes = scopesSupportedBy(config);
  const { subjectOf, pairwiseOf, clientSubject } = subjects(store, deps.pairwiseSalt);
  const outbound = libraryFetch(config.allowPrivateFetch);
  const configuration: Configuration = {
    adapter: createOidcAdapter(store, { lostConsume: refresh?.lostConsume }) as unknown as Configuration['adapter'],
    clients: config.staticClients.map((client) =>
      withAuthMethodDefault(client, profile.defaultClientAuthMethod),
    ) as unknown as Configuration['clients'],
    jwks: jwks as Configuration['jwks'],
    cookies: cookies(deps.cookieKeys),
    routes: profile.routes,
    ...claimsAndScopes(store, profile, supportedScopes),
    ...clientRules(profile),
    ...lifetimes(profile),
    features: features({ config, profile, supportedScopes, stylesheets, pageHeaders, documents }),
    interactions: {
      url: (_ctx, interaction) => `/interaction/${interaction.uid}`,
      policy: freshSignatureForDevices(signInPolicy(access, store, clientSubject)),
    },
    discovery: {
      op_policy_uri: `${config.baseUrl}${LEGAL_PATHS.privacy}`,
      op_tos_uri: `${config.baseUrl}${LEGAL_PATHS.terms}`,
    },
    extraClientMetadata: extraClientMetadata(config, supportedScopes),
    // Outbound fetches go to public addresses only (outbound/); metadata documents through their own path.
    fetch: documents ? documents.fetchThrough(outbound) : outbound,
    findAccount: findAccount({ store, logger, access, audit: deps.audit, refresh }),
    pairwiseIdentifier: (ctx, accountId, client) => pairwiseOf(accountId, client as { sectorIdentifier?: string }, ctx),
    renderError: errorPage(logger, stylesheets),
  };

  const provider = new Provider(config.issuer, configuration);
  provider.proxy = config.trustProxy;
  // Behind one proxy: the client address is the X-Forwarded-For entry that proxy appended (the
  // last one); entries before it are whatever the client sent and are never trusted.
  provider.maxIpsCount = 1;
  clientSubjects(provider, subjectOf);
  if (config.jwtBearerGrant) registerJwtBearerGrant(provider, deps.agents);
  const staticIds = new Set(config.staticClients.map((client) => String(client.client_id)));
  reuseClientObjects(provider, store, staticIds);
  documents?.install(provider, staticIds);
  storeJwtAccessTokens(provider, config.issuer, jwks);
  atomicReplayDetection(provider, store);
  recordSessionLogins(provider, store, (error) => logger.warn({ err: error }, 'could not record a session login'));
  logLogoutTokens(provider, logger);
  logErrors(provider, logger);
  return provider;
}

/**
 * oidc-provider's server errors, and Koa's 'error' event: an error no middleware answered (Koa's
 * 500), or an answer that could not be delivered because the connection ended first (the client
 * went away, or the server's deadline closed a slow client's connection with a 408). Logged as
 * JSON with the request id; without a listener Koa would print the stack on stderr.
 */
function logErrors(provider: Provider, logger: Logger) {
  provider.on('server_error', (_ctx: unknown, error: Error) => logger.error({ err: error }, 'oidc-provider server error'));
  type KoaError = Error & { status?: number; expose?: boolean; code?: string };
  (provider as unknown as { on(event: 'error', listener: (error: KoaError, ctx?: Context) => void): void }).on(
    'error',
    (error, ctx) => {
      if (error.status === 404 || error.expose) return;
      const reqId = (ctx?.state as { reqId?: string } | undefined)?.reqId;
      if (error.code && CONNECTION_ENDED.has(error.code)) {
        logger.info({ reqId, reason: error.code }, `connection ended before the answer (${error.message})`);
      } else {
        logger.error({ reqId, err: error }, 'request failed');
      }
    },
  );
}
