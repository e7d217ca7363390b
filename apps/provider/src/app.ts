/**
 * buildApp(config): everything the provider is, as one request listener, without
 * listening. server.ts listens; tests call buildApp in process or run server.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import Router from '@koa/router';
import { redactUrls, SettingsError } from '@signet/settings';
import type { ChainRegistry } from '@signet/siwe/offline';
import type { Context, Middleware } from 'koa';
import type { Provider } from 'oidc-provider';
import { accountRoutes } from './account-page/routes.ts';
import { startClientHousekeeping } from './clients/housekeeping.ts';
import { clientLifecycle } from './clients/lifecycle.ts';
import { logoRoutes } from './clients/logos.ts';
import { assertMetadataBounds } from './clients/metadata.ts';
import { withAuthMethodDefault } from './clients/rules.ts';
import type { Config } from './config.ts';
import { PROFILES, profileFor } from './deployment/profiles.ts';
import { deviceEntry } from './device/entry.ts';
import { createDeviceLimits } from './device/limits.ts';
import { devicePolling } from './device/polling.ts';
import { deviceRoutes } from './device/routes.ts';
import { errorBoundary } from './http/error-boundary.ts';
import { legalRoutes } from './http/legal.ts';
import { pinIssuerOrigin } from './http/origin.ts';
import { postAsGet } from './http/post-as-get.ts';
import { rateLimitedRoutes } from './http/rate-limited-routes.ts';
import { createRateLimits } from './http/rate-limits.ts';
import { pushedRequestSize } from './http/request-size.ts';
import { foldPath, routeOf } from './http/route-key.ts';
import { createSecurity, WALLETCONNECT_SOURCES } from './http/security.ts';
import { serveStatic, webAssets } from './http/static.ts';
import { accessLog } from './observability/access-log.ts';
import { auditProviderEvents, createAuditLog } from './observability/audit.ts';
import { createLogger, type Logger } from './observability/logger.ts';
import { createMetrics, type Metrics } from './observability/metrics.ts';
import { operationsRoutes } from './observability/operations.ts';
import { NO_TRACING, startTracing, type Tracing } from './observability/tracing.ts';
import { clientManagementPath } from './oidc/client-management.ts';
import { discoveryValues } from './oidc/discovery.ts';
import {
  ensureCookieKeys,
  ensurePairwiseSalt,
  ensureSigningKeys,
  keySetVersion,
  listSigningKeys,
  providerJwks,
} from './oidc/keys.ts';
import { createProvider } from './oidc/provider.ts';
import { createAccessGate } from './onchain/access.ts';
import type { EnsResolver } from './onchain/names/index.ts';
import { passkeyRoutes } from './passkeys/routes.ts';
import { logoutRedirects } from './redirects/logout.ts';
import { unusedClientErrors } from './redirects/unused-clients.ts';
import { RefreshGrace } from './refresh/grace.ts';
import { introspectionSubject } from './relying-party/introspection-subject.ts';
import { scopesSupportedBy } from './relying-party/scopes.ts';
import { grantIdOf, subjectFor } from './relying-party/subject.ts';
import { tokenRequests } from './relying-party/token-requests.ts';
import { issuesJwtAccessTokens } from './resources/policy.ts';
import { targetWords } from './resources/target-words.ts';
import type { Services } from './services.ts';
import { interactionRoutes } from './signin/routes.ts';
import { countedStore } from './storage/counted.ts';
import { checkEvictionPolicy, createStore, type Store } from './storage/index.ts';
import { withoutUnitsOfWork, withUnitsOfWork } from './storage/unit-of-work.ts';
import { unitOfWork } from './storage/unit-of-work-middleware.ts';

export type App = {
  /** Node request listener: hand it to http.createServer. */
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  services: Services;
  provider(): Provider;
  /** Re-reads the signing keys now, rebuilding the provider if they changed. */
  reloadKeys(): Promise<boolean>;
  close(): Promise<void>;
};

export type BuildOptions = {
  logger?: Logger;
  store?: Store;
  /** How often to look for keys rotated by another process (ms, default 30 s; 0 = never). */
  keyRefreshMs?: number;
};

