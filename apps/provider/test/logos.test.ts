import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestProvider, type TestProvider } from '@signet/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSpecialUseAddress } from '../src/outbound/public-fetch.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
/** A second image (bytes that name themselves). */
const OTHER = Buffer.concat([PNG, Buffer.from('other')]);
/** A larger one, served a little late (concurrent updates overlap). */
const BIG = Buffer.concat([PNG, Buffer.alloc(4000, 7)]);

// One logo server, shared by the "client logos" describes below.
let server: Server;
let origin: string;
let hits = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    hits += 1;
    if (req.url?.startsWith('/logo.png')) res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    else if (req.url?.startsWith('/other.png')) res.writeHead(200, { 'content-type': 'image/png' }).end(OTHER);
    else if (req.url?.startsWith('/big.png')) setTimeout(() => res.writeHead(200, { 'content-type': 'image/png' }).end(BIG), 20);
    else if (req.url === '/page.html') res.writeHead(200, { 'content-type': 'text/html' }).end('<script>alert(1)</script>');
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server?.close());

const registerWithLogo = async (url: string, logo: string | undefined) => {
  const response = await fetch(`${url}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      redirect_uris: ['https://rp.example.com/cb'],
      client_name: 'Zeta RP',
      ...(logo ? { logo_uri: logo } : {}),
    }),
  });
  const body = await response.json();
  return { id: body.client_id as string, token: body.registration_access_token as string, status: response.status };
};

const updateLogo = (url: string, client: { id: string; token: string }, logo: string | undefined) =>
  fetch(`${url}/reg/${client.id}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${client.token}` },
    body: JSON.stringify({
      client_id: client.id,
      redirect_uris: ['https://rp.example.com/cb'],
      client_name: 'Zeta RP',
      ...(logo ? { logo_uri: logo } : {}),
    }),
  });

const served = async (url: string, id: string) => {
  const response = await fetch(`${url}/logo/${id}`);
  expect(response.status).toBe(200);
  return { type: response.headers.get('content-type'), body: Buffer.from(await response.arrayBuffer()) };
};

const logoKeys = (provider: TestProvider) => provider.app.services.store.keys('logo:');

describe('client logos are served by the provider (no third-party request from the page)', () => {
  it('fetches the logo when the client registers (private addresses allowed here), then only serves it: a GET never fetches', async () => {
    const provider = await startTestProvider({ ALLOW_PRIVATE_FETCH: 'true' });
    try {
      const before = hits;
      const client = await registerWithLogo(provider.url, `${origin}/logo.png`);
      expect(hits - before).toBe(1);
      const burst = await Promise.all(Array.from({ length: 8 }, () => served(provider.url, client.id)));
      for (const logo of burst) expect(logo).toEqual({ type: 'image/png', body: PNG });
      expect(hits - before).toBe(1);
      expect(await logoKeys(provider)).toEqual([`logo:${client.id}`]);
    } finally {
      await provider.stop();
    }
  });

  it('one logo per client: replaced when logo_uri changes (PUT), dropped when it is removed, gone with the client', async () => {
    const provider = await startTestProvider({ ALLOW_PRIVATE_FETCH: 'true' });
    const store = provider.app.services.store;
    try {
      const client = await registerWithLogo(provider.url, `${origin}/logo.png`);
      const total = async () => Number((await store.get('logos:total-bytes')) ?? 0);
      expect(await total()).toBe(PNG.length);
      const before = hits;
      // The same logo_uri again: kept, not fetched again.
      expect((await updateLogo(provider.url, client, `${origin}/logo.png`)).status).toBe(200);
      expect(hits - before).toBe(0);
      // Another one: fetched once, replacing the first; still one entry.
      expect((await updateLogo(provider.url, client, `${origin}/other.png`)).status).toBe(200);
      expect(hits - before).toBe(1);
      expect(await logoKeys(provider)).toEqual([`logo:${client.id}`]);
      expect((await served(provider.url, client.id)).body.toString()).toContain('other');
      expect(await total()).toBe(OTHER.length);
      // No logo_uri any more: the stored image goes, the page draws an initial.
      expect((await updateLogo(provider.url, client, undefined)).status).toBe(200);
      expect(await logoKeys(provider)).toEqual([]);
      expect((await served(provider.url, client.id)).type).toBe('image/svg+xml');
      expect(await total()).toBe(0);
      // Gone with the client.
      await updateLogo(provider.url, client, `${origin}/logo.png`);
      expect(await logoKeys(provider)).toHaveLength(1);
      const deleted = await fetch(`${provider.url}/reg/${client.id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${client.token}` },
      });
      expect(deleted.status).toBe(204);
      expect(await logoKeys(provider)).toEqual([]);
      expect(await total()).toBe(0);
    } finally {
      await provider.stop();
    }
  });

  it('PUT + GET pairs cannot make the provider fetch URLs an attacker chooses: management shares the registration budget, GET fetches nothing', async () => {
    const provider = await startTestProvider({ ALLOW_PRIVATE_FETCH: 'true', RATE_LIMIT_REGISTRATION: '1' });
    try {
      const before = hits;
      const client = await registerWithLogo(provider.url, `${origin}/logo.png`);
      expect(client.status).toBe(201);
      for (let i = 0; i < 40; i++) {
        const put = await updateLogo(provider.url, client, `${origin}/logo.png?v=${i}`);
        expect(put.status).toBe(429);
        await served(provider.url, client.id);
      }
      expect(hits - before).toBe(1);
      expect(await logoKeys(provider)).toHaveLength(1);
    } finally {
      await provider.stop();
    }
  });
});

describe('client logos: storage limits, and what is never fetched', () => {
  it('LOGO_STORAGE_LIMIT caps every stored logo together: beyond it an initial is drawn, and removing a client frees its share', async () => {
    const provider = await startTestProvider({ ALLOW_PRIVATE_FETCH: 'true', LOGO_STORAGE_LIMIT: String(PNG.length + 10) });
    try {
      const first = await registerWithLogo(provider.url, `${origin}/logo.png`);
      const second = await registerWithLogo(provider.url, `${origin}/logo.png`);
      expect((await served(provider.url, first.id)).type).toBe('image/png');
      expect((await served(provider.url, second.id)).type).toBe('image/svg+xml');
      await fetch(`${provider.url}/reg/${first.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${first.token}` } });
      // The second client's next update (the same logo_uri, not stored yet) now fits.
      expect((await updateLogo(provider.url, second, `${origin}/logo.png`)).status).toBe(200);
      expect((await served(provider.url, second.id)).type).toBe('image/png');
    } finally {
      await provider.stop();
    }
  });

  it.each([
    ['memory', () => ({ STORAGE_URL: 'memory:' })],
    ['SQLite', () => ({ STORAGE_URL: `sqlite:${join(mkdtempSync(join(tmpdir(), 'signet-logos-')), 'signet.db')}` })],
    ['Redis', () => ({ STORAGE_URL: REDIS_URL, STORAGE_PREFIX: `signet-test:logos:${randomUUID()}:` })],
  ])('%s: concurrent updates of one client keep the total exact and within LOGO_STORAGE_LIMIT', async (_storage, storage) => {
    const limit = BIG.length * 2 + 100;
    const provider = await startTestProvider({
      ALLOW_PRIVATE_FETCH: 'true',
      LOGO_STORAGE_LIMIT: String(limit),
      RATE_LIMIT_REGISTRATION: '0',
      ...storage(),
    });
    const store = provider.app.services.store;
    try {
      const clients = [
        await registerWithLogo(provider.url, `${origin}/big.png?first`),
        await registerWithLogo(provider.url, `${origin}/big.png?second`),
      ];
      // Twelve updates of each client at once, each naming another logo (so each one fetches).
      const puts = clients.flatMap((client, c) =>
        Array.from({ length: 12 }, (_, i) =>
          updateLogo(provider.url, client, i % 3 === 2 ? undefined : `${origin}/${i % 2 ? 'big' : 'other'}.png?${c}-${i}`),
        ),
      );
      for (const response of await Promise.all(puts)) expect(response.status).toBe(200);
      const entries = (await store.getMany((await logoKeys(provider)).filter((key) => /^logo:[^:]+$/.test(key)))).map(
        (raw) => JSON.parse(raw as string) as { size?: number },
      );
      const stored = entries.reduce((sum, entry) => sum + (entry.size ?? 0), 0);
      const total = await store.increment('logos:total-bytes', 3600, 0);
      expect({ total, stored }).toEqual({ total: stored, stored });
      expect(stored).toBeLessThanOrEqual(limit);
      expect(await store.keys('lock:logo:')).toEqual([]);
      // Removing both clients brings the total back to zero.
      for (const client of clients) {
        await fetch(`${provider.url}/reg/${client.id}`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${client.token}` },
        });
      }
      expect(await store.increment('logos:total-bytes', 3600, 0)).toBe(0);
    } finally {
      await provider.stop();
    }
  });

  it('draws an initial instead of fetching from a private address, a non-image, or nothing', async () => {
    const provider = await startTestProvider();
    try {
      const before = hits;
      for (const logo of [`${origin}/logo.png`, `http://public.example/logo.png`, undefined]) {
        const { id } = await registerWithLogo(provider.url, logo);
        const response = await fetch(`${provider.url}/logo/${id}`);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('image/svg+xml');
        expect(response.headers.get('content-security-policy')).toContain('sandbox');
        expect(await response.text()).toContain('>Z</text>');
      }
      expect(hits).toBe(before);
      expect((await fetch(`${provider.url}/logo/unknown-client`)).status).toBe(404);
    } finally {
      await provider.stop();
    }
    const permissive = await startTestProvider({ ALLOW_PRIVATE_FETCH: 'true' });
    try {
      const { id } = await registerWithLogo(permissive.url, `${origin}/page.html`);
      expect((await fetch(`${permissive.url}/logo/${id}`)).headers.get('content-type')).toBe('image/svg+xml');
    } finally {
      await permissive.stop();
    }
  });
});

