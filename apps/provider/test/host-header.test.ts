/**
 * Every URL the provider publishes derives from ISSUER alone: a Host, X-Forwarded-Host or an
 * absolute request target chosen by the client never reaches discovery, and the discovery
 * document and key set can therefore be cached by a shared cache.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { startTestProvider } from '@signet/testkit';
import { describe, expect, it } from 'vitest';

function get(base: string, path: string, headers: Record<string, string>) {
  const url = new URL(path, base);
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, headers }, (res) => {
      let body = '';
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A request with an absolute-form target (`GET http://evil.example/… HTTP/1.1`). */
function getAbsoluteForm(base: string, target: string) {
  const url = new URL(base);
  return new Promise<string>((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(`GET ${target} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n\r\n`);
    });
    let data = '';
    socket.on('data', (chunk) => {
      data += chunk;
    });
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
  });
}

const urlsOf = (document: Record<string, unknown>) =>
  Object.values(document).filter((v): v is string => typeof v === 'string' && /^https?:/.test(v));

describe('published URLs', () => {
  for (const profile of ['self-hosted', 'hosted'] as const) {
    it(`${profile}: Host and X-Forwarded-Host never reach discovery, with or without TRUST_PROXY`, async () => {
      for (const trustProxy of ['false', 'true']) {
        const provider = await startTestProvider({ PROFILE: profile, TRUST_PROXY: trustProxy });
        try {
          const response = await get(provider.url, '/.well-known/openid-configuration', {
            host: 'evil.example',
            'x-forwarded-host': 'evil.example',
            'x-forwarded-proto': 'https',
          });
          expect(response.status).toBe(200);
          const document = JSON.parse(response.body) as Record<string, unknown>;
          expect(document.issuer).toBe(provider.issuer);
          const urls = urlsOf(document);
          expect(urls.length).toBeGreaterThan(5);
          for (const url of urls) expect(url === provider.url || url.startsWith(`${provider.url}/`), url).toBe(true);
          expect(response.body).not.toContain('evil.example');
          expect(response.headers['cache-control']).toMatch(/public, max-age=\d+/);
        } finally {
          await provider.stop();
        }
      }
    });
  }

  it('an absolute request target does not become the published origin', async () => {
    const provider = await startTestProvider();
    try {
      const raw = await getAbsoluteForm(provider.url, 'http://evil.example/.well-known/openid-configuration');
      expect(raw).toMatch(/^HTTP\/1\.1 200/);
      expect(raw).not.toContain('evil.example');
      expect(raw).toContain(`"jwks_uri":"${provider.url}/jwks"`);
    } finally {
      await provider.stop();
    }
  });

  it('the key set carries a shared-cache-safe Cache-Control', async () => {
    const provider = await startTestProvider();
    try {
      const response = await get(provider.url, '/jwks', { host: 'evil.example' });
      expect(response.status).toBe(200);
      expect(response.headers['cache-control']).toMatch(/public, max-age=\d+/);
    } finally {
      await provider.stop();
    }
  });
});
