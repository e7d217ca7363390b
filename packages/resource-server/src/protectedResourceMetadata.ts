/**
 * The RFC 9728 protected resource metadata document: which authorization server issues tokens
 * for this resource, how to send them, which scopes to ask for. MCP clients read it first (the
 * URL comes in every 401's WWW-Authenticate) to find Signet.
 */
import type { ResolvedOptions } from './options.ts';

export type ProtectedResourceMetadata = Readonly<{
  resource: string;
  authorization_servers: readonly string[];
  bearer_methods_supported: readonly ['header'];
  scopes_supported?: readonly string[];
  resource_name?: string;
  resource_documentation?: string;
}>;

export const WELL_KNOWN_PATH = '/.well-known/oauth-protected-resource';

/**
 * Where the document is served (RFC 9728 §3.1): the well-known path inserted between the host and
 * the resource's path (`https://mcp.example.com/mcp` → `/.well-known/oauth-protected-resource/mcp`),
 * the path form first. A resource with a path is also answered at the bare well-known path, for
 * clients that only look there (the document names the resource, so they still ask for the right one).
 */
export function metadataLocation(resourceUrl: URL): { url: string; paths: readonly string[] } {
  const path = resourceUrl.pathname === '/' ? '' : resourceUrl.pathname.replace(/\/$/, '');
  const url = new URL(`${WELL_KNOWN_PATH}${path}${resourceUrl.search}`, resourceUrl.origin).href;
  const paths = path === '' ? [WELL_KNOWN_PATH] : [`${WELL_KNOWN_PATH}${path}`, WELL_KNOWN_PATH];
  return { url, paths: Object.freeze(paths) };
}

export function protectedResourceMetadata(options: ResolvedOptions): ProtectedResourceMetadata {
  return Object.freeze({
    resource: options.resource,
    authorization_servers: Object.freeze([options.issuer]),
    bearer_methods_supported: Object.freeze(['header'] as const),
    ...(options.scopesSupported.length > 0 ? { scopes_supported: options.scopesSupported } : {}),
    ...(options.resourceName ? { resource_name: options.resourceName } : {}),
    ...(options.resourceDocumentation ? { resource_documentation: options.resourceDocumentation } : {}),
  });
}
