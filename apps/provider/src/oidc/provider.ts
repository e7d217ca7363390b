/**
 * The oidc-provider instance: Signet's configuration of panva's library. oidc-provider does
 * discovery, registration and its management, PKCE, tokens, introspection, revocation,
 * logout and refresh; Signet supplies the account model, storage, keys, profile and pages.
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import { type Configuration, errors, interactionPolicy, type KoaContextWithOIDC, Provider } from 'oidc-provider';
import { recordSessionLogins } from '../accounts/sessions.ts';
import { JWT_BEARER_GRANT, registerJwtBearerGrant } from '../agents/grant.ts';
import { assertMetadataBounds, assertNoUserinfo } from '../clients/metadata.ts';
import type { DocumentClients } from '../clients/metadata-documents/index.ts';
import { reuseClientObjects } from '../clients/objects.ts';
import { assertRedirectUris, withAuthMethodDefault } from '../clients/rules.ts';
import type { Config } from '../config.ts';
import { TTL } from '../deployment/lifetimes.ts';
import { profileFor } from '../deployment/profiles.ts';
import { deviceFlowFeature, expiresWithSession } from '../device/flow.ts';
import { freshSignatureForDevices } from '../device/policy.ts';
import { html, layout, raw } from '../http/html.ts';
import { LEGAL_PATHS } from '../http/legal.ts';
import { prefersJson } from '../http/negotiation.ts';
import { type AuditLog, requestFields } from '../observability/audit.ts';
import type { Logger } from '../observability/logger.ts';
import { AccessDeniedError, type AccessGate, AccessRpcError, accessConditionsProblem } from '../onchain/access.ts';
import { libraryFetch } from '../outbound/library-fetch.ts';
import { loadSignIn } from '../records/sign-ins.ts';
import { heldLogoutDestination } from '../redirects/logout.ts';
import type { RefreshGrace } from '../refresh/grace.ts';
import { accountClaimsOf, accountSubject, accountSubjectProblem } from '../relying-party/account-subject.ts';
import { backchannelLogoutUriProblem, logLogoutTokens } from '../relying-party/backchannel.ts';
import { claimsOf } from '../relying-party/claims.ts';
import { emailSourcesOf, validateEmailMetadata } from '../relying-party/email.ts';
import { gateSubject, passkeySignInProblem } from '../relying-party/passkey-sign-in.ts';
import { scopesSupportedBy, supportedScope } from '../relying-party/scopes.ts';
import { clientSubjects, grantIdOf, type SubjectOf, subjectChainProblem, subjectFor } from '../relying-party/subject.ts';
import { accessTokenIdentity } from '../relying-party/token-claims.ts';
import { resourceIndicatorsFeature } from '../resources/feature.ts';
import { jwtAccessTokenClaims, storeJwtAccessTokens } from '../resources/jwt-access-tokens.ts';
import type { Services } from '../services.ts';
import { accountNamespacesProblem, offeredNamespaces } from '../signin/namespaces.ts';
import { createOidcAdapter, type Store } from '../storage/index.ts';
import { cookieSigner } from './cookie-signing.ts';
import { atomicReplayDetection } from './replay-detection.ts';

/** Error codes of a connection that ended before its answer was written: the client's doing, or a slow client cut off. */
const CONNECTION_ENDED = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_HTTP_REQUEST_TIMEOUT',
]);

/** The scopes whose claims come from the sign-in record (the name, avatar, e-mail, signed message). */
const RECORD_SCOPES = new Set(['profile', 'siwe', 'email']);

/**
 * Whether claims asked for by `scope` (or named in a claims request) may come from the sign-in
 * record: not for a token of `openid` alone, whose only claim is `sub` (an unknown shape: yes).
 */
function recordClaimsAsked(scope: unknown, requested: unknown): boolean {
  if (typeof scope !== 'string') return true;
  if (scope.split(' ').some((value) => RECORD_SCOPES.has(value))) return true;
  return requested !== null && typeof requested === 'object' && Object.keys(requested).some((claim) => claim !== 'sub');
}

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
 * oidc-provider's default prompts, with two login checks of Signet's:
 * - id_token_hint: the hint's `sub` must be the subject this client was given (for a client with
 *   subject_chain "any", the chain-independent one; relying-party/subject.ts), not only the
 *   session's account id as oidc-provider compares it;
 * - access conditions: a session whose account no longer meets a gated client's conditions gets
 *   no silent code (prompt=none: login_required); the person signs again, and the sign-in checks
 *   whoever signs. Right after a sign-in (which has just checked) and for ungated clients it costs nothing.
 */
