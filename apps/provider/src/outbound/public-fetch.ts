/**
 * The one rule for every request the provider makes to a URL someone else chose (client
 * logos, ENS avatars, CCIP-read gateways, client jwks_uri and sector_identifier_uri
 * documents): never to a loopback, private, link-local or other special-use address, named or
 * resolved. The ranges are IANA's special-purpose registries for IPv4 and IPv6, a superset of
 * oidc-provider's own list (lib/helpers/fetch_request.js), plus the ranges that embed an IPv4
 * address (mapped, translated, compatible, NAT64, 6to4, Teredo), which are refused whole.
 *
 * `fetchPublic` is the one fetch that applies it (logos, CCIP-read gateways): https only, the
 * DNS answer checked in the connection's own lookup (no rebinding window), no redirects (any
 * 3xx is a failed call), a byte cap counted on what arrives, one deadline for the whole
 * exchange, and TLS through Node's trust store (NODE_EXTRA_CA_CERTS adds a CA).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP } from 'node:net';

const SPECIAL_V4 = new BlockList();
const SPECIAL_V6 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (CGNAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.31.196.0', 24], // AS112
  ['192.52.193.0', 24], // AMT
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['192.175.48.0', 24], // AS112
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  SPECIAL_V4.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 96], // unspecified, loopback and IPv4-compatible (::/96)
  ['::ffff:0:0', 96], // IPv4-mapped
  ['::ffff:0:0:0', 96], // IPv4-translated
  ['64:ff9b::', 96], // NAT64
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments, incl. Teredo (2001::/32) and ORCHID
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4
  ['2620:4f:8000::', 48], // AS112
  ['3fff::', 20], // documentation
  ['5f00::', 16], // segment routing (SRv6) SIDs
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  SPECIAL_V6.addSubnet(net, prefix, 'ipv6');
}

/** True for an address no outbound fetch may reach (and for anything that is not an IP address). */
export function isSpecialUseAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return SPECIAL_V4.check(bare, 'ipv4');
  if (family === 6) return SPECIAL_V6.check(bare, 'ipv6');
  return true;
}

/** All addresses a host name resolves to. */
export function resolveAll(hostname: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });
}

/**
 * Why a URL may not be fetched (or handed to clients as something to fetch), or undefined
 * when it may: http(s) only (https unless `allowPrivate`), no credentials, and its host — an
 * IP literal, or every address the name resolves to — not special-use (unless `allowPrivate`,
 * the development setting ALLOW_PRIVATE_FETCH).
 */
export async function publicUrlProblem(
  value: string,
  { allowPrivate = false, resolve = resolveAll }: { allowPrivate?: boolean; resolve?: typeof resolveAll } = {},
): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not a URL';
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) return 'not an https URL';
  if (url.username || url.password) return 'has credentials';
  if (allowPrivate) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return isSpecialUseAddress(host) ? `${url.hostname} is a private or special-use address` : undefined;
  let addresses: LookupAddress[];
  try {
    addresses = await resolve(host);
  } catch {
    return `${url.hostname} does not resolve`;
  }
  if (addresses.length === 0 || addresses.some((a) => isSpecialUseAddress(a.address))) {
    return `${url.hostname} resolves to a private or special-use address`;
  }
  return undefined;
}

export type PublicFetchOptions = {
  /** ALLOW_PRIVATE_FETCH: http, and loopback and private addresses, are allowed (development). */
  allowPrivate: boolean;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** The most bytes of the answer read (counted as they arrive, whatever Content-Length says). */
  maxBytes: number;
  /** One deadline for the whole exchange: connection, headers and body. */
  timeoutMs: number;
  /** Ends the exchange early (an overall budget the caller keeps). */
  signal?: AbortSignal;
  /** Decides from the status and headers whether the answer is wanted: a reason refuses it unread. */
  accept?: (response: IncomingMessage) => string | undefined;
};

export type PublicFetchResult = { status: number; contentType: string; body: Buffer };

/** Why a fetch gave up: `status` when the server answered one that was refused. */
export class PublicFetchError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'PublicFetchError';
  }
}

/** The media type of an answer, lowercase, without parameters ("" when none). */
export const contentTypeOf = (response: IncomingMessage) =>
  String(response.headers['content-type'] ?? '')
    .split(';')[0]
    ?.trim()
    .toLowerCase() ?? '';

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/** Fetches a URL someone else chose, with the rules above. */
export function fetchPublic(uri: string, options: PublicFetchOptions): Promise<PublicFetchResult> {
  const { allowPrivate, maxBytes, timeoutMs, signal } = options;
  return new Promise((resolve, reject) => {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      reject(new PublicFetchError('not a URL'));
      return;
    }
    if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
      reject(new PublicFetchError('not an https URL'));
      return;
    }
    if (url.username || url.password) {
      reject(new PublicFetchError('has credentials'));
      return;
    }
    // An IP literal is connected to without a DNS lookup: check it here.
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (!allowPrivate && isIP(literal) && isSpecialUseAddress(literal)) {
      reject(new PublicFetchError(`${url.hostname} is a private or special-use address`));
      return;
    }
    if (signal?.aborted) {
      reject(new PublicFetchError('abandoned'));
      return;
    }
    const lookup = (hostname: string, lookupOptions: object, callback: (...args: unknown[]) => void) => {
      dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses: LookupAddress[]) => {
        if (error) return callback(error);
        const blocked = !allowPrivate && addresses.some((a) => isSpecialUseAddress(a.address));
        if (blocked) return callback(new PublicFetchError(`${hostname} resolves to a private or special-use address`));
        const first = addresses[0] as LookupAddress;
        return (lookupOptions as { all?: boolean }).all ? callback(null, addresses) : callback(null, first.address, first.family);
      });
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let request: ClientRequest;
    // Settled here, then the connection closed without an error of its own: a TLS socket given an
    // error after its answer began would emit it where nothing listens (an uncaught exception).
    const fail = (error: Error) => {
      reject(error);
      request.destroy();
    };
    request = send(
      url,
      { method: options.method ?? 'GET', headers: options.headers, lookup: lookup as never, timeout: timeoutMs },
      (response: IncomingMessage) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          fail(new PublicFetchError(`answered ${status} (redirects are not followed)`, status));
          return;
        }
        const refused = options.accept?.(response);
        if (refused) {
          fail(new PublicFetchError(refused, status));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            fail(new PublicFetchError(`answer is larger than ${Math.round(maxBytes / 1024)} KB`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => resolve({ status, contentType: contentTypeOf(response), body: Buffer.concat(chunks) }));
        response.on('error', reject);
      },
    );
    // `timeout` only bounds idleness; this bounds the whole exchange (a trickling server cannot hold it).
    const deadline = setTimeout(() => fail(new PublicFetchError(`took longer than ${seconds(timeoutMs)}`)), timeoutMs);
    const abandon = () => fail(new PublicFetchError('abandoned'));
    signal?.addEventListener('abort', abandon, { once: true });
    request.on('timeout', () => fail(new PublicFetchError('timed out')));
    request.on('close', () => {
      clearTimeout(deadline);
      signal?.removeEventListener('abort', abandon);
    });
    request.on('error', reject);
    request.end(options.body);
  });
}
