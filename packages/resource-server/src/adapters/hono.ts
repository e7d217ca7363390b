/**
 * `@signet/resource-server/hono`: the metadata document and bearer checks as Hono middleware.
 *
 *   app.use(metadataHandler(resourceServer));
 *   app.use('/mcp', requireBearer(resourceServer));
 *   app.post('/mcp', (c) => c.json({ sub: c.get('accessToken').subject }));
 */
import type { MiddlewareHandler } from 'hono';
import type { ResourceServer, RouteRequirements } from '../createResourceServer.ts';
import type { AccessToken } from '../types.ts';
import { metadataResponse } from './metadataResponse.ts';

/** The variables requireBearer sets: `c.get('accessToken')`. */
export type ResourceServerEnv = { Variables: { accessToken: AccessToken } };

/** Answers at the metadata paths; passes every other request on. */
export function metadataHandler(server: ResourceServer): MiddlewareHandler {
  return async (c, next) => {
    const answer = metadataResponse(server, c.req.method, c.req.path);
    if (!answer) return next();
    return answer.body === null
      ? c.body(null, answer.status as 204, answer.headers)
      : c.body(answer.body, answer.status as 200, answer.headers);
  };
}

/**
 * Lets a request through only with a valid token (and the route's scopes); sets
 * `c.get('accessToken')`. Otherwise answers 401, 403, 400 or 503 with the challenge. CORS
 * preflights (OPTIONS) carry no token and pass through to the app's CORS handling.
 */
export function requireBearer(server: ResourceServer, requirements?: RouteRequirements): MiddlewareHandler<ResourceServerEnv> {
  const route = server.route(requirements);
  return async (c, next) => {
    if (c.req.method === 'OPTIONS') return next();
    try {
      c.set('accessToken', await server.authenticate({ authorization: c.req.header('authorization'), url: c.req.url }, route));
    } catch (error) {
      const answer = server.errorResponse(error, route);
      return c.json(answer.body, answer.status as 401, answer.headers);
    }
    await next();
  };
}
