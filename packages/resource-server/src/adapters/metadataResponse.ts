/**
 * How both adapters answer at the metadata paths: the document as JSON to GET and HEAD, readable
 * by any origin (it is public, and browser-based MCP clients fetch it), cached five minutes.
 */
import type { ResourceServer } from '../createResourceServer.ts';

export type PlainResponse = { status: number; headers: Record<string, string>; body: string | null };

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  'access-control-allow-headers': 'mcp-protocol-version',
};

/** The answer for a request at `path`, or undefined when `path` is not a metadata path. */
export function metadataResponse(server: ResourceServer, method: string, path: string): PlainResponse | undefined {
  if (!server.metadataPaths.includes(path)) return undefined;
  if (method === 'OPTIONS') return { status: 204, headers: { ...CORS, 'access-control-max-age': '86400' }, body: null };
  if (method !== 'GET' && method !== 'HEAD') {
    return {
      status: 405,
      headers: { allow: 'GET, HEAD, OPTIONS', 'content-type': 'application/json' },
      body: JSON.stringify({ error: 'invalid_request', error_description: 'the metadata document answers GET only' }),
    };
  }
  return {
    status: 200,
    headers: { ...CORS, 'content-type': 'application/json', 'cache-control': 'public, max-age=300' },
    body: method === 'HEAD' ? null : JSON.stringify(server.metadata),
  };
}
