/**
 * `@signet/provider/login` and `signet login` with the JWT bearer grant, against a real provider
 * over HTTP on both profiles: one request without a redirect URI (an Ethereum key from text or from
 * a file / the environment, a Solana key, a signer callback standing for a KMS), the interactive
 * path kept with a redirect URI, a refresh, and refusals as LoginErrors in words.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1';
import { type EthereumSigner, ethereumKey, LoginError, login, solanaKey } from '@signet/provider/login';
import { startTestProvider, TEST_REDIRECT_URI, type TestProvider } from '@signet/testkit';
import { bytesToHex, hexToBytes } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLogin } from '../src/cli/login.ts';
import { JWT_BEARER } from './agent-assertions.ts';

const SEED = '0b'.repeat(32);

describe.each(['self-hosted', 'hosted'] as const)('login with the JWT bearer grant (%s)', (profile) => {
  let provider: TestProvider;
  let agentClient: { client_id: string; client_secret?: string };
  let codeClient: { client_id: string; client_secret?: string };
  const dir = mkdtempSync(join(tmpdir(), 'signet-agent-login-'));

  async function register(metadata: Record<string, unknown>) {
    const response = await fetch(`${provider.url}${profile === 'hosted' ? '/register' : '/reg'}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token_endpoint_auth_method: profile === 'hosted' ? 'client_secret_basic' : 'none', ...metadata }),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as { client_id: string; client_secret?: string };
  }

  beforeAll(async () => {
    provider = await startTestProvider({ PROFILE: profile, SOLANA_NETWORKS: 'mainnet' });
    agentClient = await register({ grant_types: [JWT_BEARER, 'refresh_token'], response_types: [] });
    codeClient = await register({ redirect_uris: [TEST_REDIRECT_URI], grant_types: ['authorization_code', 'refresh_token'] });
  });
  afterAll(async () => {
    await provider?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const client = (registered: { client_id: string; client_secret?: string }) => ({
    issuer: provider.issuer,
    clientId: registered.client_id,
    clientSecret: registered.client_secret,
  });
  const subjectOf = (accountId: string, sub: string) => (profile === 'self-hosted' ? expect(sub).toBe(accountId) : undefined);

  it('an Ethereum key: one request, the key’s account, amr agent; offline_access gives a refresh that works', async () => {
    const key = generatePrivateKey();
    const session = await login({ ...client(agentClient), signer: ethereumKey(key), scope: 'openid offline_access' });
    subjectOf(`eip155:1:${privateKeyToAccount(key).address}`, session.sub);
    expect(session.claims.amr).toEqual(['agent']);
    expect(session.tokens.refresh_token).toBeTruthy();
    const renewed = await session.refresh();
    expect(renewed.sub).toBe(session.sub);
  });

  it('a Solana key: one request, EdDSA', async () => {
    const signer = solanaKey(SEED);
    const session = await login({ ...client(agentClient), signer });
    subjectOf(`solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:${signer.address}`, session.sub);
    expect(session.claims.amr).toEqual(['agent']);
  });

  it('a signer callback (a KMS or hardware key: only the digest leaves the program)', async () => {
    const secret = secp256k1.utils.randomPrivateKey();
    const { address } = privateKeyToAccount(bytesToHex(secret));
    const digests: string[] = [];
    const kms: EthereumSigner = {
      kind: 'ethereum',
      address,
      signMessage: async () => {
        throw new Error('not used by the JWT bearer grant');
      },
      // A KMS answers r‖s (64 bytes) for a digest it is given.
      signDigest: async (digest) => {
        digests.push(digest);
        return bytesToHex(secp256k1.sign(hexToBytes(digest), secret).toCompactRawBytes());
      },
    };
    const session = await login({ ...client(agentClient), signer: kms, chainId: 1 });
    expect(digests).toHaveLength(1);
    subjectOf(`eip155:1:${address}`, session.sub);
  });

  it('a redirect URI keeps the interactive path (a client without the grant signs in as before)', async () => {
    const session = await login({
      ...client(codeClient),
      redirectUri: TEST_REDIRECT_URI,
      signer: ethereumKey(generatePrivateKey()),
    });
    expect(session.claims.amr).toBeUndefined();
  });

  it('refusals in words: a client without the grant, a signer that cannot sign a digest, no redirect URI for the code flow', async () => {
    const refused = await login({ ...client(codeClient), signer: ethereumKey(generatePrivateKey()) }).catch((error) => error);
    expect(refused).toBeInstanceOf(LoginError);
    expect(refused).toMatchObject({ code: 'unauthorized_client' });
    expect(refused.message).toMatch(/not registered for the JWT bearer grant/);
    const { address } = privateKeyToAccount(generatePrivateKey());
    const messagesOnly: EthereumSigner = { kind: 'ethereum', address, signMessage: async () => '0x' };
    const cannot = await login({ ...client(agentClient), signer: messagesOnly }).catch((error) => error);
    expect(cannot).toMatchObject({ code: 'SIGNER_CANNOT_SIGN_ASSERTION' });
    const noRedirect = await login({
      ...client(agentClient),
      grant: 'authorization_code',
      signer: ethereumKey(generatePrivateKey()),
    }).catch((error) => error);
    expect(noRedirect).toMatchObject({ code: 'MISSING_REDIRECT_URI' });
  });

  it('signet login without --redirect-uri: an Ethereum key from a file, from the environment, a Solana key', async () => {
    const key = generatePrivateKey();
    const keyFile = join(dir, 'agent.hex');
    writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
    const secretFile = join(dir, 'secret');
    if (agentClient.client_secret) writeFileSync(secretFile, agentClient.client_secret, { mode: 0o600 });
    const common = [
      '--issuer',
      provider.issuer,
      '--client-id',
      agentClient.client_id,
      ...(agentClient.client_secret ? ['--client-secret-file', secretFile] : []),
      '--json',
    ];
    const printed: string[] = [];
    const out = (line: string) => printed.push(line);
    await runLogin([...common, '--key-file', keyFile], {}, out);
    await runLogin(common, { SIGNET_LOGIN_KEY: key }, out);
    await runLogin([...common, '--solana'], { SIGNET_LOGIN_KEY: SEED }, out);
    const [fromFile, fromEnv, solana] = printed.map((line) => JSON.parse(line) as { sub: string; access_token: string });
    expect(fromFile?.access_token).toBeTruthy();
    expect(fromEnv?.sub).toBe(fromFile?.sub);
    if (profile === 'self-hosted') {
      expect(fromFile?.sub).toBe(`eip155:1:${privateKeyToAccount(key).address}`);
      expect(solana?.sub).toBe(`solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:${solanaKey(SEED).address}`);
    }
    expect(printed.join('\n')).not.toContain(key.slice(2));
    await expect(runLogin([...common, '--grant', 'sideways'], { SIGNET_LOGIN_KEY: key }, out)).rejects.toThrow(
      /--grant must be jwt-bearer or authorization_code/,
    );
  });
});
