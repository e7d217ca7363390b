/**
 * One rule for scope values a profile does not support, applied the same way wherever a client
 * names scopes: in its registered `scope` metadata (RFC 7591 §3.2.1 lets the server replace what
 * was asked with what it will grant), in an authorization request and in a refresh request. Such
 * values are dropped, silently, everywhere. A value the profile supports but the grant does not
 * hold is another matter: at refresh it is still refused (`invalid_scope`, RFC 6749 §6), by
 * oidc-provider.
 */
import type { Config } from '../config.ts';
import { profileFor } from '../deployment/profiles.ts';

const supportedByConfig = new WeakMap<object, ReadonlySet<string>>();

/** The scope values this configuration supports (its profile's, and `email` when EMAIL_SCOPE is on). */
export function scopesSupportedBy(config: Pick<Config, 'profile' | 'emailScope'>): ReadonlySet<string> {
  let supported = supportedByConfig.get(config);
  if (!supported) {
    // What is advertised does not change what works.
    supported = new Set(profileFor({ ...config, advertiseWalletsScope: true }).scopes);
    supportedByConfig.set(config, supported);
  }
  return supported;
}

/** The supported values of a space-separated scope string, each once, in order; undefined when none is left. */
export function supportedScope(scope: unknown, supported: ReadonlySet<string>): string | undefined {
  if (typeof scope !== 'string') return undefined;
  const kept = [...new Set(scope.split(' ').filter((value) => supported.has(value)))];
  return kept.length > 0 ? kept.join(' ') : undefined;
}
