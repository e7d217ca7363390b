/**
 * Application C over real HTTP, called by the official MCP SDK's client (Streamable HTTP).
 * Tokens come from the testkit's stand-in issuer (a discovery document and key set over real
 * HTTP, tokens signed with jose): it stands in for Signet until the provider issues resource
 * tokens; e2e/mcp.test.ts runs the whole sign-in against the real provider.
 */
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type StandInIssuer, startStandInIssuer } from '@signet/testkit/issuer';
import { freePort } from '@signet/testkit/ports';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMcpServer, identityOf, loadMcpServerConfig } from '../src/index.ts';

let issuer: StandInIssuer;
let server: Server;
let url: string;
let resource: string;

beforeAll(async () => {
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  issuer = await startStandInIssuer({ audience: resource });
  const config = loadMcpServerConfig({ ISSUER: issuer.issuer, PORT: String(port), PUBLIC_URL: resource });
  const { app } = buildMcpServer(config);
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => resolve()) as Server;
  });
  url = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server?.close();
  await issuer?.stop();
});

async function connect(token: string) {
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(resource), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return client;
}

const metadataUrl = () => `${url}/.well-known/oauth-protected-resource/mcp`;

describe('application C', () => {
  it('publishes its RFC 9728 document: itself as the resource, Signet as the authorization server', async () => {
    const response = await fetch(metadataUrl());
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      resource,
      authorization_servers: [issuer.issuer],
      bearer_methods_supported: ['header'],
      scopes_supported: ['openid', 'profile'],
      resource_name: 'Signet example MCP server (application C)',
    });
  });

  it('answers an MCP request without a token with 401 and the challenge an MCP client follows', async () => {
    const response = await fetch(resource, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl()}"`);
    // Readable by a browser-based client on another origin.
    const preflight = await fetch(resource, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:6274',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');
  });

  it('the SDK client with a token lists whoami and calls it: the sub, the wallet and the ENS name from the token', async () => {
    const client = await connect(await issuer.sign({ preferred_username: 'alice.eth' }));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['whoami']);
    const result = await client.callTool({ name: 'whoami' });
    const sub = 'eip155:1:0x00000000000000000000000000000000000000a1';
    expect(result.structuredContent).toEqual({ sub, wallet: sub, ens_name: 'alice.eth' });
    expect(result.isError).toBeFalsy();
    await client.close();
  });

  it('refuses a token minted for another resource: the SDK client cannot connect, and the answer says why', async () => {
    const other = await issuer.sign({ aud: `${url}/another-mcp` });
    await expect(connect(other)).rejects.toThrow();
    const response = await fetch(resource, { method: 'POST', headers: { authorization: `Bearer ${other}` } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${metadataUrl()}", error="invalid_token", error_description="the access token is for another resource (its aud does not name this one)"`,
    );
  });

  it('refuses expired and tampered tokens with invalid_token', async () => {
    const expired = await issuer.sign({ exp: Math.floor(Date.now() / 1000) - 120 });
    const valid = await issuer.sign();
    const [header, payload, signature] = valid.split('.') as [string, string, string];
    const tampered = `${header}.${payload}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    for (const [token, words] of [
      [expired, 'the access token has expired'],
      [tampered, 'the access token signature is invalid'],
    ]) {
      const response = await fetch(resource, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain(`error="invalid_token", error_description="${words}"`);
    }
  });

  it('is stateless: GET and DELETE on the endpoint are 405 with a token, 401 without', async () => {
    const token = await issuer.sign();
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(resource, {
        method,
        headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      });
      expect([method, response.status, response.headers.get('allow')]).toEqual([method, 405, 'POST']);
      expect((await fetch(resource, { method })).status).toBe(401);
    }
  });

  it('answers /health and unknown routes', async () => {
    expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: 'ok' });
    const missing = await fetch(`${url}/nothing`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: 'not_found' });
  });
});

describe('whoami reads the identity from the claims', () => {
  it('an account client: the wallet claim; a pairwise subject: no wallet; an address is not a name', () => {
    expect(identityOf({ sub: 'acct_1', wallet: 'eip155:0:0xabc', preferred_username: 'bob.eth' })).toEqual({
      sub: 'acct_1',
      wallet: 'eip155:0:0xabc',
      ens_name: 'bob.eth',
    });
    expect(identityOf({ sub: 'Zm9vYmFy-pairwise', preferred_username: 'carol.eth' })).toEqual({
      sub: 'Zm9vYmFy-pairwise',
      wallet: null,
      ens_name: 'carol.eth',
    });
    const address = '0x00000000000000000000000000000000000000a1';
    expect(identityOf({ sub: `eip155:1:${address}`, preferred_username: address }).ens_name).toBeNull();
  });
});

describe('settings', () => {
  it('default to the provider npm start runs and the endpoint /mcp on port 3004', () => {
    expect(loadMcpServerConfig({})).toEqual({
      port: 3004,
      host: '127.0.0.1',
      issuer: 'http://localhost:3000',
      publicUrl: 'http://localhost:3004/mcp',
      mcpPath: '/mcp',
    });
  });

  it('keep the issuer and the public URL exactly as written (they are compared as strings)', () => {
    const config = loadMcpServerConfig({ ISSUER: 'https://id.example.com/', PUBLIC_URL: 'https://mcp.example.com/tools/mcp' });
    expect(config).toMatchObject({
      issuer: 'https://id.example.com/',
      publicUrl: 'https://mcp.example.com/tools/mcp',
      mcpPath: '/tools/mcp',
    });
  });

  it.each([
    [{ ISSUER: 'id.example.com' }, /^ISSUER: must be an absolute http\(s\) URL/],
    [{ ISSUER: 'http://id.example.com' }, /^ISSUER: must be an https URL/],
    [{ PUBLIC_URL: 'https://mcp.example.com/mcp#top' }, /^PUBLIC_URL: must have no query and no fragment/],
    [{ PUBLIC_URL: 'http://mcp.example.com/mcp' }, /^PUBLIC_URL: must be an https URL/],
    [{ PORT: '70000' }, /^PORT: must be a whole number from 1 to 65535/],
  ])('refuse %o', (env, message) => {
    expect(() => loadMcpServerConfig(env)).toThrow(message);
  });
});
