/**
 * The JWT bearer grant (RFC 7523 §2.1) for agents: `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`
 * and `assertion=<JWT signed by the agent's wallet key>` at the token endpoint, with the client's
 * own authentication, for a client registered with the grant. One request, tokens out.
 *
 * What an agent gets is what a person signing in with that key would get (signin/routes.ts):
 * the same account (accounts/: the key's wallet, a new account at its first use), the same
 * sign-in record (records/: `sub` under `subject_chain`, `account_subject`, pairwise), the same
 * namespace rules (the client's `account_namespaces`, CHAIN_IDS, SOLANA_NETWORKS), the same access
 * gate (onchain/), the same rate limit (the sign-in budget, RATE_LIMIT_INTERACTION) and audit
 * events; its tokens say `amr: ["agent"]`. Every refusal is `invalid_grant` (or `invalid_scope`,
 * `invalid_target`) with its own `error_description`, decided before anything is stored; the
 * assertion's `jti` is then claimed once, atomically in storage (shared by replicas), and only then
 * is the account, grant and record written.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { errors, type KoaContextWithOIDC, type Provider } from 'oidc-provider';
import { accountForSignIn } from '../accounts/accounts.ts';
import { recordWalletSignIn } from '../accounts/sessions.ts';
import { clientFields } from '../clients/rules.ts';
import { TTL } from '../deployment/lifetimes.ts';
import { profileFor } from '../deployment/profiles.ts';
import { type HttpError, toHttpError } from '../errors.ts';
import { requestFields } from '../observability/audit.ts';
import { saveSignIn } from '../records/sign-ins.ts';
import { scopesSupportedBy } from '../relying-party/scopes.ts';
import { grantRequestedResources } from '../resources/grants.ts';
import { resourceProblem } from '../resources/policy.ts';
import type { Services } from '../services.ts';
import { assertNamespaceAccepted, namespacesFor } from '../signin/namespaces.ts';
import { walletIdOf } from '../wallets/ids.ts';
import { AGENT_AMR } from './amr.ts';
import { type AgentKey, AssertionRefused, type VerifiedAssertion, verifyAssertion } from './assertion.ts';
import { type AgentSource, clientScope, dpopOf, issueAgentTokens } from './token-issuance.ts';

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** An HttpError (a rate limit, an access refusal, storage) as oidc-provider answers errors: status, code, words. */
function asOidcError(error: HttpError): errors.OIDCProviderError {
  if (error.code === 'ACCESS_CONDITION_NOT_MET' || error.code === 'NAMESPACE_NOT_ALLOWED') {
    return new AssertionRefused(error.code, `${error.code}: ${error.message}`);
  }
  const answer = new errors.OIDCProviderError(error.status, error.oauthError);
  return Object.assign(answer, { error_description: error.message, expose: true, reason: error.code });
}

/** The kinds of account and chains this client takes (as its sign-in page would), else the refusal. */
function assertKeyAccepted(services: Services, client: object, key: AgentKey): void {
  const { config } = services;
  const fields = clientFields(client);
  assertNamespaceAccepted(key.namespace, namespacesFor(config, fields), config, fields);
  if (key.namespace === 'eip155' && !config.chainIds.includes(key.chainId)) {
    throw new AssertionRefused(
      'CHAIN_NOT_ALLOWED',
      `chain ${key.chainId} is not one this provider signs in on (CHAIN_IDS: ${config.chainIds.join(', ')})`,
    );
  }
  if (key.namespace === 'solana' && !config.solanaNetworks.includes(key.network)) {
    throw new AssertionRefused(
      'CHAIN_NOT_ALLOWED',
      `Solana ${key.network} is not a cluster this provider signs in on (SOLANA_NETWORKS: ${config.solanaNetworks.join(', ')})`,
    );
  }
}

/** The scopes asked for (`openid` when none), less those the profile does not support; the client's registered ones only. */
function scopesAsked(services: Services, provider: Provider, ctx: KoaContextWithOIDC): string[] {
  const supported = scopesSupportedBy(services.config);
  const asked = String(ctx.oidc.params?.scope ?? 'openid')
    .split(' ')
    .filter((value) => supported.has(value));
  return [...clientScope(provider, ctx, new Set(asked.length > 0 ? asked : ['openid']))];
}

