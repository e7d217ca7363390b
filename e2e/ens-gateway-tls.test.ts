/**
 * CCIP-read gateways are called over TLS through Node's own trust store: a provider process
 * started with NODE_EXTRA_CA_CERTS naming a throw-away CA (made here with openssl) resolves an
 * off-chain name whose gateway serves https with that certificate; the same provider without it
 * refuses the certificate and signs the user in with the address. (The gateway is on loopback,
 * so ALLOW_PRIVATE_FETCH, the development switch, is on: it allows the address, never bad TLS.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EnsGateway, startEnsGateway, startTestchain, type Testchain } from '@signet/testchain';
import { pkceAuthorization, registerPublicClient, selfSignedCertificate, walletSignIn } from '@signet/testkit';
import * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startReplica } from './processes.ts';

describe('CCIP-read gateways over https, trusted through NODE_EXTRA_CA_CERTS (provider process)', () => {
  let dir: string;
  let certFile: string;
  let chain: Testchain;
  let gateway: EnsGateway;
  const user = privateKeyToAccount(generatePrivateKey());

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'signet-gateway-tls-'));
    const certificate = selfSignedCertificate(dir);
    certFile = certificate.certFile;
    chain = await startTestchain({ chainId: 1 });
    gateway = await startEnsGateway({ tls: certificate });
    expect(gateway.url).toMatch(/^https:/);
    await chain.useOffchainResolver('tls.example', { urls: [gateway.url], signer: gateway.signer });
    await chain.setPrimaryName(user.address, 'user.tls.example');
    gateway.records.set('user.tls.example', { address: user.address });
  });
  afterAll(async () => {
    await gateway?.close();
    await chain?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function usernameThrough(settings: Record<string, string>) {
    const port = await freePort();
    const provider = await startReplica(
      {
        ISSUER: `http://localhost:${port}`,
        STORAGE_URL: 'memory:',
        ETH_RPC_URL: chain.url,
        ENS_TIMEOUT_MS: '5000',
        ALLOW_PRIVATE_FETCH: 'true',
        ...settings,
      },
      port,
    );
    try {
      const client = await registerPublicClient(provider.url);
      const { url, verifier } = await pkceAuthorization(client, { scope: 'openid profile' });
      const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer: user });
      const tokens = await oidc.authorizationCodeGrant(client, callbackUrl, { pkceCodeVerifier: verifier });
      return tokens.claims()?.preferred_username;
    } finally {
      await provider.stop();
    }
  }

  it('with the CA in NODE_EXTRA_CA_CERTS the off-chain name resolves; without it, the address', async () => {
    const before = gateway.requests;
    expect(await usernameThrough({ NODE_EXTRA_CA_CERTS: certFile })).toBe('user.tls.example');
    expect(gateway.requests).toBeGreaterThan(before);
    expect(await usernameThrough({})).toBe(user.address);
  });
});
