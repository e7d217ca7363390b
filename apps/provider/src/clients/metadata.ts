/**
 * Bounds on what a client may register, and the rule that no URI a client registers carries a
 * user part. oidc-provider checks types and values; it bounds neither sizes nor counts, and it
 * accepts `https://app.example@evil.example/cb`, which a wallet then shows as if it named
 * app.example. Both checks run wherever client metadata arrives: registration and its management
 * (RFC 7591/7592), CLIENTS_FILE and the CLI.
 */
import { errors } from 'oidc-provider';

/** The limits (docs/relying-parties.md, "Register a client", lists them). */
export const METADATA_LIMITS = {
  /** Characters of `client_name` (shown on the wallet page). */
  clientName: 100,
  /** Characters of any other text value, URIs included. */
  text: 2000,
  /** Entries of `redirect_uris` and of `post_logout_redirect_uris`. */
  redirectUris: 20,
  /** Entries of any other list (`contacts`, `grant_types`, …). */
  list: 10,
  /** Bytes of an object value (`jwks`, `access_conditions`) as JSON: a larger key set belongs at a `jwks_uri`. */
  object: 8 * 1024,
  /** Bytes of the whole client record as JSON. */
  total: 16 * 1024,
} as const;

const REDIRECT_LISTS = new Set(['redirect_uris', 'post_logout_redirect_uris']);

const invalid = (message: string) => new errors.InvalidClientMetadata(message);

/**
 * Throws invalid_client_metadata for the first field over its bound. `metadata` is the client's
 * metadata as oidc-provider holds it (snake_case keys, defaults applied).
 */
export function assertMetadataBounds(metadata: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(metadata)) {
    if (typeof value === 'string') {
      const limit = key === 'client_name' ? METADATA_LIMITS.clientName : METADATA_LIMITS.text;
      if (value.length > limit) throw invalid(`${key} must be at most ${limit} characters (got ${value.length})`);
    } else if (Array.isArray(value)) {
      const limit = REDIRECT_LISTS.has(key) ? METADATA_LIMITS.redirectUris : METADATA_LIMITS.list;
      if (value.length > limit) throw invalid(`${key} may list at most ${limit} entries (got ${value.length})`);
      for (const item of value) {
        if (typeof item === 'string' && item.length > METADATA_LIMITS.text) {
          throw invalid(`${key}: every entry must be at most ${METADATA_LIMITS.text} characters`);
        }
        if (typeof item === 'object' && item !== null) {
          throw invalid(`${key} must list strings`);
        }
      }
    } else if (typeof value === 'object' && value !== null) {
      const size = Buffer.byteLength(JSON.stringify(value));
      if (size > METADATA_LIMITS.object) {
        throw invalid(`${key} must be at most ${METADATA_LIMITS.object} bytes as JSON (got ${size})`);
      }
    }
  }
  const total = Buffer.byteLength(JSON.stringify(metadata));
  if (total > METADATA_LIMITS.total) {
    throw invalid(`the client metadata must be at most ${METADATA_LIMITS.total} bytes as JSON (got ${total})`);
  }
}

/** An authority with a user part (`user@`, `user:pass@`, or a bare `@`), however WHATWG URL reads it. */
const USERINFO = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i;

/** Why a URI value may not be registered, or undefined. */
export function userinfoProblem(value: string): string | undefined {
  const url = URL.parse(value);
  if (USERINFO.test(value) || url?.username || url?.password) {
    return 'must not contain a user name or password before the host (user@host): a wallet or browser would show a misleading host';
  }
  return undefined;
}

/** Metadata fields that hold URIs: every RFC 7591 / OpenID field named `…_uri` or `…_uris`. */
const isUriField = (key: string) => key.endsWith('_uri') || key.endsWith('_uris');

/** Throws invalid_client_metadata for the first URI field with a user part. */
export function assertNoUserinfo(metadata: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(metadata)) {
    if (!isUriField(key)) continue;
    for (const uri of Array.isArray(value) ? value : [value]) {
      if (typeof uri !== 'string') continue;
      const problem = userinfoProblem(uri);
      if (problem) throw invalid(`${key}: ${JSON.stringify(uri)} ${problem}`);
    }
  }
}