async function validateStaticClients(provider: Provider, config: Config) {
  for (const [index, metadata] of config.staticClients.entries()) {
    try {
      assertMetadataBounds(metadata);
      await provider.Client.validate(withAuthMethodDefault(metadata, PROFILES[config.profile].defaultClientAuthMethod) as never);
    } catch (error) {
      const description = (error as { error_description?: string }).error_description ?? (error as Error).message;
      throw new SettingsError(`CLIENTS_FILE: entry ${index} (client_id ${String(metadata.client_id)}): ${description}`);
    }
  }
}

/** The storage, counted, traced and batched per request; refused at start when it does not answer. */
async function openStore(config: Config, logger: Logger, metrics: Metrics, tracing: Tracing, given?: Store) {
  const rawStore =
    given ??
    (await createStore(config, {
      warn: (message) => logger.warn(message),
      cacheClients: (active, reason) => {
        const how =
          config.storage.kind === 'postgres'
            ? { by: 'PostgreSQL (LISTEN for announced changes)', from: 'PostgreSQL' }
            : { by: 'Redis (CLIENT TRACKING)', from: 'Redis' };
        if (active) logger.info(`client records answered from memory, kept exact by ${how.by}`);
        else logger.info({ reason }, `client records read from ${how.from} on every request`);
      },
    }));
  // Each operation that reaches the storage is counted (/metrics). A request's writes are stored
  // together at its end (one transaction, one round trip); the memory store (tests) has neither
  // to save.
  const traced = tracing.store(countedStore(rawStore, metrics.storageOperation));
  const store = traced.kind === 'memory' ? withoutUnitsOfWork(traced) : withUnitsOfWork(traced);
  try {
    await store.ping();
  } catch (error) {
    await store.close();
    throw new SettingsError(`STORAGE_URL: storage does not answer (${redactUrls((error as Error).message)})`);
  }
  try {
    await checkEvictionPolicy(store, {
      allowEviction: config.storageAllowEviction,
      warn: (fields, message) => logger.warn(fields, message),
    });
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

/**
 * No RPC node configured: no chain to ask and no ENS. viem then stays unloaded (idle memory,
 * docs/performance.md): the chain registry and the ENS resolver load it, and only when configured;
 * an EOA's signature is checked offline (@signet/siwe/offline), a gate's check (onchain/holdings.ts)
 * loads it at the first gated sign-in.
 */
const NO_CHAINS: ChainRegistry = { chainIds: [], get: () => undefined };
const NO_ENS: EnsResolver = { resolve: async () => ({}) };
const hasChains = (config: Config) => Object.keys(config.rpcUrls).length > 0;

/** The chains (signature checks, access conditions) and ENS, over the configured RPC nodes. */
async function onchain(config: Config, store: Store, logger: Logger, metrics: Metrics, tracing: Tracing) {
  const chains = hasChains(config)
    ? (await import('@signet/siwe')).createChainRegistry(config.rpcUrls, {
        timeoutMs: config.rpcTimeoutMs,
        signatureVerifiers: config.signatureVerifiers,
        fetchFor: tracing.rpcFetch,
      })
    : NO_CHAINS;
  const access = createAccessGate({ chains, timeoutMs: config.rpcTimeoutMs, cacheSeconds: config.accessCacheSeconds });
  const ens = config.ens.rpcUrl
    ? (await import('./onchain/names/index.ts')).createEnsResolver({
        rpcUrl: config.ens.rpcUrl,
        universalResolver: config.ens.universalResolver,
        cacheTtlSeconds: config.ens.cacheTtlSeconds,
        timeoutMs: config.ens.timeoutMs,
        ccipRead: config.ens.ccipRead,
        store,
        logger,
        allowPrivate: config.allowPrivateFetch,
        onLookup: (outcome) => metrics.ensLookup(outcome),
        fetchFn: tracing.rpcFetch?.(1),
      })
    : NO_ENS;
  return { chains, access, ens };
}

/** Looks every `refreshMs` for keys rotated by another process (0: never); the timer, for close. */
function watchKeys(reloadKeys: () => Promise<boolean>, logger: Logger, refreshMs: number) {
  if (refreshMs <= 0) return undefined;
  const timer = setInterval(() => {
    reloadKeys().catch((error) => logger.warn({ err: error }, 'could not check for rotated signing keys'));
  }, refreshMs);
  timer.unref();
  return timer;
}

/** One oidc-provider instance over the services (built again when the signing keys change), with Signet's routes mounted. */
function buildProvider(
  services: Services,
  keys: {
    jwks: ReturnType<typeof providerJwks>;
    cookieKeys: string[];
    pairwiseSalt: string;
    documents: Services['clients']['documents'];
  },
): { provider: Provider; handler: App['handler'] } {
  const { config, store, logger, security, assets, access, audit, metrics } = services;
  const provider = createProvider({
    config,
    store,
    logger,
    jwks: keys.jwks,
    cookieKeys: keys.cookieKeys,
    pairwiseSalt: keys.pairwiseSalt,
    pageHeaders: (ctx, redirectUri) => security.pageHeaders(ctx as unknown as Context, redirectUri),
    stylesheets: assets.stylesheets,
    access,
    audit,
    documents: keys.documents,
    refresh: services.refresh,
    agents: services,
  });
  mount(provider, services);
  auditProviderEvents(provider, audit, { registrationToken: config.registrationToken !== undefined });
  for (const [event, kind] of [
    ['authorization_code.saved', 'authorization_code'],
    ['access_token.saved', 'access_token'],
    ['refresh_token.saved', 'refresh_token'],
  ] as const) {
    (provider as unknown as { on(event: string, listener: () => void): void }).on(event, () => metrics.tokenIssued(kind));
  }
  return { provider, handler: provider.callback() as App['handler'] };
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<App> {
  const logger = options.logger ?? createLogger(config.logLevel, undefined, config.logFormat);
  if (config.storage.kind === 'memory') {
    logger.warn('STORAGE_URL=memory: everything is lost when this process stops; use it for tests only');
  }
  // Tracing first: when on, storage operations and RPC requests are recorded too.
  const tracing = config.tracing.enabled ? await startTracing(config.tracing) : NO_TRACING;
  const metrics: Metrics = createMetrics();
  const store = await openStore(config, logger, metrics, tracing, options.store);

  const audit = createAuditLog(config.auditLog);
  // Client logos are served by the provider (/logo/<client_id>): pages load nothing from third parties.
  const security = createSecurity({
    hsts: config.origin.startsWith('https:'),
    ...(config.walletConnectProjectId
      ? { connectSources: WALLETCONNECT_SOURCES.connect, frameSources: WALLETCONNECT_SOURCES.frame }
      : {}),
  });
  const { chains, access, ens } = await onchain(config, store, logger, metrics, tracing);
  const limits = createRateLimits(store, config, logger, metrics);
  const clients = await startClientHousekeeping(config, store, logger);
  const assets = webAssets();

  let keys = await ensureSigningKeys(store);
  const cookieKeys = await ensureCookieKeys(store, config.cookieKeys);
  const pairwiseSalt = await ensurePairwiseSalt(store);

  let current: { provider: Provider; handler: App['handler'] };
  const services: Services = {
    config,
    store,
    logger,
    chains,
    access,
    ens,
    metrics,
    audit,
    tracing,
    limits,
    security,
    assets,
    clients,
    lifecycle: { draining: false, keysLoaded: () => keys.length > 0 },
    provider: () => current.provider,
    ...(config.refreshReuseGraceSeconds > 0 ? { refresh: new RefreshGrace(store, config.refreshReuseGraceSeconds) } : {}),
  };

  const build = () =>
    buildProvider(services, { jwks: providerJwks(keys), cookieKeys, pairwiseSalt, documents: clients.documents });
  current = build();
  await validateStaticClients(current.provider, config);

  const reloadKeys = async () => {
    const latest = await listSigningKeys(store);
    if (latest.length === 0 || keySetVersion(latest) === keySetVersion(keys)) return false;
    keys = latest;
    current = build();
    logger.info({ kids: keys.map((k) => k.kid) }, 'signing keys changed; provider reloaded');
    return true;
  };
  const timer = watchKeys(reloadKeys, logger, options.keyRefreshMs ?? 30_000);

  return {
    handler: (req, res) => current.handler(req, res),
    services,
    provider: () => current.provider,
    reloadKeys,
    async close() {
      if (timer) clearInterval(timer);
      await clients.stop();
      await store.close();
      await audit.close();
      await tracing.shutdown();
    },
  };
}

/**
 * Signet's own routes, tried only for a path whose first segment one of them starts with,
 * compared case-folded as the router matches: oidc-provider's requests skip the router's
 * matching altogether. A route whose first segment is a parameter or a pattern turns the guard off.
 */
function ownRoutes(router: Router): Middleware {
  const first = (path: string) => foldPath(path).split('/', 2)[1] ?? '';
  const segments = new Set(router.stack.map((layer) => (typeof layer.path === 'string' ? first(layer.path) : '')));
  const routes = router.routes() as unknown as Middleware;
  if ([...segments].some((segment) => segment === '' || /[:(*?{]/.test(segment))) return routes;
  // The request's route key (case-folded, computed once per request by routeOf) up to its second slash.
  const firstOf = (key: string) => {
    const end = key.indexOf('/', 1);
    return end === -1 ? key.slice(1) : key.slice(1, end);
  };
  return (ctx, next) => (segments.has(firstOf(routeOf(ctx))) ? routes(ctx, next) : next());
}

/** Signet's middleware and routes around an oidc-provider instance (itself a Koa app), in order. */
function mount(provider: Provider, services: Services) {
  const { config, logger, metrics, security, limits } = services;
  const profile = profileFor(config);
  const findClient = (clientId: string) => provider.Client.find(clientId);
  const router = new Router();
  legalRoutes(router, config, services.assets.stylesheets);
  logoRoutes(router, services);
  operationsRoutes(router, services);
  interactionRoutes(router, services);
  accountRoutes(router, services);
  passkeyRoutes(router, services);
  const stylesheets = services.assets.stylesheets;
  const pageHeaders = (ctx: Context) => security.pageHeaders(ctx);
  deviceRoutes(router, { config, stylesheets, findClient, pageHeaders });

  pinIssuerOrigin(provider, config.baseUrl);
  const steps = [
    services.tracing.middleware,
    accessLog(logger, { trustProxy: config.trustProxy }),
    errorBoundary(provider, metrics),
    unitOfWork(services.store),
    security.middleware,
    rateLimitedRoutes(profile, limits),
    deviceEntry(profile, {
      config,
      store: services.store,
      limits,
      device: createDeviceLimits(services.store, { failOpen: config.rateLimits.failOpen }),
      stylesheets,
      pageHeaders,
    }),
    devicePolling(profile, services.store),
    pushedRequestSize(profile),
    postAsGet(profile),
    tokenRequests(profile, scopesSupportedBy(config), findClient, {
      jwtAccessTokens: issuesJwtAccessTokens(config.resourceIndicators),
    }),
    targetWords(profile),
    services.refresh?.middleware(profile),
    introspectionSubject(profile, findClient, (accountId, client, ctx) =>
      subjectFor(services.store, accountId, client, grantIdOf(ctx, client)),
    ),
    discoveryValues(profile),
    clientManagementPath(profile, config.baseUrl),
    clientLifecycle(profile, services.clients.logos),
    logoutRedirects(profile, provider),
    unusedClientErrors(profile, provider, {
      usage: services.clients.usage,
      stylesheets: services.assets.stylesheets,
      pageHeaders: security.pageHeaders,
    }),
    ownRoutes(router),
    serveStatic('/assets/', services.assets.directory),
  ];
  for (const step of steps) if (step) provider.use(step as Middleware);
  logger.debug({ profile: config.profile }, 'routes mounted');
}
