/**
 * The adapters over real HTTP, each in the server it is made for: Hono (served by
 * @hono/node-server), Node's own http server, and Express 5. Tokens come from the testkit's
 * stand-in issuer over real HTTP (it stands in for Signet: these tests need tokens for other
 * resources and expired ones).
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { type StandInIssuer, startStandInIssuer } from '@signet/testkit/issuer';
import express from 'express';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as honoAdapter from '../src/adapters/hono.ts';
import * as nodeAdapter from '../src/adapters/node.ts';
import { createResourceServer } from '../src/index.ts';

let issuer: StandInIssuer;
const servers: { close(): unknown }[] = [];

async function listen(make: (resource: string) => Server | ((port: number) => { close(): unknown })) {
  // The resource names its own port: reserve one, then build the app for it.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  const made = make(`http://127.0.0.1:${port}/mcp`);
  if (typeof made === 'function') servers.push(made(port));
  else {
    await new Promise<void>((resolve) => made.listen(port, '127.0.0.1', resolve));
    servers.push(made);
  }
  return `http://127.0.0.1:${port}`;
}

const resourceServer = (resource: string) =>
  createResourceServer({ issuer: issuer.issuer, resource, scopes: ['mcp'], scopesSupported: ['mcp', 'openid'] });

/** A raw request with several Authorization header lines (fetch would join them into one). */
function withTwoAuthorizationHeaders(url: string, token: string): Promise<{ status: number; challenge: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', headers: { authorization: [`Bearer ${token}`, `Bearer ${token}`] } },
      (res) => {
        res.resume();
        resolve({ status: res.statusCode as number, challenge: String(res.headers['www-authenticate']) });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const apps: Record<string, (resource: string) => Server | ((port: number) => { close(): unknown })> = {
  hono: (resource) => {
    const rs = resourceServer(resource);
    const app = new Hono<honoAdapter.ResourceServerEnv>();
    app.use(honoAdapter.metadataHandler(rs));
    app.use('/mcp', honoAdapter.requireBearer(rs));
    app.use('/mcp/admin', honoAdapter.requireBearer(rs, { scopes: ['admin'] }));
    app.post('/mcp', (c) => c.json({ sub: c.get('accessToken').subject }));
    app.post('/mcp/admin', (c) => c.json({ sub: c.get('accessToken').subject }));
    return (port) => serve({ fetch: app.fetch, port, hostname: '127.0.0.1' });
  },
  'node http': (resource) => {
    const rs = resourceServer(resource);
    const metadata = nodeAdapter.metadataHandler(rs);
    const bearer = nodeAdapter.requireBearer(rs);
    const admin = nodeAdapter.requireBearer(rs, { scopes: ['admin'] });
    return createServer(async (req, res) => {
      if (metadata(req, res)) return;
      const token = await (req.url?.startsWith('/mcp/admin') ? admin : bearer)(req, res);
      if (!token) return;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ sub: token.subject }));
    });
  },
  express: (resource) => {
    const rs = resourceServer(resource);
    const app = express();
    app.use(nodeAdapter.metadataHandler(rs));
    app.use('/mcp/admin', nodeAdapter.requireBearer(rs, { scopes: ['admin'] }));
    app.use('/mcp', nodeAdapter.requireBearer(rs));
    app.post(['/mcp', '/mcp/admin'], (req, res) => {
      res.json({ sub: (req as nodeAdapter.AuthenticatedRequest).auth?.subject });
    });
    return createServer(app);
  },
};

beforeAll(async () => {
  issuer = await startStandInIssuer({ audience: 'unused' });
});
afterAll(async () => {
  for (const server of servers) server.close();
  await issuer?.stop();
});

describe.each(Object.keys(apps))('the %s adapter', (name) => {
  let url: string;
  const resource = () => `${url}/mcp`;
  const metadataUrl = () => `${url}/.well-known/oauth-protected-resource/mcp`;
  const post = (path: string, token?: string) =>
    fetch(`${url}${path}`, { method: 'POST', headers: token ? { authorization: `Bearer ${token}` } : {} });

  beforeAll(async () => {
    url = await listen(apps[name] as (typeof apps)[string]);
  });

  it('serves the metadata document at the path-suffixed URL and the bare one, readable from any origin', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const response = await fetch(`${url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(await response.json()).toEqual({
        resource: resource(),
        authorization_servers: [issuer.issuer],
        bearer_methods_supported: ['header'],
        scopes_supported: ['mcp', 'openid'],
      });
    }
    expect((await fetch(metadataUrl(), { method: 'POST' })).status).toBe(405);
  });

  it('no token: 401 with resource_metadata and the scope to ask for', async () => {
    const response = await post('/mcp');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl()}", scope="mcp"`);
    expect(await response.json()).toMatchObject({ error: 'unauthorized' });
  });

  it('a valid token passes, the verified token reaches the handler', async () => {
    const response = await post('/mcp', await issuer.sign({ aud: resource(), scope: 'mcp' }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ sub: 'eip155:1:0x00000000000000000000000000000000000000a1' });
  });

  it('a token for another resource: 401 invalid_token', async () => {
    const response = await post('/mcp', await issuer.sign({ aud: `${url}/other`, scope: 'mcp' }));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(
      new RegExp(
        `^Bearer resource_metadata="${metadataUrl()}", scope="mcp", error="invalid_token", error_description="[^"]*another resource`,
      ),
    );
    expect(await response.json()).toMatchObject({ error: 'invalid_token' });
  });

  it('an expired token: 401 invalid_token saying so', async () => {
    const response = await post(
      '/mcp',
      await issuer.sign({ aud: resource(), scope: 'mcp', exp: Math.floor(Date.now() / 1000) - 60 }),
    );
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain(
      'error="invalid_token", error_description="the access token has expired"',
    );
  });

  it("a route's extra scope: 403 insufficient_scope naming every scope it needs", async () => {
    const response = await post('/mcp/admin', await issuer.sign({ aud: resource(), scope: 'mcp' }));
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${metadataUrl()}", scope="mcp admin", error="insufficient_scope", error_description="this request needs the scope mcp admin"`,
    );
  });

  it('two Authorization header lines: 400 invalid_request; lowercase bearer: accepted', async () => {
    const token = await issuer.sign({ aud: resource(), scope: 'mcp' });
    const twice = await withTwoAuthorizationHeaders(`${url}/mcp`, token);
    expect(twice.status).toBe(400);
    expect(twice.challenge).toContain('error="invalid_request", error_description="more than one Authorization header"');
    const lower = await fetch(`${url}/mcp`, { method: 'POST', headers: { authorization: `bearer ${token}` } });
    expect(lower.status).toBe(200);
  });

  it('a token in the query string: 400, never read from there', async () => {
    const token = await issuer.sign({ aud: resource(), scope: 'mcp' });
    const response = await fetch(`${url}/mcp?access_token=${token}`, { method: 'POST' });
    expect(response.status).toBe(400);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_request"');
  });
});
