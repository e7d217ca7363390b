/**
 * What a person is told about a client identified by its metadata document: who is asking is
 * the host of its `client_id` URL (the one thing the provider knows for sure: that host served
 * the document); its name, logo and links are what the document says of itself. A document whose
 * every redirect URI is a loopback one belongs to a program on the person's own computer.
 */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export type DocumentView = {
  /** host[:port] of the client_id URL. */
  host: string;
  /** Every redirect URI is on a loopback host (http://127.0.0.1:…, http://localhost:…, http://[::1]:…). */
  loopbackOnly: boolean;
};

const isLoopback = (uri: unknown) => {
  const host = typeof uri === 'string' ? URL.parse(uri)?.hostname : undefined;
  return host !== undefined && (LOOPBACK_HOSTS.has(host) || host.endsWith('.localhost'));
};

/** The view of an oidc-provider client made from a document; undefined for any other client. */
export function documentView(client: object): DocumentView | undefined {
  const c = client as { clientIdMetadataDocument?: boolean; clientId?: string; redirectUris?: unknown[] };
  if (c.clientIdMetadataDocument !== true || typeof c.clientId !== 'string') return undefined;
  const host = URL.parse(c.clientId)?.host;
  if (host === undefined) return undefined;
  const uris = c.redirectUris ?? [];
  return { host, loopbackOnly: uris.length > 0 && uris.every(isLoopback) };
}
