/**
 * OP Dynamic plan, oidcc-registration-sector-uri and oidcc-registration-sector-bad: the sector
 * document must be served over https, so the provider runs as its own process trusting a
 * throw-away certificate (NODE_EXTRA_CA_CERTS, made here with openssl) for a loopback https server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selfSignedCertificate, walletSignIn } from '@signet/testkit';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type Replica, startReplica } from './processes.ts';

const A = 'https://a.rp.example/cb';
const B = 'https://b.rp.example/cb';

describe('OP Dynamic: pairwise sector_identifier_uri (hosted profile, provider process)', () => {
  let dir: string;
  let sectors: Server;
  let sectorBase: string;
  let provider: Replica;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'signet-sector-'));
    const { key, cert, certFile } = selfSignedCertificate(dir);
    const documents: Record<string, string[]> = { '/good.json': [A, B], '/bad.json': [A] };
    sectors = createServer({ key, cert }, (req, res) => {
      const list = documents[req.url ?? ''];
      if (!list) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(list));
    });
    await new Promise<void>((resolve) => sectors.listen(0, '127.0.0.1', resolve));
    sectorBase = `https://127.0.0.1:${(sectors.address() as AddressInfo).port}`;
    const port = await freePort();
    provider = await startReplica(
      {
        PROFILE: 'hosted',
        ISSUER: `http://localhost:${port}`,
        STORAGE_URL: 'memory:',
        // The sector documents live on loopback here; in production they must be public.
        ALLOW_PRIVATE_FETCH: 'true',
        NODE_EXTRA_CA_CERTS: certFile,
      },
      port,
    );
  });
  afterAll(async () => {
    await provider?.stop();
    sectors?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const register = (metadata: Record<string, unknown>) =>
    fetch(`${provider.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token_endpoint_auth_method: 'client_secret_basic', ...metadata }),
    });

  it('oidcc-registration-sector-uri: every redirect host the sector document lists shares one pairwise subject', async () => {
    const response = await register({
      redirect_uris: [A, B],
      subject_type: 'pairwise',
      sector_identifier_uri: `${sectorBase}/good.json`,
    });
    expect(response.status, await response.clone().text()).toBe(201);
    const client = (await response.json()) as { client_id: string; client_secret: string };
    const issuer = `${provider.url}/`;
    const jwks = createRemoteJWKSet(new URL(`${provider.url}/jwk`));
    const signer = privateKeyToAccount(generatePrivateKey());
    const subs: string[] = [];
    for (const redirectUri of [A, B]) {
      const url = new URL(`${provider.url}/authorize`);
      url.search = new URLSearchParams({
        client_id: client.client_id,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'openid',
        state: 's',
      }).toString();
      const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer });
      const token = await fetch(`${provider.url}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: callbackUrl.searchParams.get('code') as string,
          redirect_uri: redirectUri,
        }),
      });
      const { id_token } = (await token.json()) as { id_token: string };
      const { payload } = await jwtVerify(id_token, jwks, { issuer, audience: client.client_id });
      subs.push(payload.sub as string);
    }
    expect(subs[0]).toBe(subs[1]);
    expect(subs[0]).not.toMatch(/^eip155:/);
    expect(subs[0]?.toLowerCase()).not.toContain(signer.address.slice(2).toLowerCase());
  });

  it('oidcc-registration-sector-bad: a sector document that does not list every redirect URI is refused', async () => {
    const response = await register({
      redirect_uris: [A, B],
      subject_type: 'pairwise',
      sector_identifier_uri: `${sectorBase}/bad.json`,
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: string; error_description: string };
    expect(body.error).toBe('invalid_client_metadata');
    expect(body.error_description).toMatch(/sector_identifier_uri/);
    expect(body.error_description).not.toMatch(/https/);
  });
});
