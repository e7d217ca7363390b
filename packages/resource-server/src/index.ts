/**
 * @signet/resource-server: accept Signet's access tokens in an MCP server or any API. The RFC 9728
 * metadata document, bearer checks against the issuer's keys (RFC 9068), and the challenges MCP
 * clients follow. Adapters: `@signet/resource-server/hono`, `@signet/resource-server/node`.
 */
export {
  createResourceServer,
  type ResourceServer,
  type RouteRequirements,
} from './createResourceServer.ts';
export { type ChallengeContext, challenge, type ErrorResponse } from './errorResponse.ts';
export {
  isResourceServerError,
  RESOURCE_SERVER_ERROR_CODES,
  RESOURCE_SERVER_ERRORS,
  ResourceServerError,
  type ResourceServerErrorCode,
} from './errors.ts';
export { MAX_DOCUMENT_BYTES } from './fetchJson.ts';
export {
  type AccessTokenAlgorithm,
  ASYMMETRIC_ALGORITHMS,
  type ResolvedOptions,
  type ResourceServerOptions,
} from './options.ts';
export { type ProtectedResourceMetadata, WELL_KNOWN_PATH } from './protectedResourceMetadata.ts';
export { type BearerRequest, MAX_TOKEN_LENGTH, readBearerToken } from './readBearerToken.ts';
export type { AccessToken, AccessTokenClaims } from './types.ts';
export { requireScopes } from './verifyAccessToken.ts';
