import type { SessionAppConfig } from './config.ts';

const LOOPBACK_HOST = /^(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/i;

/**
 * The domain a message must name: EXPECTED_DOMAIN; without it, the Host header only when it is
 * a loopback host (development on any port), else `localhost:<PORT>`. A Host the client sets
 * to anything else never becomes the expected domain (a signature made for evil.example, sent
 * with Host: evil.example, is refused).
 */
export const expectedDomain = (config: Pick<SessionAppConfig, 'expectedDomain' | 'port'>, host: string | undefined) =>
  config.expectedDomain ?? (host && LOOPBACK_HOST.test(host) ? host.toLowerCase() : `localhost:${config.port}`);

/**
 * The origin the message's URI must have: https on the expected domain; on a loopback domain
 * (development) http too. A message whose URI names another site is refused (URI_MISMATCH),
 * even when its domain line is this one's.
 */
export const expectedOrigin = (domain: string, uri: string) =>
  LOOPBACK_HOST.test(domain) && URL.parse(uri)?.protocol === 'http:' ? `http://${domain}` : `https://${domain}`;
