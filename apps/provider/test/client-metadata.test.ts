/**
 * What a client may register: every URI field refuses a user part (`https://app.example@evil.example/cb`
 * reads as app.example in a wallet), and every field and list is bounded (METADATA_LIMITS), at
 * registration and at its management, on both profiles; nothing is stored for a refusal.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestProvider, type TestProvider } from '@signet/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METADATA_LIMITS } from '../src/clients/metadata.ts';

const CB = 'https://rp.example.com/cb';
const TRICK = 'https://app.uniswap.org@evil.example';

/** Every URI field of RFC 7591 and OpenID registration, with a value that carries a user part. */
const USERINFO_FIELDS: [string, unknown][] = [
  ['redirect_uris', [`${TRICK}/cb`]],
  ['post_logout_redirect_uris', [`${TRICK}/bye`]],
  ['client_uri', TRICK],
  ['logo_uri', `${TRICK}/logo.png`],
  ['policy_uri', `${TRICK}/privacy`],
  ['tos_uri', `${TRICK}/tos`],
  ['jwks_uri', `${TRICK}/jwks.json`],
  ['sector_identifier_uri', `${TRICK}/sector.json`],
  ['initiate_login_uri', `${TRICK}/login`],
  ['client_uri', 'https://user:secret@rp.example.com'],
  ['client_uri', 'https://@rp.example.com'],
];

describe.each(['self-hosted', 'hosted'])('client metadata, %s profile', (profile) => {
  let provider: TestProvider;
  let registration: string;
  let management: string;
  beforeAll(async () => {
    provider = await startTestProvider({ PROFILE: profile });
    registration = `${provider.url}${profile === 'hosted' ? '/register' : '/reg'}`;
    management = `${provider.url}${profile === 'hosted' ? '/client' : '/reg'}`;
  });
  afterAll(() => provider?.stop());

  const register = (metadata: Record<string, unknown>) =>
    fetch(registration, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) });
  const storedClients = () => provider.app.services.store.keys('oidc:Client:');

  it.each(USERINFO_FIELDS)('registration refuses a user part in %s (%j), and stores nothing', async (field, value) => {
    const before = (await storedClients()).length;
    const response = await register({ redirect_uris: [CB], [field]: value });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error).toMatch(/^invalid_(client_metadata|redirect_uri)$/);
    expect(body.error_description).toContain(field);
    expect(body.error_description).toContain('user name or password');
    expect((await storedClients()).length).toBe(before);
  });

  it.each([
    ['a 55,000-character client_name', { client_name: 'x'.repeat(55_000) }, 'client_name must be at most 100 characters'],
    ['a 101-character client_name', { client_name: 'x'.repeat(101) }, 'client_name must be at most 100 characters'],
    [
      '1,500 redirect URIs',
      { redirect_uris: Array.from({ length: 1500 }, (_, i) => `${CB}/${i}`) },
      'redirect_uris may list at most 20 entries',
    ],
    [
      '21 post-logout redirect URIs',
      { post_logout_redirect_uris: Array.from({ length: 21 }, (_, i) => `${CB}/bye/${i}`) },
      'post_logout_redirect_uris may list at most 20 entries',
    ],
    [
      '11 contacts',
      { contacts: Array.from({ length: 11 }, (_, i) => `ops${i}@rp.example.com`) },
      'contacts may list at most 10 entries',
    ],
    ['a 2,001-character URI', { client_uri: `https://rp.example.com/${'p'.repeat(1980)}` }, 'client_uri must be at most 2000'],
    ['a 2,001-character redirect URI', { redirect_uris: [`${CB}/${'p'.repeat(1975)}`] }, 'every entry must be at most 2000'],
    ['a 3,000-character software_id', { software_id: 'x'.repeat(3000) }, 'software_id must be at most 2000'],
    [
      'more than 16 KB in all',
      { redirect_uris: Array.from({ length: 10 }, (_, i) => `${CB}/${i}/${'p'.repeat(1900)}`) },
      'must be at most 16384 bytes',
    ],
  ])('registration refuses %s', async (_name, metadata, message) => {
    const before = (await storedClients()).length;
    const response = await register({ redirect_uris: [CB], ...metadata });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error).toMatch(/^invalid_(client_metadata|redirect_uri)$/);
    expect(body.error_description).toContain(message);
    expect((await storedClients()).length).toBe(before);
  });

  it('registration accepts everything up to the limits', async () => {
    const response = await register({
      redirect_uris: Array.from({ length: METADATA_LIMITS.redirectUris }, (_, i) => `${CB}/${i}`),
      client_name: 'n'.repeat(METADATA_LIMITS.clientName),
      contacts: Array.from({ length: METADATA_LIMITS.list }, (_, i) => `ops${i}@rp.example.com`),
      client_uri: `https://rp.example.com/${'p'.repeat(METADATA_LIMITS.text - 'https://rp.example.com/'.length)}`,
    });
    expect(response.status, await response.clone().text()).toBe(201);
  });

  it('management (PUT) applies the same rules, and a refused update leaves the stored client as it was', async () => {
    const created = await (await register({ redirect_uris: [CB], client_name: 'Before' })).json();
    const put = (metadata: Record<string, unknown>) =>
      fetch(`${management}/${created.client_id}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${created.registration_access_token}` },
        body: JSON.stringify({ client_id: created.client_id, redirect_uris: [CB], ...metadata }),
      });
    for (const metadata of [
      { redirect_uris: [`${TRICK}/cb`] },
      { client_uri: TRICK },
      { client_name: 'x'.repeat(55_000) },
      { redirect_uris: Array.from({ length: 21 }, (_, i) => `${CB}/${i}`) },
    ]) {
      const response = await put(metadata);
      expect(response.status, JSON.stringify(metadata).slice(0, 80)).toBe(400);
    }
    const read = await fetch(`${management}/${created.client_id}`, {
      headers: { authorization: `Bearer ${created.registration_access_token}` },
    });
    expect(await read.json()).toMatchObject({ client_name: 'Before', redirect_uris: [CB] });
  });
});

describe('client metadata from the operator', () => {
  it('CLIENTS_FILE: a client with a user part in a URI, or over a bound, stops the start naming it', async () => {
    for (const [client, message] of [
      [{ client_id: 'tricky', redirect_uris: [`${TRICK}/cb`] }, 'user name or password'],
      [{ client_id: 'huge', redirect_uris: [CB], client_name: 'x'.repeat(500) }, 'client_name must be at most 100'],
    ] as const) {
      const file = join(tmpdir(), `signet-clients-${process.pid}-${client.client_id}.json`);
      writeFileSync(file, JSON.stringify([{ ...client, token_endpoint_auth_method: 'none' }]));
      await expect(startTestProvider({ CLIENTS_FILE: file })).rejects.toThrow(
        new RegExp(`CLIENTS_FILE: entry 0 \\(client_id ${client.client_id}\\): .*${message}`),
      );
    }
  });
});
