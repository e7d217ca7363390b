/**
 * `@signet/resource-server/node`: the metadata document and bearer checks for Node's `http`
 * server and for Express (whose middleware has the same `(req, res, next)` shape).
 *
 *   // Express
 *   app.use(metadataHandler(resourceServer));
 *   app.use('/mcp', requireBearer(resourceServer)); // req.auth: the verified AccessToken
 *
 *   // node:http
 *   if (metadataHandler(resourceServer)(req, res)) return;
 *   const token = await requireBearer(resourceServer)(req, res); // undefined: answered already
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResourceServer, RouteRequirements } from '../createResourceServer.ts';
import type { AccessToken } from '../types.ts';
import { metadataResponse } from './metadataResponse.ts';

/** The request after requireBearer: `auth` is what the MCP SDK's Node transport reads as AuthInfo. */
export type AuthenticatedRequest = IncomingMessage & { auth?: AccessToken };

type Next = (error?: unknown) => void;

const pathOf = (url: string | undefined) => (url ?? '/').split('?')[0] as string;

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: string | null) {
  if (res.headersSent) return;
  res.writeHead(status, headers).end(body ?? undefined);
}

/**
 * Answers at the metadata paths and returns true; otherwise calls `next` (when given) and
 * returns false.
 */
export function metadataHandler(server: ResourceServer) {
  return (req: IncomingMessage, res: ServerResponse, next?: Next): boolean => {
    const answer = metadataResponse(server, req.method ?? 'GET', pathOf(req.url));
    if (!answer) {
      next?.();
      return false;
    }
    send(res, answer.status, answer.headers, answer.body);
    return true;
  };
}

/**
 * Checks the request's bearer token (and the route's scopes). Valid: sets `req.auth`, calls
 * `next` (when given) and resolves the token. Otherwise answers 401, 403, 400 or 503 with the
 * challenge and resolves undefined. Never rejects. CORS preflights (OPTIONS) pass through.
 */
export function requireBearer(server: ResourceServer, requirements?: RouteRequirements) {
  const route = server.route(requirements);
  return async (req: AuthenticatedRequest, res: ServerResponse, next?: Next): Promise<AccessToken | undefined> => {
    if (req.method === 'OPTIONS') {
      next?.();
      return undefined;
    }
    let token: AccessToken;
    try {
      // headersDistinct keeps every Authorization header; headers.authorization would keep only the first.
      const authorization = req.headersDistinct?.authorization ?? req.headers.authorization;
      token = await server.authenticate({ authorization, url: req.url }, route);
    } catch (error) {
      const answer = server.errorResponse(error, route);
      send(res, answer.status, answer.headers, JSON.stringify(answer.body));
      return undefined;
    }
    req.auth = token;
    next?.();
    return token;
  };
}