describe('client logos: CLIENTS_FILE clients and fetch limits', () => {
  it('CLIENTS_FILE clients: their logos are fetched when the provider starts', async () => {
    const file = join(tmpdir(), `signet-logo-clients-${process.pid}.json`);
    writeFileSync(
      file,
      JSON.stringify([
        {
          client_id: 'static-rp',
          client_name: 'Static RP',
          redirect_uris: ['https://rp.example.com/cb'],
          token_endpoint_auth_method: 'none',
          logo_uri: `${origin}/logo.png`,
        },
      ]),
    );
    const provider = await startTestProvider({ ALLOW_PRIVATE_FETCH: 'true', CLIENTS_FILE: file });
    try {
      const deadline = Date.now() + 15_000;
      while ((await served(provider.url, 'static-rp')).type !== 'image/png') {
        if (Date.now() > deadline) throw new Error('the CLIENTS_FILE logo was never stored');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await provider.stop();
    }
  });

  it('refuses IP-literal hosts in the special-use ranges before connecting', async () => {
    const { fetchImage } = await import('../src/clients/logos.ts');
    for (const uri of [
      'https://127.0.0.1:1/x.png',
      'https://[::1]:1/x.png',
      'https://169.254.169.254/latest',
      'https://[::ffff:a00:1]/x.png',
    ]) {
      await expect(fetchImage(uri, false)).rejects.toThrow(/private or special-use/);
    }
  });

  it('bounds the whole fetch, not only idleness: a trickling server is cut after 3 s', async () => {
    const { fetchImage } = await import('../src/clients/logos.ts');
    const trickle = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      const timer = setInterval(() => res.write('x'), 500);
      res.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => trickle.listen(0, '127.0.0.1', resolve));
    const started = Date.now();
    try {
      await expect(fetchImage(`http://127.0.0.1:${(trickle.address() as AddressInfo).port}/slow.png`, true)).rejects.toThrow(
        /longer than 3 s/,
      );
      expect(Date.now() - started).toBeLessThan(4500);
    } finally {
      trickle.closeAllConnections();
      trickle.close();
    }
  });

  it.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['::1', true],
    ['fd00::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['2002:7f00:1::1', true],
    ['not-an-ip', true],
    ['93.184.216.34', false],
    ['2606:4700:4700::1111', false],
  ])('%s is special-use: %s', (address, special) => {
    expect(isSpecialUseAddress(address)).toBe(special);
  });
});