/** The one resource asked for, checked as RESOURCE_INDICATORS says (before anything is stored). */
function resourceAsked(services: Services, ctx: KoaContextWithOIDC): string | undefined {
  const resource = ctx.oidc.params?.resource as unknown;
  if (resource === undefined) return undefined;
  if (typeof resource !== 'string')
    throw new errors.InvalidTarget('only one resource indicator may be asked for with this grant');
  const problem = resourceProblem(services.config.resourceIndicators, resource);
  if (problem) throw new errors.InvalidTarget(`resource ${resource} ${problem}`);
  return resource;
}

/** Claims the assertion's `jti` for its signer, once, until the assertion expires (SET NX; replicas share it). */
async function claimJti(services: Services, verified: VerifiedAssertion): Promise<void> {
  const id = createHash('sha256').update(`${verified.key.accountId}\0${verified.jti}`).digest('base64url');
  const ttl = Math.max(1, verified.exp - Math.floor(Date.now() / 1000) + services.config.clockSkewSeconds);
  if (!(await services.store.setIfAbsent(`agent-jti:${id}`, '1', ttl))) {
    throw new AssertionRefused('REPLAYED_JTI', 'this assertion’s `jti` was already used; sign a new assertion for each request');
  }
}

/** Everything checked: the account, the grant, the record (as a sign-in writes them), then the tokens. */
async function grantTokens(
  services: Services,
  ctx: KoaContextWithOIDC,
  verified: VerifiedAssertion,
  asked: { scopes: string[]; resource?: string },
) {
  const { store } = services;
  const provider = ctx.oidc.provider;
  const client = ctx.oidc.client as NonNullable<typeof ctx.oidc.client>;
  const { key } = verified;
  const method = key.namespace === 'eip155' ? 'eoa' : 'ed25519';
  const wallet =
    key.namespace === 'eip155'
      ? walletIdOf({ namespace: 'eip155', address: key.address, chainId: key.chainId, method })
      : walletIdOf({ namespace: 'solana', accountId: key.accountId });
  const signedInAt = Date.now();
  const { account, created } = await accountForSignIn(store, wallet, signedInAt);
  if (created) services.audit.write('account.created', { account: account.id, wallet, ...requestFields(ctx) });
  const grant = new provider.Grant({ accountId: key.accountId, clientId: client.clientId });
  grant.addOIDCScope(asked.scopes.join(' '));
  grantRequestedResources(grant, asked.resource, asked.scopes);
  const grantId = await grant.save();
  const where = key.namespace === 'eip155' ? { chainId: key.chainId } : { namespace: 'solana' as const, network: key.network };
  await saveSignIn(
    store,
    grantId,
    { accountId: key.accountId, address: key.address, ...where, method, signedInAt, wallet, account: account.id, agent: true },
    TTL.Grant,
  );
  await recordWalletSignIn(store, wallet, grantId, { lastUsedAt: signedInAt });
  await services.clients.usage.recordSignIn(client.clientId);
  ctx.oidc.entity('Grant', grant);
  const source: AgentSource = {
    accountId: key.accountId,
    grantId,
    scope: asked.scopes.join(' '),
    scopes: new Set(asked.scopes),
    resource: asked.resource,
    resourceIndicators: new Set(asked.resource ? [asked.resource] : []),
    amr: AGENT_AMR,
    authTime: Math.floor(signedInAt / 1000),
  };
  return { source, grant, method };
}

/** The audiences an assertion may name: the issuer, and the token endpoint's URL. */
const audiencesOf = (services: Services) => {
  const { config } = services;
  return [config.issuer, `${config.baseUrl}${profileFor(config).routes.token}`];
};

