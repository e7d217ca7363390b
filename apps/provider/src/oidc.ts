/**
 * The oidc-provider instance: Signet's configuration of panva's library. oidc-provider does
 * discovery, registration and its management, PKCE, tokens, introspection, revocation,
 * logout and refresh; Signet supplies the account model, storage, keys, profile and pages.
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import { type Configuration, errors, interactionPolicy, type KoaContextWithOIDC, Provider } from 'oidc-provider';
import { AccessDeniedError, type AccessGate, AccessRpcError, accessConditionsProblem } from './access.ts';
import { claimsOf, loadSignIn, parseAccountId } from './account.ts';
import { assertRedirectUris, withAuthMethodDefault } from './clients.ts';
import type { Config } from './config.ts';
import { html, layout, raw } from './html.ts';
import { LEGAL_PATHS } from './legal.ts';
import type { Logger } from './logger.ts';
import { type AuditLog, requestFields } from './observability/audit.ts';
import { publicUrlProblem } from './outbound.ts';
import { PROFILES } from './profiles.ts';
import { createOidcAdapter, type Store } from './storage/index.ts';

/** Error codes of a connection that ended before its answer was written: the client's doing, or a slow client cut off. */
const CONNECTION_ENDED = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_HTTP_REQUEST_TIMEOUT',
]);

/** Lifetimes of the specification, in seconds. */
export const TTL = {
  AuthorizationCode: 60,
  AccessToken: 3600,
  IdToken: 3600,
  Session: 24 * 3600,
  Grant: 24 * 3600,
  Interaction: 10 * 60,
  RefreshToken: 24 * 3600,
} as const;

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
};

/** 503 from oidc-provider's own endpoints (the token endpoint) when a chain cannot be asked. */
class TemporarilyUnavailable extends errors.OIDCProviderError {
  constructor(description: string) {
    super(503, 'temporarily_unavailable');
    Object.assign(this, { error_description: description, expose: true });
  }
}

function page(ctx: KoaContextWithOIDC, title: string, body: ReturnType<typeof html>, stylesheets: string[]) {
  ctx.type = 'html';
  ctx.body = layout({ title, body, stylesheets });
}

/**
 * oidc-provider's default prompts, plus one login check: a session whose account no longer meets
 * a gated client's access conditions gets no silent code (prompt=none: login_required); the
 * person signs again, and the sign-in checks whoever signs. Right after a sign-in (which has just
 * checked) and for ungated clients it costs nothing.
 */
function policyWithAccessConditions(access: AccessGate | undefined) {
  const policy = interactionPolicy.base();
  if (!access) return policy;
  const { Check } = interactionPolicy;
  policy.get('login')?.checks.add(
    new Check('access_conditions', "the account does not meet this client's access conditions", 'login_required', async (ctx) => {
      const { oidc } = ctx;
      const accountId = oidc.session?.accountId;
      if (!accountId || !oidc.client || (oidc.result as { login?: unknown } | undefined)?.login) return Check.NO_NEED_TO_PROMPT;
      const holder = parseAccountId(accountId)?.address;
      if (!holder) return Check.REQUEST_PROMPT;
      try {
        await access.enforce(oidc.client, accountId, holder);
        return Check.NO_NEED_TO_PROMPT;
      } catch {
        // Not met, or the chain could not be asked: ask for a signature; the sign-in then
        // answers with the precise refusal (403, or 503 RPC_UNAVAILABLE).
        return Check.REQUEST_PROMPT;
      }
    }),
  );
  return policy;
}

