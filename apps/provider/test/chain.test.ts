import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestchain, type Testchain } from '@signet/testchain';
import {
  CookieJar,
  getDetails,
  insecure,
  messageFor,
  pkceAuthorization,
  postSignature,
  registerPublicClient,
  startInteraction,
  startTestProvider,
  TEST_REDIRECT_URI,
  type TestProvider,
  walletSignIn,
} from '@signet/testkit';
import * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** Serves a PNG avatar, as an ENS avatar record's URL would. */
async function avatarServer(): Promise<{ url: string; server: Server }> {
  const png = Buffer.from(
    '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4a40000000049454e44ae426082',
    'hex',
  );
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/alice.png`, server };
}

/** A JSON-RPC "node" that never answers in time. */
async function slowRpc(): Promise<{ url: string; server: Server }> {
  const server = createServer(() => {
    /* never responds */
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

// One local node and provider, shared by the "sign-ins that need the chain" describes below.
let chain: Testchain;
let provider: TestProvider;
let client: oidc.Configuration;
let avatar: { url: string; server: Server };

beforeAll(async () => {
  chain = await startTestchain({ chainId: 1 });
  avatar = await avatarServer();
  // The avatar is served on loopback: ALLOW_PRIVATE_FETCH (the development setting) lets it through.
  // An operator's client with both e-mail sources (a synthetic domain is set by the operator only).
  const clientsFile = join(tmpdir(), `signet-chain-clients-${process.pid}-${Date.now()}.json`);
  writeFileSync(
    clientsFile,
    JSON.stringify([
      {
        client_id: 'mail-both',
        redirect_uris: [TEST_REDIRECT_URI],
        token_endpoint_auth_method: 'none',
        ens_email: true,
        synthetic_email_domain: 'wallet.example.com',
      },
    ]),
  );
  provider = await startTestProvider({
    ETH_RPC_URL: chain.url,
    ENS_TIMEOUT_MS: '5000',
    ALLOW_PRIVATE_FETCH: 'true',
    CLIENTS_FILE: clientsFile,
  });
  client = await registerPublicClient(provider.url);
});
afterAll(async () => {
  await provider?.stop();
  await chain?.stop();
  avatar?.server.close();
});

async function signInAndGetClaims(
  options: Omit<Parameters<typeof walletSignIn>[0], 'authorizationUrl'>,
  scope = 'openid profile',
  rp = client,
) {
  const { url, verifier } = await pkceAuthorization(rp, { scope });
  const { callbackUrl } = await walletSignIn({ authorizationUrl: url, ...options });
  const tokens = await oidc.authorizationCodeGrant(rp, callbackUrl, { pkceCodeVerifier: verifier });
  const idToken = tokens.claims() as Record<string, unknown>;
  const userinfo = await oidc.fetchUserInfo(rp, tokens.access_token, String(idToken.sub));
  return { idToken, userinfo };
}

describe('sign-ins that need the chain: contract wallets and ENS, on a real local node', () => {
  it('EIP-1271: a deployed contract wallet signs in with its owner key', async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const wallet = await chain.deployWallet(owner.address, 11n);
    const { idToken } = await signInAndGetClaims({ signer: owner, address: wallet });
    expect(idToken.sub).toBe(`eip155:1:${wallet}`);
    expect(idToken.preferred_username).toBe(wallet);
  });

  it('EIP-6492: a wallet that is not deployed yet signs in, and stays undeployed', async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const counterfactual = await chain.counterfactualWallet(owner.address, 12n);
    const { idToken } = await signInAndGetClaims({
      signer: owner,
      address: counterfactual.address,
      wrapSignature: (signature) => chain.wrap6492(signature, counterfactual),
    });
    expect(idToken.sub).toBe(`eip155:1:${counterfactual.address}`);
    expect(await chain.publicClient.getCode({ address: counterfactual.address })).toBeUndefined();
  });

  it('refuses a contract wallet signature by someone other than the owner', async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const stranger = privateKeyToAccount(generatePrivateKey());
    const wallet = await chain.deployWallet(owner.address, 13n);
    const { url } = await pkceAuthorization(client);
    const jar = new CookieJar();
    const interactionUrl = await startInteraction(jar, url);
    const details = await getDetails(jar, interactionUrl);
    const message = messageFor(details, wallet);
    const response = await postSignature(jar, interactionUrl, { message, signature: await stranger.signMessage({ message }) });
    expect(response.status).toBe(401);
    expect((await response.json()).error).toBe('INVALID_SIGNATURE');
  });
});

describe('sign-ins that need the chain: ENS, on a real local node', () => {
  it('ENS: preferred_username is the name and picture the avatar, in the ID token and at /me', async () => {
    const alice = privateKeyToAccount(generatePrivateKey());
    await chain.setEnsName(alice.address, 'alice.eth', { avatar: avatar.url });
    const { idToken, userinfo } = await signInAndGetClaims({ signer: alice });
    expect(idToken).toMatchObject({ preferred_username: 'alice.eth', picture: avatar.url });
    expect(userinfo).toMatchObject({ sub: `eip155:1:${alice.address}`, preferred_username: 'alice.eth', picture: avatar.url });
  });

  it('ENS email: the text record of the primary name, unverified, only to a client registered with ens_email', async () => {
    const dana = privateKeyToAccount(generatePrivateKey());
    await chain.setEnsName(dana.address, 'dana.eth', { texts: { email: 'dana@example.org' } });
    const optedIn = await registerPublicClient(provider.url, { ens_email: true } as never);
    const { idToken, userinfo } = await signInAndGetClaims({ signer: dana }, 'openid profile email', optedIn);
    expect(idToken).toMatchObject({ preferred_username: 'dana.eth', email: 'dana@example.org', email_verified: false });
    expect(userinfo).toMatchObject({ email: 'dana@example.org', email_verified: false });
    const other = await signInAndGetClaims({ signer: dana }, 'openid profile email');
    expect(other.idToken).not.toHaveProperty('email');

    const junk = privateKeyToAccount(generatePrivateKey());
    await chain.setEnsName(junk.address, 'junk.eth', { texts: { email: 'not an address' } });
    const noEmail = await signInAndGetClaims({ signer: junk }, 'openid email', optedIn);
    expect(noEmail.idToken).not.toHaveProperty('email');
  });

  it('ENS email in the synthetic domain: an ENS record can never claim an address of the operator’s namespace', async () => {
    const both = await oidc.discovery(new URL(provider.url), 'mail-both', undefined, oidc.None(), insecure);
    const victim = privateKeyToAccount(generatePrivateKey());
    const victimEmail = (await signInAndGetClaims({ signer: victim }, 'openid email', both)).idToken.email;
    expect(victimEmail).toBe(`${victim.address.toLowerCase()}@wallet.example.com`);
    const mailbox = victim.address.toLowerCase();
    for (const [index, record] of [
      `${mailbox}@wallet.example.com`,
      `${mailbox}@WALLET.Example.COM`,
      `${mailbox}@wallet.example.com.`,
      `${mailbox}@eu.wallet.example.com`,
    ].entries()) {
      const attacker = privateKeyToAccount(generatePrivateKey());
      await chain.setEnsName(attacker.address, `mallory${index}.eth`, { texts: { email: record } });
      const { idToken, userinfo } = await signInAndGetClaims({ signer: attacker }, 'openid profile email', both);
      expect(idToken.preferred_username).toBe(`mallory${index}.eth`);
      expect({ record, email: idToken.email }).toEqual({ record, email: `${attacker.address.toLowerCase()}@wallet.example.com` });
      expect(userinfo.email).toBe(idToken.email);
    }
    // A record outside the namespace is the person's own, and is still used.
    const erin = privateKeyToAccount(generatePrivateKey());
    await chain.setEnsName(erin.address, 'erin.eth', { texts: { email: 'erin@wallet.example.org' } });
    expect((await signInAndGetClaims({ signer: erin }, 'openid email', both)).idToken.email).toBe('erin@wallet.example.org');
  });

  it('subject_chain "any" never merges a contract wallet across chains: it keeps the signed chain', async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const wallet = await chain.deployWallet(owner.address, 12n);
    const anyChain = await registerPublicClient(provider.url, { subject_chain: 'any' } as never);
    const { idToken } = await signInAndGetClaims({ signer: owner, address: wallet }, 'openid', anyChain);
    expect(idToken.sub).toBe(`eip155:1:${wallet}`);
    const eoa = await signInAndGetClaims({ signer: owner }, 'openid', anyChain);
    expect(eoa.idToken.sub).toBe(`eip155:0:${owner.address}`);
  });

  it('ENS: an address without a name gets its address and no picture', async () => {
    const nobody = privateKeyToAccount(generatePrivateKey());
    const { idToken, userinfo } = await signInAndGetClaims({ signer: nobody });
    expect(idToken.preferred_username).toBe(nobody.address);
    expect(idToken).not.toHaveProperty('picture');
    expect(userinfo).not.toHaveProperty('picture');
  });
});

describe('ENS avatars cannot make the provider request internal URLs (SSRF)', () => {
  it('an avatar record pointing at a loopback listener: no request reaches it, and picture holds no such URL', async () => {
    const chain = await startTestchain({ chainId: 1 });
    const hits: string[] = [];
    const listener = createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'image/png' }).end('x');
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as AddressInfo).port;
    const provider = await startTestProvider({ ETH_RPC_URL: chain.url, ENS_TIMEOUT_MS: '5000' });
    try {
      const client = await registerPublicClient(provider.url);
      const avatars = [
        `http://127.0.0.1:${port}/internal.png`,
        `https://127.0.0.1:${port}/internal.png`,
        `https://localhost:${port}/internal.png`,
        `https://[::ffff:127.0.0.1]:${port}/internal.png`,
      ];
      for (const [index, avatar] of avatars.entries()) {
        const user = privateKeyToAccount(generatePrivateKey());
        await chain.setEnsName(user.address, `victim${index}.eth`, { avatar });
        const { url, verifier } = await pkceAuthorization(client, { scope: 'openid profile' });
        const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer: user });
        const tokens = await oidc.authorizationCodeGrant(client, callbackUrl, { pkceCodeVerifier: verifier });
        const claims = tokens.claims() as Record<string, unknown>;
        expect(claims.preferred_username, avatar).toBe(`victim${index}.eth`);
        expect(claims, avatar).not.toHaveProperty('picture');
        const userinfo = await oidc.fetchUserInfo(client, tokens.access_token, String(claims.sub));
        expect(userinfo, avatar).not.toHaveProperty('picture');
      }
      expect(hits).toEqual([]);
    } finally {
      await provider.stop();
      await chain.stop();
      listener.close();
    }
  });
});

