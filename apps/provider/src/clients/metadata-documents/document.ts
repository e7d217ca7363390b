/**
 * A Client ID Metadata Document as Signet reads it, before oidc-provider validates it. Real
 * documents ask for more than a wallet sign-in gives; what Signet cannot give is dropped, not
 * fatal, so the rest of the document still works:
 *
 * - grant types Signet never takes from a document: `urn:ietf:params:oauth:grant-type:jwt-bearer`
 *   (Claude's document lists it without using it). Programs that sign their own assertions are
 *   registered clients (RFC 7523, registered with that grant), never a document found at a URL,
 *   whatever the provider supports; oidc-provider then drops the other grants it does not support;
 * - shared-secret methods among the choices a document offers (`token_endpoint_auth_methods_supported`,
 *   OpenID Connect RP Metadata Choices): a document has no secret to share. A document that names
 *   one as its own `token_endpoint_auth_method` is still refused, by oidc-provider, with words;
 * - a document that names no way to authenticate is a public client (`none`), whatever the
 *   profile's default for registration.
 *
 * Anything else (not JSON, not an object, `client_id` not its URL) is left for oidc-provider to refuse.
 */

/** What oidc-provider reads of a document at most (its own default), and how long a fetch may take. */
export const MAX_DOCUMENT_BYTES = 5 * 1024;
export const FETCH_TIMEOUT_MS = 2500;

export const DROPPED_GRANTS: ReadonlySet<string> = new Set(['urn:ietf:params:oauth:grant-type:jwt-bearer']);
const SHARED_SECRET_METHODS: ReadonlySet<string> = new Set(['client_secret_basic', 'client_secret_post', 'client_secret_jwt']);

/** Whether a client_id is resolved as a document here: any `https://` URL (oidc-provider then checks its form). */
export const isDocumentClientId = (id: unknown): id is string => typeof id === 'string' && /^https:\/\//i.test(id);

/** The document's bytes as oidc-provider should read them (the same bytes when nothing is dropped). */
export function asSignetReadsIt(body: Buffer): Buffer {
  let document: unknown;
  try {
    document = JSON.parse(body.toString('utf8'));
  } catch {
    return body;
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document)) return body;
  const fields = document as Record<string, unknown>;
  let changed = false;
  const keep = (field: string, drop: ReadonlySet<string>) => {
    const values = fields[field];
    if (!Array.isArray(values) || !values.some((value) => drop.has(value))) return;
    fields[field] = values.filter((value) => !drop.has(value));
    changed = true;
  };
  keep('grant_types', DROPPED_GRANTS);
  keep('token_endpoint_auth_methods_supported', SHARED_SECRET_METHODS);
  if (fields.token_endpoint_auth_method === undefined && fields.token_endpoint_auth_methods_supported === undefined) {
    fields.token_endpoint_auth_method = 'none';
    changed = true;
  }
  return changed ? Buffer.from(JSON.stringify(fields)) : body;
}
