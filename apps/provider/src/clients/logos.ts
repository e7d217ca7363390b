/**
 * Client logos, served by the provider itself at /logo/<client_id>, so the sign-in page makes
 * no third-party request (the client does not learn who opened the page). The provider fetches
 * a client's logo_uri when the client is registered, updated or added (https; never a loopback,
 * private or other special-use address (outbound.ts) unless ALLOW_PRIVATE_FETCH; no redirects;
 * 3 s; 256 KB; images only) and keeps one logo per client in storage, replaced when logo_uri
 * changes and removed with the client, all of them together within LOGO_STORAGE_LIMIT. A client
 * without a stored logo gets a drawn initial.
 */
import type Router from '@koa/router';
import type { Provider } from 'oidc-provider';
import { contentTypeOf, fetchPublic } from '../outbound/public-fetch.ts';
import type { Store } from '../storage/index.ts';
import { withLock } from '../storage/lock.ts';
import { type DocumentClients, isDocumentClientId } from './metadata-documents/index.ts';
import { clientFields } from './rules.ts';

const MAX_BYTES = 256 * 1024;
const TIMEOUT_MS = 3000;
/** How long browsers and proxies may keep a served logo. */
const CACHE_SECONDS = 3600;
const IMAGE_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/svg+xml',
  'image/x-icon',
  'image/vnd.microsoft.icon',
]);

type Logo = { type: string; body: Buffer };

/** Fetches an image with the rules above (outbound.ts: the DNS answer is checked before connecting). */
export async function fetchImage(uri: string, allowPrivate: boolean): Promise<Logo> {
  const { contentType, body } = await fetchPublic(uri, {
    allowPrivate,
    maxBytes: MAX_BYTES,
    timeoutMs: TIMEOUT_MS,
    headers: { accept: 'image/*', 'user-agent': 'Signet logo fetcher' },
    accept: (response) => {
      const type = contentTypeOf(response);
      return response.statusCode === 200 && IMAGE_TYPES.has(type)
        ? undefined
        : `logo answered ${response.statusCode} ${type || 'without a content-type'}`;
    },
  });
  return { type: contentType, body };
}

