/**
 * The reference client (apps/client, built on openid-client) for browser tests: in this process,
 * over real HTTP on 127.0.0.1 (the test provider is on localhost: two sites, two cookie jars).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import { buildClientApp, loadClientConfig } from '@signet/client';
import * as oidc from 'openid-client';

/** An HTTP server on a free loopback port. */
export async function listen(handler?: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/**
 * The reference client of `issuer`, registering itself on first use, with its data in
 * `artifacts`; `settings(url)` adds to its settings (CLIENT_NAME, SCOPE, LOGO_URI, …).
 */
export async function startReferenceClient(
  issuer: string,
  artifacts: string,
  settings: (url: string) => Record<string, string> = () => ({}),
): Promise<{ server: Server; url: string }> {
  const client = await listen();
  const config = loadClientConfig({
    SESSION_SECRET: 'a-session-secret-of-more-than-32-characters!',
    ISSUER: issuer,
    REDIRECT_URI: `${client.url}/api/auth/callback`,
    CLIENT_URI: client.url,
    DATA_DIR: join(artifacts, `client-${Date.now()}-${Math.random().toString(36).slice(2)}`),
    ...settings(client.url),
  });
  const { app } = buildClientApp(config, { execute: [oidc.allowInsecureRequests] });
  client.server.on('request', getRequestListener(app.fetch));
  return client;
}