export function createProvider({
  config,
  store,
  logger,
  jwks,
  cookieKeys,
  pairwiseSalt,
  pageHeaders,
  stylesheets = [],
  access,
  audit,
}: ProviderDependencies): Provider {
  const profile = PROFILES[config.profile];
  const configuration: Configuration = {
    adapter: createOidcAdapter(store) as unknown as Configuration['adapter'],
    clients: config.staticClients.map((client) =>
      withAuthMethodDefault(client, profile.defaultClientAuthMethod),
    ) as unknown as Configuration['clients'],
    jwks: jwks as Configuration['jwks'],
    cookies: {
      keys: cookieKeys,
      long: { httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
    },
    routes: profile.routes,
    scopes: profile.scopes,
    claims: {
      openid: ['sub'],
      profile: ['preferred_username', 'picture'],
      siwe: ['siwe_message', 'siwe_signature'],
    },
    // Scope claims go into the ID token too, not only to the userinfo endpoint.
    conformIdTokenClaims: false,
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
    pkce: {
      // PKCE (S256) is required of public clients; confidential clients may use it.
      required: (_ctx, client) => client.clientAuthMethod === 'none',
    },
    ttl: { ...TTL },
    ...(profile.refreshTokensWithoutOfflineAccess
      ? {
          // Any code of a client registered for the refresh_token grant (rotation stays oidc-provider's:
          // every use of a public client's refresh token replaces it).
          issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) =>
            client.grantTypeAllowed('refresh_token'),
        }
      : {}),
    allowOmittingSingleRegisteredRedirectUri: false,
    // Browsers may call the token, userinfo, introspection and revocation endpoints only from
    // the origin of one of the client's redirect URIs, and only for public clients (a browser
    // cannot keep a secret) or userinfo. Discovery and the key set stay open to every origin.
    clientBasedCORS: (ctx, origin, client) =>
      origin !== 'null' &&
      (ctx.oidc.route === 'userinfo' || client.clientAuthMethod === 'none') &&
      (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin),
    features: {
      devInteractions: { enabled: false },
      registration: {
        enabled: true,
        // The earliest hook in oidc-provider's registration handler, run before it decides
        // whether the client gets a secret: apply the profile's default auth method there, so
        // a client that names none is registered (and answered) as that default says.
        idFactory: (ctx) => {
          const body = ctx.oidc.body as Record<string, unknown> | undefined;
          if (body && body.token_endpoint_auth_method === undefined) {
            body.token_endpoint_auth_method = profile.defaultClientAuthMethod;
          }
          return randomUUID();
        },
        initialAccessToken: config.registrationToken ?? false,
      },
      registrationManagement: { enabled: true, rotateRegistrationAccessToken: false },
      introspection: { enabled: true },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      jwtUserinfo: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx, form) => {
          const client = ctx.oidc.client;
          // The confirmation form's redirect ends at the client's post_logout_redirect_uri.
          pageHeaders(ctx, ctx.oidc.params?.post_logout_redirect_uri as string | undefined);
          page(
            ctx,
            'Sign out',
            html`<main class="card narrow">
  <h1>Sign out of ${config.domain}?</h1>
  ${client ? html`<p>${client.clientName ?? client.clientId} asked to end your Signet session.</p>` : ''}
  ${raw(form)}
  <div class="actions">
    <button class="primary" type="submit" form="op.logoutForm" name="logout" value="yes" autofocus>Sign out</button>
    <button type="submit" form="op.logoutForm">Stay signed in</button>
  </div>
</main>`,
            stylesheets,
          );
        },
        postLogoutSuccessSource: async (ctx) => {
          page(
            ctx,
            'Signed out',
            html`<main class="card narrow"><h1>You are signed out</h1><p>You can close this window.</p></main>`,
            stylesheets,
          );
        },
      },
    },
    interactions: {
      url: (_ctx, interaction) => `/interaction/${interaction.uid}`,
      policy: policyWithAccessConditions(access),
    },
    discovery: {
      op_policy_uri: `${config.baseUrl}${LEGAL_PATHS.privacy}`,
      op_tos_uri: `${config.baseUrl}${LEGAL_PATHS.terms}`,
    },
    extraClientMetadata: {
      // RFC 7591 metadata oidc-provider does not know, accepted and stored as given. Their
      // validator also runs Signet's redirect URI rule on every client, however it arrives.
      // access_conditions: what an account must hold to sign in to this client (access.ts).
      properties: ['software_id', 'software_version', 'access_conditions'],
      validator(_ctx, key, value, metadata) {
        if (key === 'access_conditions') {
          const problem =
            value === undefined ? undefined : accessConditionsProblem(value, Object.keys(config.rpcUrls).map(Number));
          if (problem) throw new errors.InvalidClientMetadata(problem);
          return;
        }
        if (value !== undefined && typeof value !== 'string') {
          throw new errors.InvalidClientMetadata(`${key} must be a string`);
        }
        if (key === 'software_id') assertRedirectUris(metadata as never);
      },
    },
    // Client documents (jwks_uri, sector_identifier_uri) are fetched only from public addresses:
    // Signet's one rule (outbound.ts) before the request, then oidc-provider's own dispatcher,
    // which checks the address it actually connected to. ALLOW_PRIVATE_FETCH lifts both for development.
    fetch: async (url, options) => {
      if (config.allowPrivateFetch) {
        delete (options as { dispatcher?: unknown }).dispatcher;
      } else {
        const problem = await publicUrlProblem(String(url));
        if (problem) throw new Error(`refusing to fetch ${String(url)}: ${problem}`);
      }
      return globalThis.fetch(url, options);
    },
    async findAccount(ctx, accountId, token) {
      const grantId =
        (token as { grantId?: string } | undefined)?.grantId ??
        (ctx.oidc.entities.Grant as { jti?: string } | undefined)?.jti ??
        (ctx.oidc.result as { consent?: { grantId?: string } } | undefined)?.consent?.grantId;
      // A refresh token is the one place a grant lives on without a new signature: holdings may
      // have changed since, so a gated client's conditions are checked again, before
      // oidc-provider rotates or spends anything. Not met: the grant and its tokens go.
      if (access && ctx.oidc.route === 'token' && ctx.oidc.params?.grant_type === 'refresh_token' && ctx.oidc.client) {
        const holder = parseAccountId(accountId)?.address;
        try {
          if (!holder) throw new AccessDeniedError('the account is not an Ethereum account', []);
          await access.enforce(ctx.oidc.client, accountId, holder);
        } catch (error) {
          if (error instanceof AccessRpcError) throw new TemporarilyUnavailable(`RPC_UNAVAILABLE: ${error.message}; try again`);
          if (!(error instanceof AccessDeniedError)) throw error;
          if (grantId) {
            await Promise.all([
              provider.AccessToken.revokeByGrantId(grantId),
              provider.RefreshToken.revokeByGrantId(grantId),
              provider.AuthorizationCode.revokeByGrantId(grantId),
              provider.Grant.adapter.destroy(grantId),
            ]);
          }
          logger.info(
            { event: 'access_revoked', sub: accountId, client_id: ctx.oidc.client.clientId },
            'access conditions no longer met',
          );
          audit?.write('refresh.refused', {
            client_id: ctx.oidc.client.clientId,
            account: accountId,
            reason: 'ACCESS_CONDITION_NOT_MET',
            description: error.message,
            grant_revoked: grantId !== undefined,
            ...requestFields(ctx),
          });
          throw Object.assign(new errors.InvalidGrant('access conditions not met'), {
            error_description: `ACCESS_CONDITION_NOT_MET: ${error.message}; the grant is revoked`,
          });
        }
      }
      const pairwise = (ctx.oidc.client as { subjectType?: string } | undefined)?.subjectType === 'pairwise';
      // The sign-in record is read when claims are asked for (ID token, userinfo), once per
      // request; oidc-provider also finds the account where it needs no claims (the resume).
      let record: ReturnType<typeof loadSignIn> | undefined;
      return {
        accountId,
        claims: async () => {
          record ??= loadSignIn(store, grantId);
          return claimsOf(accountId, await record, { pairwise });
        },
      };
    },
    async pairwiseIdentifier(_ctx, accountId, client) {
      // Stable per sector (the redirect URIs' host, or sector_identifier_uri's), opaque to clients.
      return createHmac('sha256', pairwiseSalt).update(`${client.sectorIdentifier}\0${accountId}`).digest('base64url');
    },
    async renderError(ctx, out, error) {
      logger.debug({ err: error, out }, 'rendered error page');
      const { error: code, error_description: description } = out as { error?: string; error_description?: string };
      page(
        ctx,
        'Sign-in error',
        html`<main class="card narrow" role="alert">
  <h1>Something went wrong</h1>
  <p>${description ?? 'The request could not be completed.'}</p>
  <p class="muted"><code>${code ?? 'server_error'}</code></p>
</main>`,
        stylesheets,
      );
    },
  };

  const provider = new Provider(config.issuer, configuration);
  provider.proxy = config.trustProxy;
  // Behind one proxy: the client address is the X-Forwarded-For entry that proxy appended (the
  // last one); entries before it are whatever the client sent and are never trusted.
  provider.maxIpsCount = 1;
  provider.on('server_error', (_ctx: unknown, error: Error) => logger.error({ err: error }, 'oidc-provider server error'));
  // Koa's 'error' event: an error no middleware answered (Koa's 500), or an answer that could not
  // be delivered because the connection ended first (the client went away, or the server's
  // deadline closed a slow client's connection with a 408). Logged as JSON with the request id;
  // without a listener Koa would print the stack on stderr.
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
  return provider;
}
