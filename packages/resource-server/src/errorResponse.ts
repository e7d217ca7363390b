/**
 * The answer to a refused request: the status, the RFC 6750 §3 challenge and a JSON body. Every
 * challenge names the metadata document (`resource_metadata`, RFC 9728 §5.1: how an MCP client
 * finds the authorization server) and, when the request needs scopes, `scope` (what to ask for);
 * a sent token that failed adds `error` and `error_description`; a missing scope is `403` with
 * `error="insufficient_scope"` and every scope the request needs.
 */
import { ResourceServerError } from './errors.ts';

export type ErrorResponse = {
  status: number;
  headers: Record<string, string>;
  body: { error: string; error_description: string };
};

export type ChallengeContext = {
  /** The metadata document's URL. */
  metadataUrl: string;
  /** The scopes this request needs (the resource's and the route's). */
  scopes: readonly string[];
};

/** A quoted-string's allowed characters (RFC 6750 §3: %x20-21 / %x23-5B / %x5D-7E). */
const quoted = (value: string) => `"${value.replace(/"/g, "'").replace(/[^\x20-\x21\x23-\x5B\x5D-\x7E]/g, ' ')}"`;

export function challenge(error: ResourceServerError, context: ChallengeContext): string {
  const scopes = error.code === 'INSUFFICIENT_SCOPE' ? (error.scopes ?? context.scopes) : context.scopes;
  const parameters = [`resource_metadata=${quoted(context.metadataUrl)}`];
  if (scopes.length > 0) parameters.push(`scope=${quoted(scopes.join(' '))}`);
  if (error.error) parameters.push(`error=${quoted(error.error)}`, `error_description=${quoted(error.message)}`);
  return `Bearer ${parameters.join(', ')}`;
}

export function errorResponse(error: unknown, context: ChallengeContext): ErrorResponse {
  const failure =
    error instanceof ResourceServerError
      ? error
      : new ResourceServerError('ISSUER_UNAVAILABLE', 'the access token could not be checked', { cause: error });
  const headers: Record<string, string> = { 'content-type': 'application/json', 'cache-control': 'no-store' };
  if (failure.status === 400 || failure.status === 401 || failure.status === 403) {
    headers['www-authenticate'] = challenge(failure, context);
  } else {
    headers['retry-after'] = '30';
  }
  return {
    status: failure.status,
    headers,
    body: { error: failure.error ?? 'unauthorized', error_description: failure.message },
  };
}
