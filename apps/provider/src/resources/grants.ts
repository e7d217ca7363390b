/**
 * A sign-in's grant covers the resources its authorization request named (RFC 8707): the
 * signature is the consent, for them too, with the scopes the person signed for (those a
 * resource's tokens may carry: feature.ts). Without this, oidc-provider would find the
 * resources' scopes not granted and ask again.
 */
type Grant = { addResourceScope(resource: string, scope: string): void };

export function grantRequestedResources(grant: Grant, requested: unknown, scopes: readonly string[]): void {
  const resources = Array.isArray(requested) ? requested : requested === undefined ? [] : [requested];
  const scope = scopes.filter((value) => value !== 'offline_access').join(' ');
  for (const resource of resources) if (typeof resource === 'string') grant.addResourceScope(resource, scope);
}