export function jwtBearerHandler(services: Services) {
  const audiences = audiencesOf(services);
  return async function jwtBearer(ctx: KoaContextWithOIDC): Promise<void> {
    const { provider } = ctx.oidc;
    const client = ctx.oidc.client as NonNullable<typeof ctx.oidc.client>;
    let verified: VerifiedAssertion | undefined;
    try {
      await services.limits.check(ctx as unknown as Context, 'interaction');
      const assertion = ctx.oidc.params?.assertion;
      if (typeof assertion !== 'string' || assertion === '') {
        throw new errors.InvalidRequest('missing required parameter(s) (assertion)');
      }
      const dPoP = await dpopOf(provider, ctx);
      const started = performance.now();
      verified = await verifyAssertion(assertion, { audiences, clockSkewSeconds: services.config.clockSkewSeconds });
      services.metrics.verification(performance.now() - started, verified.key.namespace === 'eip155' ? 'eoa' : 'ed25519');
      assertKeyAccepted(services, client, verified.key);
      const asked = { scopes: scopesAsked(services, provider, ctx), resource: resourceAsked(services, ctx) };
      if (verified.key.namespace === 'eip155') {
        await services.access.enforce(client, verified.key.accountId, verified.key.address, 'eoa');
      }
      await claimJti(services, verified);
      const { source, grant, method } = await grantTokens(services, ctx, verified, asked);
      await issueAgentTokens(provider, ctx, source, grant, dPoP);
      services.metrics.signIn('success', method);
      services.logger.info(
        { event: 'sign_in', sub: source.accountId, client_id: client.clientId, method, grant: 'jwt-bearer' },
        'agent signed in',
      );
      services.audit.write('sign_in.succeeded', {
        client_id: client.clientId,
        account: source.accountId,
        method,
        grant: 'jwt-bearer',
        ...requestFields(ctx),
      });
    } catch (error) {
      throw refusal(services, ctx, client.clientId, verified, error);
    }
  };
}

/** What a refused request answers (an OIDC error), audited and counted; a bug stays a bug (a 500). */
function refusal(
  services: Services,
  ctx: KoaContextWithOIDC,
  clientId: string,
  verified: VerifiedAssertion | undefined,
  error: unknown,
): unknown {
  const known = error instanceof errors.OIDCProviderError ? undefined : toHttpError(error);
  if (known?.code === 'RATE_LIMITED' && known.retryAfter !== undefined) ctx.set('Retry-After', String(known.retryAfter));
  const answer = known ? asOidcError(known) : error;
  if (!(answer instanceof errors.OIDCProviderError)) return error;
  const { reason, error_description: description } = answer as { reason?: string; error_description?: string };
  // Once the signature verified, its account is proven; before, the account `sub` names (a claim).
  const account = verified ? { id: verified.key.accountId, verified: true } : (answer as AssertionRefused).account;
  services.metrics.signIn(reason ?? answer.error, 'unknown');
  services.audit.write('sign_in.refused', {
    client_id: clientId,
    account: account?.id,
    account_verified: account?.verified === true,
    grant: 'jwt-bearer',
    reason: reason ?? answer.error,
    description,
    status: answer.status,
    ...requestFields(ctx),
  });
  return answer;
}

/** oidc-provider's words for a client using a grant it is not registered for. */
const NOT_ALLOWED = 'requested grant type is not allowed for this client';

/**
 * Registers the grant on an oidc-provider instance (JWT_BEARER_GRANT on; oidc/provider.ts): its parameters, and
 * `resource` once. A client without the grant is refused before the handler runs, by oidc-provider,
 * as `invalid_request`; RFC 7523 §3.1 and RFC 6749 §5.2 say `unauthorized_client`: that answer is
 * given instead, in words naming the grant, and audited.
 */
export function registerJwtBearerGrant(provider: Provider, services: Services | undefined): void {
  // Without services the provider only validates clients (the CLI): the grant is known, never served.
  const handler = services
    ? jwtBearerHandler(services)
    : async () => {
        throw new Error('this provider instance validates clients only; it serves no grant');
      };
  provider.registerGrantType(JWT_BEARER_GRANT, handler, ['assertion', 'scope', 'resource'], ['resource']);
  if (!services) return;
  provider.use(async (ctx, next) => {
    await next();
    const oidc = (ctx as KoaContextWithOIDC).oidc as KoaContextWithOIDC['oidc'] | undefined;
    if (oidc?.route !== 'token' || oidc.params?.grant_type !== JWT_BEARER_GRANT || ctx.status !== 400) return;
    const body = ctx.body as { error?: string; error_description?: string } | undefined;
    if (body?.error !== 'invalid_request' || body.error_description !== NOT_ALLOWED) return;
    const description = `this client is not registered for the JWT bearer grant (its grant_types lack ${JWT_BEARER_GRANT})`;
    ctx.body = { error: 'unauthorized_client', error_description: description };
    services.metrics.signIn('UNAUTHORIZED_CLIENT', 'unknown');
    services.audit.write('sign_in.refused', {
      client_id: oidc.client?.clientId,
      account_verified: false,
      grant: 'jwt-bearer',
      reason: 'UNAUTHORIZED_CLIENT',
      description,
      status: 400,
      ...requestFields(ctx),
    });
  });
}
