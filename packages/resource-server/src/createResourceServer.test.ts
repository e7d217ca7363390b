import { describe, expect, it } from 'vitest';
import { createResourceServer } from './createResourceServer.ts';
import { ResourceServerError } from './errors.ts';
import type { ResourceServerOptions } from './options.ts';

const base: ResourceServerOptions = { issuer: 'https://id.example.com', resource: 'https://mcp.example.com/mcp' };

describe('options, checked once at creation', () => {
  const refused: [Partial<ResourceServerOptions> | Record<string, unknown>, RegExp][] = [
    [{ issuer: 'id.example.com' }, /^issuer: must be an absolute URL/],
    [{ issuer: 'http://id.example.com' }, /^issuer: must be an https URL/],
    [{ issuer: 'https://id.example.com?tenant=1' }, /^issuer: must not have a query/],
    [{ resource: 'https://mcp.example.com/mcp#x' }, /^resource: must not have a fragment/],
    [{ resource: 'https://user:pw@mcp.example.com/mcp' }, /^resource: must not carry a user/],
    [{ resource: undefined }, /^resource: must be a URL/],
    [{ scopes: ['a b'] }, /^scopes: "a b" is not a scope token/],
    [{ scopes: ['mcp', 'mcp'] }, /^scopes: names a scope twice/],
    [{ scopesSupported: ['offline_access'] }, /^scopesSupported: offline_access is not something a resource needs/],
    [{ algorithms: ['HS256'] } as Record<string, unknown>, /^algorithms: "HS256" is not allowed: only asymmetric/],
    [{ algorithms: ['none'] } as Record<string, unknown>, /^algorithms: "none" is not allowed/],
    [{ algorithms: [] }, /^algorithms: must be a non-empty array/],
    [{ clockToleranceSeconds: 3600 }, /^clockToleranceSeconds: must be a number from 0 to 300/],
    [{ timeoutMs: 0 }, /^timeoutMs: must be a number from 1 to 60000/],
    [{ fetch: 'fetch' } as Record<string, unknown>, /^fetch: must be a function/],
    [{ resourceDocumentation: 'docs' }, /^resourceDocumentation: must be an absolute URL/],
  ];
  it.each(refused)('refuses %o', (change, message) => {
    let thrown: unknown;
    try {
      createResourceServer({ ...base, ...change } as ResourceServerOptions);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ResourceServerError);
    expect((thrown as ResourceServerError).code).toBe('INVALID_OPTIONS');
    expect((thrown as ResourceServerError).message).toMatch(message);
  });

  it('allows plain http on loopback only (development), and leaves the caller object as it was', () => {
    const options = { issuer: 'http://localhost:3000', resource: 'http://127.0.0.1:3004/mcp', scopes: ['mcp'] };
    const copy = structuredClone(options);
    const server = createResourceServer(options);
    expect(options).toEqual(copy);
    expect(Object.isFrozen(server.options)).toBe(true);
    expect(() => createResourceServer({ ...options, resource: 'http://[::1]:3004/' })).not.toThrow();
  });

  it("refuses a route's bad scope when the route is made, not at its first request", () => {
    const server = createResourceServer(base);
    expect(() => server.route({ scopes: ['has space'] })).toThrow(/requirements.scopes/);
    expect(server.route({ scopes: ['write'] })).toEqual({ scopes: ['write'] });
  });
});

describe('the RFC 9728 metadata document', () => {
  it('a resource with a path: the path-suffixed URL (RFC 9728 §3.1), served there and at the bare path', () => {
    const server = createResourceServer({ ...base, scopes: ['mcp'], resourceName: 'Example MCP' });
    expect(server.metadataUrl).toBe('https://mcp.example.com/.well-known/oauth-protected-resource/mcp');
    expect(server.metadataPaths).toEqual(['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']);
    expect(server.metadata).toEqual({
      resource: 'https://mcp.example.com/mcp',
      authorization_servers: ['https://id.example.com'],
      bearer_methods_supported: ['header'],
      scopes_supported: ['mcp'],
      resource_name: 'Example MCP',
    });
  });

  it('a resource at the origin: the bare well-known path; scopes_supported left out when there are none', () => {
    const server = createResourceServer({ ...base, resource: 'https://mcp.example.com' });
    expect(server.metadataUrl).toBe('https://mcp.example.com/.well-known/oauth-protected-resource');
    expect(server.metadataPaths).toEqual(['/.well-known/oauth-protected-resource']);
    expect(server.metadata).not.toHaveProperty('scopes_supported');
    expect(server.metadata.resource).toBe('https://mcp.example.com');
  });

  it('advertises scopesSupported when it differs from what every request needs', () => {
    const server = createResourceServer({ ...base, scopesSupported: ['openid', 'profile'] });
    expect(server.metadata.scopes_supported).toEqual(['openid', 'profile']);
  });
});

describe('answers to refused requests', () => {
  const server = createResourceServer({ ...base, scopes: ['mcp'] });
  const metadata = 'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"';

  it('no token: 401 with the bare challenge (no error code, RFC 6750 §3.1), naming the metadata and the scope', () => {
    const answer = server.errorResponse(new ResourceServerError('MISSING_TOKEN', 'this resource needs an access token'));
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toBe(`Bearer ${metadata}, scope="mcp"`);
    expect(answer.body).toEqual({ error: 'unauthorized', error_description: 'this resource needs an access token' });
  });

  it('a bad token: 401 with error="invalid_token" and a description safe inside a quoted string', () => {
    const answer = server.errorResponse(new ResourceServerError('MISSING_CLAIM', 'lacks a valid "jti" claim \\ é'));
    expect(answer.headers['www-authenticate']).toBe(
      `Bearer ${metadata}, scope="mcp", error="invalid_token", error_description="lacks a valid 'jti' claim    "`,
    );
    expect(answer.headers['cache-control']).toBe('no-store');
  });

  it('a missing scope: 403 insufficient_scope with every scope the request needs', () => {
    const error = new ResourceServerError('INSUFFICIENT_SCOPE', 'needs mcp write', { scopes: ['mcp', 'write'] });
    const answer = server.errorResponse(error, { scopes: ['write'] });
    expect(answer.status).toBe(403);
    expect(answer.headers['www-authenticate']).toBe(
      `Bearer ${metadata}, scope="mcp write", error="insufficient_scope", error_description="needs mcp write"`,
    );
  });

  it('a malformed request: 400 invalid_request; an issuer outage: 503 with Retry-After and no challenge', () => {
    expect(server.errorResponse(new ResourceServerError('INVALID_REQUEST', 'two headers')).status).toBe(400);
    const outage = server.errorResponse(new ResourceServerError('ISSUER_UNAVAILABLE', 'down'));
    expect(outage.status).toBe(503);
    expect(outage.headers['www-authenticate']).toBeUndefined();
    expect(outage.headers['retry-after']).toBe('30');
    expect(outage.body.error).toBe('temporarily_unavailable');
  });
});