describe('a slow or dead RPC node never blocks or fails an EOA sign-in', () => {
  let slow: { url: string; server: Server };
  beforeAll(async () => {
    slow = await slowRpc();
  });
  afterAll(() => {
    slow?.server.closeAllConnections();
    slow?.server.close();
  });

  it.each([
    ['slow', () => slow.url],
    ['dead', () => 'http://127.0.0.1:1'],
  ])('%s ENS node: the sign-in completes promptly with the address as preferred_username', async (_kind, rpc) => {
    const provider = await startTestProvider({ ETH_RPC_URL: rpc(), ENS_TIMEOUT_MS: '300' });
    try {
      const client = await registerPublicClient(provider.url);
      const account = privateKeyToAccount(generatePrivateKey());
      const { url, verifier } = await pkceAuthorization(client, { scope: 'openid profile' });
      const started = Date.now();
      const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer: account });
      expect(Date.now() - started).toBeLessThan(3000);
      const tokens = await oidc.authorizationCodeGrant(client, callbackUrl, { pkceCodeVerifier: verifier });
      expect(tokens.claims()?.preferred_username).toBe(account.address);
    } finally {
      await provider.stop();
    }
  });

  it('a dead RPC node refuses a contract-wallet sign-in with RPC_UNAVAILABLE (503)', async () => {
    const chain = await startTestchain({ chainId: 1, ens: false });
    const owner = privateKeyToAccount(generatePrivateKey());
    const wallet = await chain.deployWallet(owner.address);
    const provider = await startTestProvider({ ETH_RPC_URL: chain.url, RPC_TIMEOUT_MS: '1000', ENS_TIMEOUT_MS: '300' });
    try {
      const client = await registerPublicClient(provider.url);
      const { url } = await pkceAuthorization(client);
      const jar = new CookieJar();
      const interactionUrl = await startInteraction(jar, url);
      const details = await getDetails(jar, interactionUrl);
      const message = messageFor(details, wallet);
      const signature = await owner.signMessage({ message });
      await chain.node.pause();
      const refused = await postSignature(jar, interactionUrl, { message, signature });
      expect(refused.status).toBe(503);
      expect((await refused.json()).error).toBe('RPC_UNAVAILABLE');
      // The node comes back: the same interaction accepts the same signature.
      await chain.node.resume();
      expect((await postSignature(jar, interactionUrl, { message, signature })).status).toBe(303);
    } finally {
      await provider.stop();
      await chain.stop();
    }
  });
});
