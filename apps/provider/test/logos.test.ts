import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestProvider } from '@signet/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSpecialUseAddress } from '../src/outbound.ts';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

describe('client logos are served by the provider (no third-party request from the page)', () => {
  let server: Server;
  let origin: string;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits += 1;
      if (req.url === '/logo.png') res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
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
    return (await response.json()).client_id as string;
  };

  it('fetches the logo once (when private addresses are allowed) and caches it', async () => {
    const provider = await startTestProvider({ ALLOW_PRIVATE_FETCH: 'true' });
    try {
      const id = await registerWithLogo(provider.url, `${origin}/logo.png`);
      const before = hits;
      for (let i = 0; i < 3; i++) {
        const logo = await fetch(`${provider.url}/logo/${id}`);
        expect(logo.status).toBe(200);
        expect(logo.headers.get('content-type')).toBe('image/png');
        expect(Buffer.from(await logo.arrayBuffer())).toEqual(PNG);
      }
      expect(hits - before).toBe(1);
      // Many pages at once for a logo not fetched yet: still one fetch.
      const other = await registerWithLogo(provider.url, `${origin}/logo.png?v=2`);
      const beforeBurst = hits;
      const burst = await Promise.all(Array.from({ length: 8 }, () => fetch(`${provider.url}/logo/${other}`)));
      expect(burst.every((r) => r.status === 200)).toBe(true);
      expect(hits - beforeBurst).toBe(1);
    } finally {
      await provider.stop();
    }
  });

  it('draws an initial instead of fetching from a private address, a non-image, or nothing', async () => {
    const provider = await startTestProvider();
    try {
      const before = hits;
      for (const logo of [`${origin}/logo.png`, `http://public.example/logo.png`, undefined]) {
        const id = await registerWithLogo(provider.url, logo);
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
      const id = await registerWithLogo(permissive.url, `${origin}/page.html`);
      expect((await fetch(`${permissive.url}/logo/${id}`)).headers.get('content-type')).toBe('image/svg+xml');
    } finally {
      await permissive.stop();
    }
  });

  it('refuses IP-literal hosts in the special-use ranges before connecting', async () => {
    const { fetchImage } = await import('../src/logos.ts');
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
    const { fetchImage } = await import('../src/logos.ts');
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
