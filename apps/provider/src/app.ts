/**
 * buildApp(config): everything the provider is, as one request listener, without
 * listening. server.ts listens; tests call buildApp in process or run server.ts.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Router from '@koa/router';
import { createChainRegistry } from '@signet/siwe';
import parseBody from 'co-body';
import type { Context, Next } from 'koa';
import type { Provider } from 'oidc-provider';
import { createAccessGate } from './access.ts';
import { accessLog, routeLabel } from './access-log.ts';
import { withAuthMethodDefault } from './clients.ts';
import { type Config, ConfigError } from './config.ts';
import { createEnsResolver } from './ens.ts';
import { InteractionError } from './interaction/errors.ts';
import { interactionRoutes } from './interaction/routes.ts';
import { ensureCookieKeys, ensurePairwiseSalt, ensureSigningKeys, keySetVersion, listSigningKeys, providerJwks } from './keys.ts';
import { legalRoutes } from './legal.ts';
import { createRateLimits, foldPath, type LimitBucket, routeKey } from './limits.ts';
import { createLogger, type Logger } from './logger.ts';
import { logoRoutes } from './logos.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { createProvider } from './oidc.ts';
import { pinIssuerOrigin } from './origin.ts';
import { PROFILES } from './profiles.ts';
import { createSecurity, WALLETCONNECT_SOURCES } from './security.ts';
import type { Services } from './services.ts';
import { serveStatic, webAssets } from './static.ts';
import { createStore, StorageUnavailableError, type Store } from './storage/index.ts';

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
      await provider.Client.validate(withAuthMethodDefault(metadata, PROFILES[config.profile].defaultClientAuthMethod) as never);
    } catch (error) {
      const description = (error as { error_description?: string }).error_description ?? (error as Error).message;
      throw new ConfigError(`CLIENTS_FILE: entry ${index} (client_id ${String(metadata.client_id)}): ${description}`);
    }
  }
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<App> {
  const logger = options.logger ?? createLogger(config.logLevel, undefined, config.logFormat);
  if (config.storage.kind === 'memory') {
    logger.warn('STORAGE_URL=memory: everything is lost when this process stops; use it for tests only');
  }
  const store = options.store ?? createStore(config, { warn: (message) => logger.warn(message) });
  try {
    await store.ping();
  } catch (error) {
    await store.close();
    throw new ConfigError(`STORAGE_URL: storage does not answer (${(error as Error).message})`);
  }

  const metrics: Metrics = createMetrics();
  // Client logos are served by the provider (/logo/<client_id>): pages load nothing from third parties.
  const security = createSecurity({
    hsts: config.origin.startsWith('https:'),
    ...(config.walletConnectProjectId
      ? { connectSources: WALLETCONNECT_SOURCES.connect, frameSources: WALLETCONNECT_SOURCES.frame }
      : {}),
  });
  const chains = createChainRegistry(config.rpcUrls, { timeoutMs: config.rpcTimeoutMs });
  const access = createAccessGate({ chains, timeoutMs: config.rpcTimeoutMs, cacheSeconds: config.accessCacheSeconds });
  const ens = createEnsResolver({
    rpcUrl: config.ens.rpcUrl,
    universalResolver: config.ens.universalResolver,
    cacheTtlSeconds: config.ens.cacheTtlSeconds,
    timeoutMs: config.ens.timeoutMs,
    store,
    logger,
    allowPrivate: config.allowPrivateFetch,
    onLookup: (outcome) => metrics.ensLookup(outcome),
  });
  const limits = createRateLimits(store, config, logger, metrics);
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
    limits,
    security,
    assets,
    provider: () => current.provider,
  };

  const build = () => {
    const provider = createProvider({
      config,
      store,
      logger,
      jwks: providerJwks(keys),
      cookieKeys,
      pairwiseSalt,
      pageHeaders: (ctx, redirectUri) => security.pageHeaders(ctx as unknown as Context, redirectUri),
      stylesheets: assets.stylesheets,
      access,
    });
    mount(provider, services);
    for (const [event, kind] of [
      ['authorization_code.saved', 'authorization_code'],
      ['access_token.saved', 'access_token'],
      ['refresh_token.saved', 'refresh_token'],
    ] as const) {
      (provider as unknown as { on(event: string, listener: () => void): void }).on(event, () => metrics.tokenIssued(kind));
    }
    return { provider, handler: provider.callback() as App['handler'] };
  };
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
  const refreshMs = options.keyRefreshMs ?? 30_000;
  const timer =
    refreshMs > 0
      ? setInterval(() => {
          reloadKeys().catch((error) => logger.warn({ err: error }, 'could not check for rotated signing keys'));
        }, refreshMs)
      : undefined;
  timer?.unref();

  return {
    handler: (req, res) => current.handler(req, res),
    services,
    provider: () => current.provider,
    reloadKeys,
    async close() {
      if (timer) clearInterval(timer);
      await store.close();
    },
  };
}

const DISCOVERY_ROUTE = routeKey('/.well-known/openid-configuration');

/** Signet's routes and middleware on an oidc-provider instance (itself a Koa app). */
function mount(provider: Provider, services: Services) {
  const { config, logger, metrics, security, limits } = services;
  const profile = PROFILES[config.profile];

  provider.use(accessLog(logger, { trustProxy: config.trustProxy }));
  provider.use(pinIssuerOrigin(config.baseUrl));

  // Storage outages and rate limits: a clear 503 / 429, never a hang or a bare 500. Errors
  // inside oidc-provider's own routes are handled there (500 server_error); its server_error
  // event tells us when storage was the cause, and the response becomes a 503.
  const storageFailed = new WeakSet<object>();
  provider.on('server_error', (ctx: Context, error: Error) => {
    if (error instanceof StorageUnavailableError || (error as { cause?: unknown }).cause instanceof StorageUnavailableError) {
      storageFailed.add(ctx);
      metrics.storageError(routeLabel(ctx));
    }
  });
  provider.use(async (ctx: Context, next: Next) => {
    try {
      await next();
    } catch (error) {
      const failure =
        error instanceof InteractionError
          ? error
          : error instanceof StorageUnavailableError
            ? new InteractionError('STORAGE_UNAVAILABLE', 'storage is unavailable; try again shortly')
            : undefined;
      if (!failure) throw error;
      if (failure.code === 'STORAGE_UNAVAILABLE') metrics.storageError(routeLabel(ctx));
      ctx.status = failure.status;
      ctx.body = {
        error: failure.code === 'RATE_LIMITED' ? 'rate_limited' : 'temporarily_unavailable',
        error_description: failure.message,
      };
      return;
    }
    if (storageFailed.has(ctx)) {
      ctx.status = 503;
      ctx.set('Retry-After', '5');
      ctx.body = { error: 'temporarily_unavailable', error_description: 'storage is unavailable; try again shortly' };
    }
  });
  provider.use(security.middleware);

  // Keyed on the route that will serve the request (routeKey), not on the exact path.
  const limitedRoutes = new Map<string, { methods: string[]; bucket: LimitBucket }>([
    [routeKey(profile.routes.registration), { methods: ['POST'], bucket: 'registration' }],
    [routeKey(profile.routes.token), { methods: ['POST'], bucket: 'token' }],
    // Every authorization request creates an interaction in storage: bounded per address.
    [routeKey(profile.routes.authorization), { methods: ['GET', 'HEAD', 'POST'], bucket: 'authorization' }],
  ]);
  provider.use(async (ctx: Context, next: Next) => {
    const limited = limitedRoutes.get(routeKey(ctx.path));
    if (limited?.methods.includes(ctx.method)) await limits.check(ctx, limited.bucket);
    await next();
  });

  // OIDC lets clients POST authorization and logout requests (form-encoded). oidc-provider takes
  // POST there only with SameSite=None session cookies; instead, a POST is answered with a 303 to
  // the same request as a GET, a top-level navigation that carries the SameSite=Lax cookies.
  const getOnlyRoutes = new Set([routeKey(profile.routes.authorization), routeKey(profile.routes.end_session)]);
  provider.use(async (ctx: Context, next: Next) => {
    if (ctx.method !== 'POST' || !getOnlyRoutes.has(routeKey(ctx.path))) return next();
    if (!ctx.is('application/x-www-form-urlencoded')) {
      ctx.status = 400;
      ctx.body = {
        error: 'invalid_request',
        error_description: `POST ${ctx.path} takes application/x-www-form-urlencoded parameters`,
      };
      return;
    }
    let params: Record<string, unknown>;
    try {
      params = await parseBody.form(ctx, { limit: '64kb' });
    } catch (error) {
      ctx.status = (error as { status?: number }).status === 413 ? 413 : 400;
      ctx.body = {
        error: 'invalid_request',
        error_description: `the request body could not be read (${(error as Error).message})`,
      };
      return;
    }
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) {
      if (typeof value === 'string') query.append(key, value);
      else if (Array.isArray(value)) for (const item of value) query.append(key, String(item));
    }
    ctx.set('cache-control', 'no-store');
    ctx.status = 303;
    ctx.redirect(`${ctx.path}?${query}`);
  });

  // The profile's discovery values, where the spec's table lists a subset of what works; cache headers.
  const JWKS_ROUTE = routeKey(profile.routes.jwks);
  provider.use(async (ctx: Context, next: Next) => {
    await next();
    if (ctx.status !== 200) return;
    const route = routeKey(ctx.path);
    // Nothing in these two depends on the request (URLs come from ISSUER alone): shared caches may keep them.
    if (route === DISCOVERY_ROUTE || route === JWKS_ROUTE)
      ctx.set('cache-control', `public, max-age=${route === JWKS_ROUTE ? 60 : 300}`);
    if (route !== DISCOVERY_ROUTE || typeof ctx.body !== 'object') return;
    const body = ctx.body as Record<string, unknown>;
    if (profile.advertisedScopes) body.scopes_supported = profile.advertisedScopes;
    if (profile.advertisedClaims) body.claims_supported = profile.advertisedClaims;
    if (profile.advertisedClientAuthMethods) body.token_endpoint_auth_methods_supported = profile.advertisedClientAuthMethods;
  });

  // Client management at the profile's own path (hosted: /client/<id>), on top of
  // oidc-provider's <registration>/<id> route: requests are mapped in, URIs mapped out.
  if (profile.clientManagementPath !== profile.routes.registration) {
    const outside = `${profile.clientManagementPath}/`;
    const inside = `${profile.routes.registration}/`;
    provider.use(async (ctx: Context, next: Next) => {
      const folded = foldPath(ctx.path);
      if (folded.startsWith(foldPath(inside))) {
        ctx.status = 404;
        ctx.body = { error: 'not_found', error_description: `clients are managed at ${outside}<client_id>` };
        return;
      }
      if (folded.startsWith(foldPath(outside))) ctx.path = inside + ctx.path.slice(outside.length);
      await next();
      const body = ctx.body as { registration_client_uri?: string } | undefined;
      if (body && typeof body === 'object' && typeof body.registration_client_uri === 'string') {
        body.registration_client_uri = body.registration_client_uri.replace(
          `${config.baseUrl}${inside}`,
          `${config.baseUrl}${outside}`,
        );
      }
    });
  }

  const router = new Router();
  legalRoutes(router, config, services.assets.stylesheets);
  logoRoutes(router, services);
  router.get('/health', async (ctx) => {
    let storage = 'ok';
    try {
      await services.store.ping();
    } catch (error) {
      // The details (hosts, ports) go to the log, not to whoever asks.
      logger.warn({ reason: (error as Error).message }, 'health check: storage unavailable');
      storage = 'unavailable';
    }
    const healthy = storage === 'ok';
    ctx.status = healthy ? 200 : 503;
    ctx.set('cache-control', 'no-store');
    ctx.body = { status: healthy ? 'ok' : 'unavailable', storage, profile: config.profile };
  });
  router.get('/metrics', async (ctx) => {
    if (config.metricsToken) {
      const given = Buffer.from(ctx.get('authorization').replace(/^Bearer /, ''));
      const expected = Buffer.from(config.metricsToken);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        ctx.status = 401;
        ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
        ctx.body = { error: 'invalid_token', error_description: 'GET /metrics needs the METRICS_TOKEN as a Bearer token' };
        return;
      }
    }
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  });
  const interactions = interactionRoutes(services);
  provider.use(router.routes());
  provider.use(interactions.routes());
  provider.use(serveStatic('/assets/', services.assets.directory));
  logger.debug({ profile: config.profile }, 'routes mounted');
}
