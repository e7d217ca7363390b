/**
 * The access token of a request, from its Authorization header as RFC 6750 §2.1 defines it:
 * `Bearer` (any case: RFC 7235 schemes are case-insensitive), one or more spaces, one b64token.
 * Only the header: a token in the URL is refused, never read (URLs end up in logs and histories).
 */
import { ResourceServerError } from './errors.ts';

/** A compact JWS of Signet's size is ~1 KB; anything this long is refused before it is parsed. */
export const MAX_TOKEN_LENGTH = 8192;

export type BearerRequest = {
  /**
   * Every Authorization header value the request carried: one string, an array (Node's
   * `headersDistinct.authorization`), or nothing. Fetch's `Headers` joins repeated headers
   * with ", ", which is refused here as malformed.
   */
  authorization: string | readonly string[] | null | undefined;
  /** The request URL (absolute, or a path with its query): refused when it carries `access_token`. */
  url?: string;
};

const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

function tokenInUrl(url: string | undefined): boolean {
  if (!url) return false;
  const query = url.indexOf('?');
  return query !== -1 && new URLSearchParams(url.slice(query + 1).split('#')[0]).has('access_token');
}

export function readBearerToken(request: BearerRequest): string {
  if (tokenInUrl(request.url)) {
    throw new ResourceServerError(
      'INVALID_REQUEST',
      'access tokens are accepted in the Authorization header only, never in the URL',
    );
  }
  const values =
    request.authorization == null
      ? []
      : typeof request.authorization === 'string'
        ? [request.authorization]
        : request.authorization;
  if (values.length === 0)
    throw new ResourceServerError('MISSING_TOKEN', 'this resource needs an access token (Authorization: Bearer <token>)');
  if (values.length > 1) throw new ResourceServerError('INVALID_REQUEST', 'more than one Authorization header');
  const value = (values[0] as string).trim();
  const space = value.search(/ /);
  const scheme = space === -1 ? value : value.slice(0, space);
  if (scheme.toLowerCase() !== 'bearer') {
    throw new ResourceServerError('UNSUPPORTED_SCHEME', 'this resource accepts Bearer access tokens only');
  }
  const token = space === -1 ? '' : value.slice(space).replace(/^ +/, '');
  if (token === '' || !B64TOKEN.test(token)) {
    const repeated = /,\s*bearer /i.test(token);
    throw new ResourceServerError(
      'INVALID_REQUEST',
      repeated ? 'more than one Authorization header' : 'malformed Authorization header (Bearer, one space, one token)',
    );
  }
  if (token.length > MAX_TOKEN_LENGTH) throw new ResourceServerError('MALFORMED_TOKEN', 'the access token is too long');
  return token;
}