const ESCAPE: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** A plain square with the client's initial, when it has no (reachable) logo. */
export function initialLogo(name: string): Logo {
  const letter = (name.trim()[0] ?? '?').toUpperCase().replace(/[&<>"]/g, (c) => ESCAPE[c] as string);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 56 56" width="56" height="56"><rect width="56" height="56" rx="12" fill="#5b6270"/><text x="28" y="37" font-family="system-ui,sans-serif" font-size="26" text-anchor="middle" fill="#fff">${letter}</text></svg>`;
  return { type: 'image/svg+xml', body: Buffer.from(svg) };
}

/** Where a client's one logo is kept, and the running total of every stored logo's bytes. */
const logoKey = (clientId: string) => `logo:${clientId}`;
const TOTAL_KEY = 'logos:total-bytes';
/** The total is a counter in storage; counters expire, so this one is given a century. */
const TOTAL_TTL_SECONDS = 100 * 365 * 24 * 3600;

/**
 * One change of a client's logo at a time, on every replica: the entry and the total change
 * together from what was read under the claim (storage/lock.ts). Two concurrent updates of one
 * client once both read the same entry and took its bytes off the total twice (the total went
 * negative, and more than the limit was stored).
 */
const oneChangeAtATime = <T>(store: Store, clientId: string, change: () => Promise<T>) =>
  withLock(store, `logo:${clientId}`, change);

/** A client's stored logo: the URI it came from and, when the fetch succeeded, the image. */
type StoredLogo = { uri: string; type?: string; body?: string; size?: number };

export type LogoStoreOptions = {
  store: Store;
  logger: { info(fields: object, message: string): void; warn(fields: object, message: string): void };
  /** ALLOW_PRIVATE_FETCH. */
  allowPrivate: boolean;
  /** LOGO_STORAGE_LIMIT: bytes of every stored logo together (0 = no logos). */
  limitBytes: number;
};

export type LogoOutcome = 'stored' | 'kept' | 'removed' | 'unchanged' | 'failed' | 'over-limit' | 'off';

async function readStoredLogo(store: Store, clientId: string): Promise<StoredLogo | undefined> {
  const raw = await store.get(logoKey(clientId));
  return raw === undefined ? undefined : (JSON.parse(raw) as StoredLogo);
}

/** Writes (or removes) a client's entry, keeping the total in step with what it replaces. */
async function replaceStoredLogo(store: Store, clientId: string, previous: StoredLogo | undefined, next: StoredLogo | undefined) {
  const delta = (next?.size ?? 0) - (previous?.size ?? 0);
  if (next) await store.set(logoKey(clientId), JSON.stringify(next));
  else await store.delete(logoKey(clientId));
  if (delta !== 0) await store.increment(TOTAL_KEY, TOTAL_TTL_SECONDS, delta);
}

/**
 * Brings a client's stored logo in line with its `logo_uri`: called when a client is registered,
 * updated or added (never from an anonymous request). The same URI already stored is kept (a
 * failed fetch is tried again); another URI is fetched and replaces it; no URI removes it. A
 * logo that would take the total over the limit is not stored (the page draws an initial).
 */
export function refreshClientLogo(
  options: LogoStoreOptions,
  clientId: string,
  logoUri: string | undefined,
): Promise<LogoOutcome> {
  return oneChangeAtATime(options.store, clientId, () => replaceLogo(options, clientId, logoUri));
}

async function replaceLogo(options: LogoStoreOptions, clientId: string, logoUri: string | undefined): Promise<LogoOutcome> {
  const { store, logger, allowPrivate, limitBytes } = options;
  const previous = await readStoredLogo(store, clientId);
  if (logoUri === undefined || limitBytes === 0) {
    if (!previous) return logoUri === undefined ? 'unchanged' : 'off';
    await replaceStoredLogo(store, clientId, previous, undefined);
    return logoUri === undefined ? 'removed' : 'off';
  }
  if (previous?.uri === logoUri && previous.body !== undefined) return 'kept';
  let logo: Logo;
  try {
    logo = await fetchImage(logoUri, allowPrivate);
  } catch (error) {
    logger.info({ client_id: clientId, reason: (error as Error).message }, 'client logo unavailable; the page draws an initial');
    await replaceStoredLogo(store, clientId, previous, { uri: logoUri });
    return 'failed';
  }
  const size = logo.body.length;
  // Reserve the bytes first, so replicas storing logos at once cannot pass the limit together.
  const total = await store.increment(TOTAL_KEY, TOTAL_TTL_SECONDS, size);
  if (total - (previous?.size ?? 0) > limitBytes) {
    await store.increment(TOTAL_KEY, TOTAL_TTL_SECONDS, -size);
    logger.warn(
      { client_id: clientId, size, limit: limitBytes },
      'client logos fill LOGO_STORAGE_LIMIT; this logo is not stored (the page draws an initial)',
    );
    await replaceStoredLogo(store, clientId, previous, { uri: logoUri });
    return 'over-limit';
  }
  try {
    await store.set(
      logoKey(clientId),
      JSON.stringify({ uri: logoUri, type: logo.type, body: logo.body.toString('base64'), size }),
    );
  } catch (error) {
    await store.increment(TOTAL_KEY, TOTAL_TTL_SECONDS, -size).catch(() => {});
    throw error;
  }
  if (previous?.size) await store.increment(TOTAL_KEY, TOTAL_TTL_SECONDS, -previous.size);
  return 'stored';
}

/** Removes a client's logo (the client is gone). */
export function removeClientLogo(store: Store, clientId: string): Promise<void> {
  return oneChangeAtATime(store, clientId, async () => {
    const previous = await readStoredLogo(store, clientId);
    if (previous) await replaceStoredLogo(store, clientId, previous, undefined);
  });
}

/**
 * GET /logo/<client_id>: the client's stored logo when it is the one its `logo_uri` names, else
 * a drawn initial. Nothing is fetched here: logos are fetched when a client is registered or
 * updated (lifecycle.ts), so an anonymous request costs one storage read.
 */
export function logoRoutes(
  router: Router,
  services: { store: Store; provider(): Provider; clients?: { documents?: DocumentClients } },
) {
  const { store } = services;
  router.get('/logo/:clientId', async (ctx) => {
    const id = ctx.params.clientId as string;
    // A client known by its metadata document: only one already held (this route fetches nothing
    // for anyone); its page draws its initial, as a document's logo_uri is not fetched.
    const documents = services.clients?.documents;
    const ofDocument = documents !== undefined && isDocumentClientId(id);
    const client = ofDocument
      ? (documents.peek(id) as { clientId: string } | undefined)
      : await services.provider().Client.find(id);
    if (!client) {
      ctx.status = 404;
      ctx.body = { error: 'not_found' };
      return;
    }
    const metadata = clientFields(client) as { logo_uri?: string; client_name?: string };
    let logo: Logo | undefined;
    if (metadata.logo_uri && !ofDocument) {
      const stored = await readStoredLogo(store, client.clientId);
      if (stored?.uri === metadata.logo_uri && stored.type && stored.body) {
        logo = { type: stored.type, body: Buffer.from(stored.body, 'base64') };
      }
    }
    const { type, body } = logo ?? initialLogo(metadata.client_name ?? client.clientId);
    ctx.type = type;
    ctx.set('cache-control', `public, max-age=${CACHE_SECONDS}`);
    // An SVG opened directly must not run anything.
    ctx.set('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
    ctx.body = body;
  });
}
