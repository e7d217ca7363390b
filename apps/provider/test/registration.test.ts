import { startTestProvider, type TestProvider } from '@signet/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

// One self-hosted provider, shared by the "dynamic client registration" describes below.
let provider: TestProvider;

beforeAll(async () => {
  provider = await startTestProvider();
});
afterAll(() => provider?.stop());

const register = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${provider.url}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('dynamic client registration (RFC 7591) and management (RFC 7592), self-hosted', () => {
  it('registers a public client: UUID client_id, registration token and URI, no secret', async () => {
    const response = await register({
      redirect_uris: ['https://rp.example.com/cb'],
      client_name: 'Example RP',
      logo_uri: 'https://rp.example.com/logo.png',
      client_uri: 'https://rp.example.com',
      policy_uri: 'https://rp.example.com/privacy',
      tos_uri: 'https://rp.example.com/tos',
      contacts: ['ops@rp.example.com'],
    });
    expect(response.status).toBe(201);
    const client = await response.json();
    expect(client.client_id).toMatch(UUID);
    expect(client.registration_access_token).toEqual(expect.any(String));
    expect(client.registration_client_uri).toBe(`${provider.url}/reg/${client.client_id}`);
    expect(client.redirect_uris).toEqual(['https://rp.example.com/cb']);
    expect(client.token_endpoint_auth_method).toBe('none');
    expect(client).not.toHaveProperty('client_secret');
    expect(client).toMatchObject({
      client_name: 'Example RP',
      contacts: ['ops@rp.example.com'],
      tos_uri: 'https://rp.example.com/tos',
    });
  });

  it('gives a secret to a client that asks for client_secret_basic', async () => {
    const response = await register({
      redirect_uris: ['https://rp.example.com/cb'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    expect(response.status).toBe(201);
    const client = await response.json();
    expect(client.client_secret).toEqual(expect.any(String));
    expect(client.client_secret.length).toBeGreaterThanOrEqual(43);
    expect(client.client_secret_expires_at).toBe(0);
  });

  it.each([
    ['http on a public host', ['http://rp.example.com/cb'], 'invalid_redirect_uri'],
    ['a custom scheme', ['myapp://cb'], 'invalid_redirect_uri'],
    ['a fragment', ['https://rp.example.com/cb#x'], 'invalid_redirect_uri'],
    ['not a URL', ['not a url'], 'invalid_redirect_uri'],
  ])('refuses redirect URIs with %s', async (_name, redirect_uris, error) => {
    const response = await register({ redirect_uris });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe(error);
  });

  it.each([['http://localhost:8080/cb'], ['http://127.0.0.1/cb'], ['http://[::1]:3000/cb'], ['https://rp.example.com/cb']])(
    'accepts %s',
    async (uri) => {
      expect((await register({ redirect_uris: [uri] })).status).toBe(201);
    },
  );
});

describe('dynamic client registration (RFC 7591) and management (RFC 7592), self-hosted: refusals and management', () => {
  it('refuses a registration without redirect_uris, malformed JSON, and bad contacts', async () => {
    const missing = await register({ client_name: 'x' });
    expect(missing.status).toBe(400);
    expect((await missing.json()).error).toMatch(/^invalid_(redirect_uri|client_metadata)$/);
    const malformed = await register('{"redirect_uris": [');
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error).toBe('invalid_request');
    const contacts = await register({ redirect_uris: ['https://rp.example.com/cb'], contacts: ['not an email'] });
    expect(contacts.status).toBe(400);
    expect((await contacts.json()).error).toBe('invalid_client_metadata');
  });

  it('refuses redirect URIs a sign-in message cannot carry as its resource (IDN host, space), saying why', async () => {
    for (const uri of [
      'https://exämple.com/cb',
      'https://rp.example.com/a b',
      'https://rp.example.com/cb?x=<y>',
      'https:$/rp.example.com/cb',
    ]) {
      const response = await register({ redirect_uris: [uri] });
      expect(response.status, uri).toBe(400);
      const body = await response.json();
      expect(body.error).toMatch(/^invalid_(redirect_uri|client_metadata)$/);
      expect(body.error_description).toMatch(/EIP-4361|scheme:\/\/host/);
    }
    expect((await register({ redirect_uris: ['https://xn--exmple-cua.com/cb?a=1&b=%20'] })).status).toBe(201);
  });

  it('reads, updates and deletes a client with its registration access token', async () => {
    const created = await (await register({ redirect_uris: ['https://rp.example.com/cb'], client_name: 'Before' })).json();
    const auth = { authorization: `Bearer ${created.registration_access_token}` };

    const read = await fetch(created.registration_client_uri, { headers: auth });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ client_id: created.client_id, client_name: 'Before' });

    const updated = await fetch(created.registration_client_uri, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        client_id: created.client_id,
        redirect_uris: ['https://rp.example.com/cb', 'https://rp.example.com/cb2'],
        client_name: 'After',
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(updated.status).toBe(200);
    const after = await updated.json();
    expect(after).toMatchObject({
      client_name: 'After',
      redirect_uris: ['https://rp.example.com/cb', 'https://rp.example.com/cb2'],
    });
    // The token is not rotated: the same one still manages the client.
    expect((await fetch(created.registration_client_uri, { headers: auth })).status).toBe(200);

    const badUpdate = await fetch(created.registration_client_uri, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: created.client_id, redirect_uris: ['http://evil.example/cb'] }),
    });
    expect(badUpdate.status).toBe(400);
    expect((await badUpdate.json()).error).toBe('invalid_redirect_uri');

    const deleted = await fetch(created.registration_client_uri, { method: 'DELETE', headers: auth });
    expect(deleted.status).toBe(204);
    expect((await fetch(created.registration_client_uri, { headers: auth })).status).toBe(401);
  });

  it('refuses management without a token, with a wrong one, or with another client’s', async () => {
    const a = await (await register({ redirect_uris: ['https://a.example.com/cb'] })).json();
    const b = await (await register({ redirect_uris: ['https://b.example.com/cb'] })).json();
    const none = await fetch(a.registration_client_uri);
    expect(none.status).toBe(401);
    expect((await none.json()).error).toBe('invalid_token');
    const wrong = await fetch(a.registration_client_uri, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).error).toBe('invalid_token');
    const other = await fetch(a.registration_client_uri, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${b.registration_access_token}` },
    });
    expect(other.status).toBe(401);
    // Nothing was deleted.
    expect(
      (await fetch(a.registration_client_uri, { headers: { authorization: `Bearer ${a.registration_access_token}` } })).status,
    ).toBe(200);
  });
});
