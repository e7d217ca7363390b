/**
 * OpenID Connect Back-Channel Logout 1.0, as oidc-provider implements it (`features.backchannelLogout`):
 * a client registers `backchannel_logout_uri` (and may set `backchannel_logout_session_required`);
 * when the person signs out at Signet, every client of that session with such a URI is sent a
 * logout token (a signed JWT with `iss`, `aud`, `sub`, `events`, `jti`, and `sid` when asked for)
 * in a form-encoded POST. The POST goes through the provider's `fetch`, so it follows the one
 * outbound rule (outbound.ts): https to a public address, or — with ALLOW_PRIVATE_FETCH, for
 * development — anything, including http on loopback.
 *
 * Here: the rule for the registered URI (checked at registration, the address again at each
 * POST) and a log line per delivery. The logout token's `sub` is the one the client was given
 * (its claims pass through relying-party/subject.ts like an ID token's).
 */
import { isIP } from 'node:net';
import type { Provider } from 'oidc-provider';
import type { Logger } from '../observability/logger.ts';
import { isSpecialUseAddress } from '../outbound/public-fetch.ts';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Why a `backchannel_logout_uri` is refused, or undefined. */
export function backchannelLogoutUriProblem(value: unknown, allowPrivate: boolean): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') return 'backchannel_logout_uri must be a string';
  const url = URL.parse(value);
  if (!url || !/^https?:\/\/[^/?#]/i.test(value)) return 'backchannel_logout_uri must be an absolute https URL';
  if (url.hash || value.includes('#')) return 'backchannel_logout_uri must not contain a fragment';
  if (url.username || url.password) return 'backchannel_logout_uri must not contain credentials';
  const loopback = LOOPBACK.has(url.hostname) || url.hostname.endsWith('.localhost');
  if (allowPrivate) {
    if (url.protocol === 'https:' || loopback) return undefined;
    return 'backchannel_logout_uri must use https (http only on loopback, with ALLOW_PRIVATE_FETCH)';
  }
  if (url.protocol !== 'https:') return 'backchannel_logout_uri must use https';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (loopback || (isIP(host) && isSpecialUseAddress(host))) {
    return 'backchannel_logout_uri must not be a loopback, private or special-use address';
  }
  return undefined;
}

/** One log line per logout token sent (or not: the client's endpoint failed or was refused). */
export function logLogoutTokens(provider: Provider, logger: Logger): void {
  const events = provider as unknown as { on(event: string, listener: (...args: unknown[]) => void): void };
  events.on('backchannel.success', (_ctx, client) => {
    logger.info({ event: 'backchannel_logout', client_id: (client as { clientId: string }).clientId }, 'logout token delivered');
  });
  events.on('backchannel.error', (_ctx, error, client) => {
    logger.warn(
      {
        event: 'backchannel_logout_failed',
        client_id: (client as { clientId: string }).clientId,
        reason: (error as Error).message,
      },
      'logout token not delivered',
    );
  });
}
