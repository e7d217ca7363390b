/**
 * Which resources (RFC 8707) a client may ask tokens for, as RESOURCE_INDICATORS says: exact URLs,
 * prefixes ending in `/`, and `*` (any `https://` URL, and `http://` on a loopback host, for a
 * resource server on the developer's own machine). Whatever the list, a resource is an absolute
 * URL without a fragment, credentials or dot segments (`/./`, `/../`): the audience a token names is
 * exactly the string asked for, and a resource server compares it as a string.
 */
import type { ResourcePolicy } from '../config.ts';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

const hasDotSegment = (value: string) => {
  const afterScheme = value.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
  const path = afterScheme.split(/[?#]/, 1)[0] ?? '';
  return path.split('/').some((segment) => /^(\.|%2e){1,2}$/i.test(segment));
};

/** Why `resource` may not be asked for, or undefined when it may. */
export function resourceProblem(policy: ResourcePolicy, resource: string): string | undefined {
  const url = URL.parse(resource);
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) return 'is not an absolute http(s) URL';
  if (resource.includes('#')) return 'has a fragment';
  if (url.username || url.password) return 'has credentials';
  if (hasDotSegment(resource)) return 'has a dot segment (/./ or /../)';
  if (policy.exact.includes(resource) || policy.prefixes.some((prefix) => resource.startsWith(prefix))) return undefined;
  if (policy.any && (url.protocol === 'https:' || LOOPBACK.has(url.hostname))) return undefined;
  if (!policy.any && policy.exact.length === 0 && policy.prefixes.length === 0) {
    return 'cannot be asked for: this provider issues tokens for no resource (RESOURCE_INDICATORS)';
  }
  return 'is not a resource this provider issues tokens for (RESOURCE_INDICATORS)';
}

/** Whether any resource may be asked for at all (then access tokens may be JWTs). */
export const issuesJwtAccessTokens = (policy: ResourcePolicy) =>
  policy.any || policy.exact.length > 0 || policy.prefixes.length > 0;
