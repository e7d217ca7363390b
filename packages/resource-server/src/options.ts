/**
 * The options of createResourceServer, checked once when it is called: a mistake throws
 * INVALID_OPTIONS naming the option, never a failure on the first request. The caller's object is
 * read, never kept or changed.
 */
import { ResourceServerError } from './errors.ts';

/** Signature algorithms an access token may use: asymmetric only (no `none`, no HMAC). */
export const ASYMMETRIC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

export type AccessTokenAlgorithm = (typeof ASYMMETRIC_ALGORITHMS)[number];

export type ResourceServerOptions = {
  /** The authorization server's issuer identifier, exactly as its discovery document's `issuer` says it. */
  issuer: string;
  /**
   * This resource's identifier (RFC 8707, RFC 9728 `resource`): the URL clients connect to, e.g.
   * `https://mcp.example.com/mcp`. Tokens must carry it in `aud`, compared exactly.
   */
  resource: string;
  /** Scopes every request needs (default none); a route may ask for more. Sent in challenges (`scope`). */
  scopes?: readonly string[];
  /** Scopes advertised in the metadata document's `scopes_supported` (default: `scopes`; omitted when empty). */
  scopesSupported?: readonly string[];
  /** A name for people, in the metadata document (`resource_name`). */
  resourceName?: string;
  /** A page for developers, in the metadata document (`resource_documentation`). */
  resourceDocumentation?: string;
  /** Allowed signature algorithms (default: every asymmetric one jose verifies). */
  algorithms?: readonly AccessTokenAlgorithm[];
  /** Clock skew allowed on `exp` and `nbf`, in seconds (default 15, at most 300). */
  clockToleranceSeconds?: number;
  /** Time limit of each fetch of the discovery document or the key set, in ms (default 5000). */
  timeoutMs?: number;
  /** Keys older than this are fetched again in the background, in seconds (default 600). */
  keysMaxAgeSeconds?: number;
  /** At most one fetch per this many seconds for an unknown `kid` or after a failed fetch (default 30). */
  refetchCooldownSeconds?: number;
  /**
   * How many verified tokens to remember (default 1000; 0: none), so a token sent again is not
   * verified again until its `exp` or until the issuer's keys change.
   */
  verifiedTokenCacheSize?: number;
  /** The fetch used for discovery and keys (default: the global fetch). */
  fetch?: typeof fetch;
  /** The clock, in ms since the epoch (default Date.now); tests pass their own. */
  now?: () => number;
};

export type ResolvedOptions = Readonly<{
  issuer: string;
  resource: string;
  resourceUrl: URL;
  scopes: readonly string[];
  scopesSupported: readonly string[];
  resourceName: string | undefined;
  resourceDocumentation: string | undefined;
  algorithms: readonly AccessTokenAlgorithm[];
  clockToleranceSeconds: number;
  timeoutMs: number;
  keysMaxAgeMs: number;
  refetchCooldownMs: number;
  verifiedTokenCacheSize: number;
  fetch: typeof fetch;
  now: () => number;
}>;

const invalid = (option: string, message: string) => new ResourceServerError('INVALID_OPTIONS', `${option}: ${message}`);

/** Loopback hosts, where plain http is allowed (development and tests). */
const isLoopback = (host: string) => host === 'localhost' || host === '127.0.0.1' || host === '[::1]';

/** An https URL (http only on loopback), without fragment; returned exactly as given. */
export function checkUrl(option: string, value: unknown, { path = true } = {}): URL {
  if (typeof value !== 'string' || value === '') throw invalid(option, 'must be a URL (a string)');
  const url = URL.parse(value);
  if (!url) throw invalid(option, `must be an absolute URL (got ${JSON.stringify(value)})`);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) {
    throw invalid(option, 'must be an https URL (http only on localhost, 127.0.0.1 or [::1])');
  }
  if (value.includes('#')) throw invalid(option, 'must not have a fragment');
  if (url.username || url.password) throw invalid(option, 'must not carry a user or password');
  if (!path && url.search) throw invalid(option, 'must not have a query');
  return url;
}

/** Scope tokens (RFC 6749 §3.3): printable ASCII without space, quote or backslash; no duplicates. */
export function checkScopes(option: string, value: unknown): readonly string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw invalid(option, 'must be an array of scope strings');
  for (const scope of value) {
    if (typeof scope !== 'string' || !/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(scope)) {
      throw invalid(option, `${JSON.stringify(scope)} is not a scope token (RFC 6749 §3.3)`);
    }
    if (scope === 'offline_access') {
      throw invalid(option, 'offline_access is not something a resource needs (the client asks for refresh tokens itself)');
    }
  }
  if (new Set(value).size !== value.length) throw invalid(option, 'names a scope twice');
  return Object.freeze([...value]);
}

function checkNumber(option: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw invalid(option, `must be a number from ${min} to ${max}`);
  }
  return value;
}

function checkAlgorithms(value: unknown): readonly AccessTokenAlgorithm[] {
  if (value === undefined) return ASYMMETRIC_ALGORITHMS;
  if (!Array.isArray(value) || value.length === 0) throw invalid('algorithms', 'must be a non-empty array');
  for (const alg of value) {
    if (!(ASYMMETRIC_ALGORITHMS as readonly unknown[]).includes(alg)) {
      throw invalid(
        'algorithms',
        `${JSON.stringify(alg)} is not allowed: only asymmetric algorithms (${ASYMMETRIC_ALGORITHMS.join(', ')}); never none or HMAC, whose "key" a resource would have to share`,
      );
    }
  }
  return Object.freeze([...value]);
}

function checkFunction<T>(option: string, value: unknown, fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value !== 'function') throw invalid(option, 'must be a function');
  return value as T;
}

export function resolveOptions(options: ResourceServerOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null) throw invalid('options', 'must be an object');
  checkUrl('issuer', options.issuer, { path: false });
  const resourceUrl = checkUrl('resource', options.resource);
  const scopes = checkScopes('scopes', options.scopes);
  const documentation = options.resourceDocumentation;
  if (documentation !== undefined) checkUrl('resourceDocumentation', documentation);
  if (options.resourceName !== undefined && (typeof options.resourceName !== 'string' || options.resourceName === '')) {
    throw invalid('resourceName', 'must be a non-empty string');
  }
  return Object.freeze({
    issuer: options.issuer,
    resource: options.resource,
    resourceUrl,
    scopes,
    scopesSupported: options.scopesSupported === undefined ? scopes : checkScopes('scopesSupported', options.scopesSupported),
    resourceName: options.resourceName,
    resourceDocumentation: documentation,
    algorithms: checkAlgorithms(options.algorithms),
    clockToleranceSeconds: checkNumber('clockToleranceSeconds', options.clockToleranceSeconds, 15, 0, 300),
    timeoutMs: checkNumber('timeoutMs', options.timeoutMs, 5000, 1, 60_000),
    keysMaxAgeMs: checkNumber('keysMaxAgeSeconds', options.keysMaxAgeSeconds, 600, 1, 86_400) * 1000,
    refetchCooldownMs: checkNumber('refetchCooldownSeconds', options.refetchCooldownSeconds, 30, 0, 3600) * 1000,
    verifiedTokenCacheSize: checkNumber('verifiedTokenCacheSize', options.verifiedTokenCacheSize, 1000, 0, 100_000),
    fetch: checkFunction('fetch', options.fetch, (...args: Parameters<typeof fetch>) => fetch(...args)),
    now: checkFunction('now', options.now, Date.now),
  });
}