function signInPolicy(access: AccessGate | undefined, store: Store, subjectOf: SubjectOf) {
  const policy = interactionPolicy.base();
  const { Check } = interactionPolicy;
  const login = policy.get('login');
  const hintCheck = login?.checks.get('id_token_hint');
  if (login && hintCheck) {
    const index = login.checks.indexOf(hintCheck);
    login.checks.remove('id_token_hint');
    login.checks.add(
      new Check(hintCheck.reason, hintCheck.description, 'login_required', async (ctx) => {
        const { oidc } = ctx;
        const hint = oidc.entities.IdTokenHint as { payload: { sub?: unknown } } | undefined;
        if (hint === undefined) return Check.NO_NEED_TO_PROMPT;
        const accountId = oidc.session?.accountId;
        if (accountId === undefined || !oidc.client) return Check.REQUEST_PROMPT;
        return hint.payload.sub === (await subjectOf(accountId, oidc.client, ctx))
          ? Check.NO_NEED_TO_PROMPT
          : Check.REQUEST_PROMPT;
      }),
      index,
    );
  }
  if (!access) return policy;
  login?.checks.add(
    new Check('access_conditions', "the account does not meet this client's access conditions", 'login_required', async (ctx) => {
      const { oidc } = ctx;
      const accountId = oidc.session?.accountId;
      if (!accountId || !oidc.client || (oidc.result as { login?: unknown } | undefined)?.login) return Check.NO_NEED_TO_PROMPT;
      try {
        // How the session's account signed in (its sign-in record for this client, if any).
        const record = await loadSignIn(store, oidc.session?.grantIdFor(oidc.client.clientId));
        // Not an Ethereum account (Solana): an ungated client lets it through; the gate refuses it
        // for a gated one. A passkey's session: the account's primary wallet (relying-party/passkey-sign-in.ts).
        const gate = await gateSubject(store, accountId, record?.accountId === accountId ? record.method : undefined);
        await access.enforce(oidc.client, gate.accountId, gate.holder, gate.method);
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
  documents,
  refresh,
  agents,
}: ProviderDependencies): Provider {
  const profile = profileFor(config);
  const supportedScopes = scopesSupportedBy(config);
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
  const configuration: Configuration = {
    adapter: createOidcAdapter(store, { lostConsume: refresh?.lostConsume }) as unknown as Configuration['adapter'],
    clients: config.staticClients.map((client) =>
      withAuthMethodDefault(client, profile.defaultClientAuthMethod),
    ) as unknown as Configuration['clients'],
    jwks: jwks as Configuration['jwks'],
    cookies: {
      // Signed as keygrip signs them, compared with timingSafeEqual (cookies/signing.ts).
      keys: cookieSigner(cookieKeys) as unknown as string[],
      long: { httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
    },
    routes: profile.routes,
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
    allowOmittingSingleRegisteredRedirectUri: false,
    // Browsers may call the token, userinfo, introspection and revocation endpoints only from
    // the origin of one of the client's redirect URIs, and only for public clients (a browser
    // cannot keep a secret) or userinfo. Discovery and the key set stay open to every origin.
    clientBasedCORS: (ctx, origin, client) =>
      origin !== 'null' &&
      (ctx.oidc.route === 'userinfo' || client.clientAuthMethod === 'none') &&
      (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin),
    // Every feature oidc-provider turns on by default is decided here, on or off, with the
    // reason and its test in docs/conformance.md ("Features"); a test compares discovery with it.
    features: {
      devInteractions: { enabled: false },
      // Pushed authorization requests (RFC 9126) at /request: rate-limited with /auth, bodies
      // bounded (middleware/request-size.ts); a client may register require_pushed_authorization_requests.
      pushedAuthorizationRequests: {
        enabled: true,
        requirePushedAuthorizationRequests: false,
        allowUnregisteredRedirectUris: false,
      },
      // DPoP (RFC 9449): sender-constrained tokens for clients that send proofs, or that register
      // dpop_bound_access_tokens; proof replays are detected in storage (shared by replicas).
      dPoP: { enabled: true, allowReplay: false },
      // Resource indicators (RFC 8707): RFC 9068 JWT access tokens for the resources RESOURCE_INDICATORS allows.
      resourceIndicators: resourceIndicatorsFeature({
        policy: config.resourceIndicators,
        scopes: supportedScopes,
        accessTokenTtl: TTL.AccessToken,
      }),
      // Client ID Metadata Documents, and OpenID Connect RP Metadata Choices for what they offer.
      clientIdMetadataDocument: documents?.feature ?? { enabled: false },
      rpMetadataChoices: { enabled: documents !== undefined },
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
      // Sign in from another device (RFC 8628): the person enters the device's code at /device
      // and signs with a wallet as in any sign-in (device/: pages, limits, pace, fresh signature).
      deviceFlow: deviceFlowFeature({ config, stylesheets, pageHeaders: (ctx) => pageHeaders(ctx) }),
      introspection: { enabled: true },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      jwtUserinfo: { enabled: true },
      // Logout tokens to every client of the session with a backchannel_logout_uri (relying-party/backchannel.ts).
      backchannelLogout: { enabled: true },
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
          // A logout request without an id_token_hint does not redirect: the page names where it would go.
          const destination = await heldLogoutDestination(
            ctx as unknown as Context,
            ctx.oidc.provider,
            profile.routes.end_session,
          );
          page(
            ctx,
            'Signed out',
            html`<main class="card narrow"><h1>You are signed out</h1>${
              destination
                ? html`<p>${destination.clientName ?? 'The site you came from'} asks to send you to <strong class="destination">${destination.host}</strong>. Continue only if you meant to sign out there.</p>
  <div class="actions"><a class="button primary" href="${destination.href}">Continue to ${destination.host}</a></div>`
                : html`<p>You can close this window.</p>`
            }</main>`,
            stylesheets,
          );
        },
      },
    },
    interactions: {
      url: (_ctx, interaction) => `/interaction/${interaction.uid}`,
      policy: freshSignatureForDevices(signInPolicy(access, store, clientSubject)),
    },
    discovery: {
      op_policy_uri: `${config.baseUrl}${LEGAL_PATHS.privacy}`,
      op_tos_uri: `${config.baseUrl}${LEGAL_PATHS.terms}`,
    },
    extraClientMetadata: {
      // RFC 7591 metadata oidc-provider does not know, accepted and stored as given. Their
      // validator also runs Signet's per-client rules on every client, however it arrives
      // (registration, management, CLIENTS_FILE, the CLI, storage).
      // access_conditions: what an account must hold to sign in to this client (access.ts).
      // subject_chain, ens_email, synthetic_email_domain: relying-party/subject.ts and email.ts.
      // account_subject: relying-party/account-subject.ts.
      // account_namespaces: the kinds of account that may sign in to it (interaction/namespaces.ts).
      // passkey_sign_in: whether an account client takes a passkey sign-in (relying-party/passkey-sign-in.ts).
      properties: [
        'software_id',
        'software_version',
        'access_conditions',
        'subject_chain',
        'account_subject',
        'ens_email',
        'synthetic_email_domain',
        'account_namespaces',
        'passkey_sign_in',
      ],
      validator(ctx, key, value, metadata) {
        if (key === 'account_namespaces') {
          // At registration and update, a namespace this provider does not offer now is refused too.
          const route = (ctx as { oidc?: { route?: string } } | undefined)?.oidc?.route;
          const offered = route === 'registration' || route === 'client_update' ? offeredNamespaces(config) : undefined;
          const problem = value === undefined ? undefined : accountNamespacesProblem(value, metadata as never, offered);
          if (problem) throw new errors.InvalidClientMetadata(problem);
          return;
        }
        if (key === 'access_conditions') {
          const problem =
            value === undefined ? undefined : accessConditionsProblem(value, Object.keys(config.rpcUrls).map(Number));
          if (problem) throw new errors.InvalidClientMetadata(problem);
          return;
        }
        if (key === 'account_subject') {
          const problem = accountSubjectProblem(value);
          if (problem) throw new errors.InvalidClientMetadata(problem);
          return;
        }
        if (key === 'passkey_sign_in') {
          const problem = passkeySignInProblem(value, metadata as { account_subject?: unknown });
          if (problem) throw new errors.InvalidClientMetadata(problem);
          return;
        }
        if (key === 'subject_chain') {
          const problem = subjectChainProblem(value);
          if (problem) throw new errors.InvalidClientMetadata(problem);
          return;
        }
        if (key === 'ens_email' || key === 'synthetic_email_domain') {
          validateEmailMetadata(ctx as never, key, value, metadata as Record<string, unknown>);
          return;
        }
        if (value !== undefined && typeof value !== 'string') {
          throw new errors.InvalidClientMetadata(`${key} must be a string`);
        }
        if (key === 'software_id') {
          assertRedirectUris(metadata as never);
          assertNoUserinfo(metadata as never);
          // Sizes are checked where metadata arrives over HTTP (registration, management; the
          // CLI and CLIENTS_FILE check them themselves), not when a stored client is loaded.
          if (ctx) assertMetadataBounds(metadata as never);
          const problem = backchannelLogoutUriProblem(metadata.backchannel_logout_uri, config.allowPrivateFetch);
          if (problem) throw new errors.InvalidClientMetadata(problem);
          // Scope values the profile does not support are dropped, as at authorization and refresh.
          if (typeof metadata.scope === 'string') metadata.scope = supportedScope(metadata.scope, supportedScopes) ?? 'openid';
        }
      },
    },
    // Outbound fetches go to public addresses only (outbound/); metadata documents through their own path.
    fetch: documents ? documents.fetchThrough(libraryFetch(config.allowPrivateFetch)) : libraryFetch(config.allowPrivateFetch),
    async findAccount(ctx, accountId, token) {
      // A rotated refresh token presented again within the window is answered with its successor (refresh/).
      if (refresh && ctx.oidc.route === 'token') await refresh.answerReplay(ctx, token as never);
      const grantId = (token as { grantId?: string } | undefined)?.grantId ?? grantIdOf(ctx, ctx.oidc.client);
      // A refresh token is the one place a grant lives on without a new signature: holdings may
      // have changed since, so a gated client's conditions are checked again, before
      // oidc-provider rotates or spends anything. Not met: the grant and its tokens go.
      if (access && ctx.oidc.route === 'token' && ctx.oidc.params?.grant_type === 'refresh_token' && ctx.oidc.client) {
        // Not an Ethereum account (Solana): an ungated client refreshes; the gate refuses it for a
        // gated one. A passkey's grant: the account's primary wallet (relying-party/passkey-sign-in.ts).
        try {
          const gate = await gateSubject(store, accountId, (await loadSignIn(store, grantId))?.method);
          await access.enforce(ctx.oidc.client, gate.accountId, gate.holder, gate.method);
        } catch (error) {
          if (error instanceof AccessRpcError) throw new TemporarilyUnavailable(`RPC_UNAVAILABLE: ${error.reason}; try again`);
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
      const client = ctx.oidc.client;
      const pairwise = (client as { subjectType?: string } | undefined)?.subjectType === 'pairwise';
      // The sign-in record is read when claims are asked for (ID token, userinfo), once per
      // request, and only when they may include one of its claims; oidc-provider also finds the
      // account where it needs no claims (the resume).
      let record: ReturnType<typeof loadSignIn> | undefined;
      const ofAccount = accountSubject(client);
      return {
        accountId,
        claims: async (_use: string, scope: string, requested: unknown) => {
          // An account client's `wallet` comes from the record, whatever the scope.
          if (!ofAccount && !recordClaimsAsked(scope, requested)) return claimsOf(accountId, undefined, { pairwise });
          record ??= loadSignIn(store, grantId);
          const claims = claimsOf(accountId, await record, { pairwise, email: emailSourcesOf(client) });
          return ofAccount ? { ...claims, ...(await accountClaimsOf(store, await record, { pairwise })) } : claims;
        },
      };
    },
    pairwiseIdentifier: (ctx, accountId, client) => pairwiseOf(accountId, client as { sectorIdentifier?: string }, ctx),
    async renderError(ctx, out, error) {
      logger.debug({ err: error, out }, 'rendered error page');
      // A program that reads the answer (Accept: application/json: `signet login`, a native app) gets it as JSON.
      if (prefersJson(ctx as unknown as Context)) {
        ctx.type = 'json';
        ctx.body = out;
        return;
      }
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
  clientSubjects(provider, subjectOf);
  if (config.jwtBearerGrant) registerJwtBearerGrant(provider, agents);
  const staticIds = new Set(config.staticClients.map((client) => String(client.client_id)));
  reuseClientObjects(provider, store, staticIds);
  documents?.install(provider, staticIds);
  storeJwtAccessTokens(provider, config.issuer, jwks);
  atomicReplayDetection(provider, store);
  recordSessionLogins(provider, store, (error) => logger.warn({ err: error }, 'could not record a session login'));
  logLogoutTokens(provider, logger);
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
