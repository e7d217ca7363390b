/**
 * Where the issuer publishes its keys: its discovery document, OpenID Connect Discovery first
 * (`<issuer>/.well-known/openid-configuration`, what Signet always serves), then RFC 8414
 * (`/.well-known/oauth-authorization-server<path>`). The document must name exactly the issuer
 * it was fetched for (OpenID Discovery §4.3, RFC 8414 §3.3), or a look-alike could hand out keys.
 */
import { ResourceServerError } from './errors.ts';
import { type FetchJsonOptions, fetchJson } from './fetchJson.ts';
import { checkUrl } from './options.ts';

export type IssuerMetadata = { issuer: string; jwks_uri: string };

export function discoveryUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, '');
  return [`${url.origin}${path}/.well-known/openid-configuration`, `${url.origin}/.well-known/oauth-authorization-server${path}`];
}

function checkMetadata(document: unknown, issuer: string): IssuerMetadata {
  const fields = (typeof document === 'object' && document !== null ? document : {}) as Record<string, unknown>;
  if (fields.issuer !== issuer) {
    throw new ResourceServerError(
      'INVALID_ISSUER_METADATA',
      'the discovery document names another issuer than the one configured (they must be identical strings)',
    );
  }
  try {
    checkUrl('jwks_uri', fields.jwks_uri);
  } catch (cause) {
    throw new ResourceServerError(
      'INVALID_ISSUER_METADATA',
      `the discovery document's jwks_uri is unusable: ${(cause as Error).message}`,
      {
        cause,
      },
    );
  }
  return { issuer, jwks_uri: fields.jwks_uri as string };
}

export async function discoverIssuer(issuer: string, options: Omit<FetchJsonOptions, 'what'>): Promise<IssuerMetadata> {
  let unavailable: ResourceServerError | undefined;
  for (const url of discoveryUrls(issuer)) {
    let document: unknown;
    try {
      document = await fetchJson(url, { ...options, what: 'discovery document' });
    } catch (error) {
      if (error instanceof ResourceServerError && error.code === 'ISSUER_UNAVAILABLE') {
        unavailable ??= error;
        continue;
      }
      throw error;
    }
    return checkMetadata(document, issuer);
  }
  throw unavailable as ResourceServerError;
}
