/**
 * A resource server for one resource and one issuer: its metadata document, and the checks of
 * the tokens sent to it. Options are checked here, once; the returned object holds no per-request
 * state but the issuer's keys.
 */
import { type ErrorResponse, errorResponse } from './errorResponse.ts';
import { createIssuerKeys } from './issuerKeys.ts';
import { checkScopes, type ResolvedOptions, type ResourceServerOptions, resolveOptions } from './options.ts';
import { metadataLocation, type ProtectedResourceMetadata, protectedResourceMetadata } from './protectedResourceMetadata.ts';
import { type BearerRequest, readBearerToken } from './readBearerToken.ts';
import type { AccessToken } from './types.ts';
import { createVerifiedTokens } from './verifiedTokens.ts';
import { verifyAccessToken } from './verifyAccessToken.ts';

/** What a route asks of a token beyond the resource's own requirements. */
export type RouteRequirements = {
  /** Scopes this route needs, in addition to the resource's `scopes`. */
  scopes?: readonly string[];
};

export type ResourceServer = {
  readonly options: ResolvedOptions;
  readonly issuer: string;
  readonly resource: string;
  /** The RFC 9728 document (serve it as JSON at one of `metadataPaths`). */
  readonly metadata: ProtectedResourceMetadata;
  /** Its URL, as sent in every challenge's `resource_metadata`. */
  readonly metadataUrl: string;
  /** The paths it is served at on the resource's origin: the path-suffixed form first. */
  readonly metadataPaths: readonly string[];
  /** Checks a token (no header parsing); the function a benchmark calls. */
  verifyAccessToken(token: string, requirements?: RouteRequirements): Promise<AccessToken>;
  /** Reads the request's bearer token and checks it. */
  authenticate(request: BearerRequest, requirements?: RouteRequirements): Promise<AccessToken>;
  /** The answer to a failure of `authenticate` (status, WWW-Authenticate, JSON body). */
  errorResponse(error: unknown, requirements?: RouteRequirements): ErrorResponse;
  /**
   * A route's requirements, checked once (INVALID_OPTIONS on a bad scope): adapters call it when
   * they are created, so a mistake stops the start and not the first request.
   */
  route(requirements?: RouteRequirements): RouteRequirements;
  /** Fetches the issuer's discovery document and keys now (at start), instead of at the first request. */
  ready(): Promise<void>;
};

export function createResourceServer(resourceServerOptions: ResourceServerOptions): ResourceServer {
  const options = resolveOptions(resourceServerOptions);
  const keys = createIssuerKeys(options);
  const location = metadataLocation(options.resourceUrl);
  const verified = createVerifiedTokens(options.verifiedTokenCacheSize, keys, options.clockToleranceSeconds);
  const context = { options, keys, verified };
  const needed = (requirements?: RouteRequirements) => [...new Set([...options.scopes, ...(requirements?.scopes ?? [])])];
  return Object.freeze({
    options,
    issuer: options.issuer,
    resource: options.resource,
    metadata: protectedResourceMetadata(options),
    metadataUrl: location.url,
    metadataPaths: location.paths,
    verifyAccessToken: (token: string, requirements?: RouteRequirements) =>
      verifyAccessToken(token, context, requirements?.scopes),
    async authenticate(request: BearerRequest, requirements?: RouteRequirements) {
      return verifyAccessToken(readBearerToken(request), context, requirements?.scopes);
    },
    errorResponse: (error: unknown, requirements?: RouteRequirements) =>
      errorResponse(error, { metadataUrl: location.url, scopes: needed(requirements) }),
    route: (requirements?: RouteRequirements) =>
      Object.freeze({ scopes: checkScopes('requirements.scopes', requirements?.scopes ?? []) }),
    ready: () => keys.refresh(),
  });
}
