/**
 * Application C: an MCP server over Streamable HTTP (the official SDK, stateless: one server and
 * transport per request), protected by @signet/resource-server. Every request to the endpoint
 * needs a Signet access token for this server; the metadata document tells MCP clients where to
 * get one. Routes and answers are in the README.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { createResourceServer, type ResourceServer, type ResourceServerOptions } from '@signet/resource-server';
import { metadataHandler, type ResourceServerEnv, requireBearer } from '@signet/resource-server/hono';
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import type { McpServerConfig } from './config.ts';
import { registerWhoami } from './whoami.ts';

export const SERVER_INFO = { name: 'signet-example-mcp-server', version: '0.1.0' } as const;

/** What MCP clients ask Signet for (the metadata's scopes_supported): a sign-in and the name. */
export const SCOPES_SUPPORTED = ['openid', 'profile'] as const;

export type McpServerOptions = {
  /** The resource server to use (tests pass one with their own clock or fetch). */
  resourceServer?: ResourceServer;
};

/** The resource server application C uses; `options` adds to it (tests: a clock of their own). */
export function createResourceServerFor(config: McpServerConfig, options: Partial<ResourceServerOptions> = {}): ResourceServer {
  return createResourceServer({
    issuer: config.issuer,
    resource: config.publicUrl,
    scopesSupported: [...SCOPES_SUPPORTED],
    resourceName: 'Signet example MCP server (application C)',
    ...options,
  });
}

/** The MCP server behind one request: its tools. */
export function createMcp(): McpServer {
  const server = new McpServer(SERVER_INFO);
  registerWhoami(server);
  return server;
}

export function buildMcpServer(config: McpServerConfig, options: McpServerOptions = {}) {
  const resourceServer = options.resourceServer ?? createResourceServerFor(config);
  const app = new Hono<ResourceServerEnv>();
  // Tokens travel in a header, never in cookies: any origin may call (browser-based MCP clients),
  // and may read the challenge that tells them where to sign in.
  app.use(
    '*',
    cors({
      origin: '*',
      allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
      allowHeaders: ['authorization', 'content-type', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id'],
      exposeHeaders: ['www-authenticate', 'mcp-session-id', 'mcp-protocol-version'],
    }),
  );
  app.use(metadataHandler(resourceServer));
  app.get('/health', (c) => c.json({ status: 'ok' }));
  app.use(config.mcpPath, requireBearer(resourceServer));
  app.post(config.mcpPath, async (c) => {
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
    await createMcp().connect(transport);
    return transport.handleRequest(c.req.raw, { authInfo: c.get('accessToken') });
  });
  // Stateless: no stream to open with GET, no session to end with DELETE (MCP's answer for both is 405).
  app.on(['GET', 'DELETE'], config.mcpPath, (c) =>
    c.json(
      { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this server is stateless (POST only).' }, id: null },
      405,
      {
        allow: 'POST',
      },
    ),
  );
  app.notFound((c) => c.json({ error: 'not_found', error_description: `no route ${c.req.method} ${c.req.path}` }, 404));
  return { app, resourceServer };
}
