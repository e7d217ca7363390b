/**
 * Client logos, served by the provider itself at /logo/<client_id>, so the sign-in page makes
 * no third-party request (the client does not learn who opened the page). The provider
 * fetches the client's logo_uri once (https; never a loopback, private or other special-use
 * address (outbound.ts) unless ALLOW_PRIVATE_FETCH; no redirects; 3 s; 256 KB; images only), caches it in storage for an hour, and
 * answers a drawn initial when the logo cannot be had.
 */
import { createHash } from 'node:crypto';
import type Router from '@koa/router';
import { clientFields } from './clients.ts';
import { contentTypeOf, fetchPublic } from './outbound.ts';
import type { Services } from './services.ts';

const MAX_BYTES = 256 * 1024;
const TIMEOUT_MS = 3000;
const CACHE_SECONDS = 3600;
const FAILURE_CACHE_SECONDS = 300;
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

export function logoRoutes(router: Router, services: Services) {
  const { store, logger, config } = services;
  // One fetch per logo at a time in this process, however many pages ask for it meanwhile.
  const inFlight = new Map<string, Promise<Logo | undefined>>();
  const fetchAndCache = (key: string, uri: string, clientId: string) => {
    let pending = inFlight.get(key);
    if (!pending) {
      pending = fetchImage(uri, config.allowPrivateFetch)
        .then(async (logo) => {
          await store.set(key, JSON.stringify({ type: logo.type, body: logo.body.toString('base64') }), CACHE_SECONDS);
          return logo;
        })
        .catch(async (error) => {
          logger.info({ client_id: clientId, reason: (error as Error).message }, 'client logo unavailable; drawing an initial');
          await store.set(key, JSON.stringify({}), FAILURE_CACHE_SECONDS).catch(() => {});
          return undefined;
        })
        .finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    return pending;
  };
  router.get('/logo/:clientId', async (ctx) => {
    const client = await services.provider().Client.find(ctx.params.clientId as string);
    if (!client) {
      ctx.status = 404;
      ctx.body = { error: 'not_found' };
      return;
    }
    const metadata = clientFields(client) as { logo_uri?: string; client_name?: string };
    let logo: Logo | undefined;
    if (metadata.logo_uri) {
      const key = `logo:${client.clientId}:${createHash('sha256').update(metadata.logo_uri).digest('base64url').slice(0, 16)}`;
      const cached = await store.get(key);
      if (cached !== undefined) {
        const parsed = JSON.parse(cached) as { type?: string; body?: string };
        if (parsed.type && parsed.body) logo = { type: parsed.type, body: Buffer.from(parsed.body, 'base64') };
      } else {
        logo = await fetchAndCache(key, metadata.logo_uri, client.clientId);
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
