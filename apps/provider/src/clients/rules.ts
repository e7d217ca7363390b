/**
 * Client rules Signet adds to oidc-provider's own validation: redirect URIs are https,
 * except http on loopback hosts (localhost, 127.0.0.1, [::1]) for development, and RFC 3986
 * URIs that an EIP-4361 message can carry as its resource. The same
 * check runs for dynamic registration, pre-registered clients (CLIENTS_FILE) and the CLI.
 */
import { isSiweUri } from '@signet/siwe/offline';
import { errors } from 'oidc-provider';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export function redirectUriProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a URL';
  }
  if (url.hash || value.includes('#')) return 'must not contain a fragment';
  // WHATWG URL parsing forgives "https:host/path"; browsers would go somewhere else than it reads.
  if (!/^https?:\/\/[^/?#]/i.test(value)) return 'must be an absolute URL with a host (scheme://host/…)';
  // The wallet signs the redirect URI as the message's first resource, exactly as registered.
  if (!isSiweUri(value)) {
    return 'cannot be carried by an EIP-4361 sign-in message (it must be an RFC 3986 URI: ASCII only, hosts in punycode (xn--…), spaces and other characters percent-encoded)';
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && (LOOPBACK.has(url.hostname) || url.hostname.endsWith('.localhost'))) return undefined;
  return 'must use https (http is allowed only for localhost and loopback addresses)';
}

/** Throws (invalid_redirect_uri / invalid_client_metadata) for the first URI that breaks the rule. */
export function assertRedirectUris(metadata: { redirect_uris?: unknown; post_logout_redirect_uris?: unknown }): void {
  for (const field of ['redirect_uris', 'post_logout_redirect_uris'] as const) {
    const uris = metadata[field];
    if (uris === undefined) continue;
    if (!Array.isArray(uris)) continue; // oidc-provider reports the type error itself
    for (const uri of uris) {
      const problem = redirectUriProblem(uri);
      if (problem) {
        const message = `${field}: ${JSON.stringify(uri)} ${problem}`;
        // oidc-provider answers invalid_redirect_uri for a description about redirect_uris.
        throw new errors.InvalidClientMetadata(message);
      }
    }
  }
}

/**
 * A pre-registered client that names no token_endpoint_auth_method gets client_secret_basic
 * when it has a secret, and the profile's default otherwise.
 */
export function withAuthMethodDefault<T extends Record<string, unknown>>(metadata: T, profileDefault: string): T {
  if (metadata.token_endpoint_auth_method !== undefined) return metadata;
  return { ...metadata, token_endpoint_auth_method: metadata.client_secret ? 'client_secret_basic' : profileDefault };
}

/** The client metadata Signet's pages, logos and access gate read. */
export type ClientFields = {
  client_name?: unknown;
  logo_uri?: unknown;
  client_uri?: unknown;
  policy_uri?: unknown;
  tos_uri?: unknown;
  access_conditions?: unknown;
  ens_email?: unknown;
  synthetic_email_domain?: unknown;
  account_namespaces?: unknown;
  account_subject?: unknown;
  passkey_sign_in?: unknown;
};

/**
 * Those fields, read straight off an oidc-provider Client: its metadata() rebuilds the whole
 * metadata object, snake-casing every key, on each call. The Client holds recognised metadata
 * under camelCase names and extra metadata (access_conditions) under its own.
 */
export function clientFields(client: object): ClientFields {
  const c = client as Record<string, unknown>;
  return {
    client_name: c.clientName,
    logo_uri: c.logoUri,
    client_uri: c.clientUri,
    policy_uri: c.policyUri,
    tos_uri: c.tosUri,
    access_conditions: c.access_conditions,
    ens_email: c.ens_email,
    synthetic_email_domain: c.synthetic_email_domain,
    account_namespaces: c.account_namespaces,
    account_subject: c.account_subject,
    passkey_sign_in: c.passkey_sign_in,
  };
}
