/**
 * Sign in with Solana through the provider over real HTTP: the interaction details, the whole
 * flow to openid-client on both profiles (subject, username, the `siwe` claims, pairwise), each
 * bad input with its code (nothing stored, the sign-in still usable), the clients' account
 * namespaces, gated clients, and that a Solana sign-in asks no RPC node anything.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { base58, base64 } from '@scure/base';
import { SOLANA_CHAIN_REFERENCES, verifySiwsSignature } from '@signet/siws';
import {
  CookieJar,
  getDetails,
  type InteractionDetails,
  insecure,
  messageFor,
  pkceAuthorization,
  postSignature,
  registerPublicClient,
  request,
  solanaKeypair,
  solanaMessageFor,
  solanaSignIn,
  startInteraction,
  startTestProvider,
  TEST_REDIRECT_URI,
  type TestProvider,
} from '@signet/testkit';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const minutes = (n: number) => n * 60_000;
const MAINNET = SOLANA_CHAIN_REFERENCES.mainnet;

/** A JSON-RPC "node" that only counts what it is asked: a Solana sign-in must ask it nothing. */
async function countingNode(): Promise<{ url: string; requests: () => number; server: Server }> {
  let count = 0;
  const server = createServer((_req, res) => {
    count++;
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end('{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"no"}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => count, server };
}

async function expectError(response: Response, status: number, error: string, description?: RegExp) {
  const body = (await response.json()) as { error: string; error_description: string };
  expect({ status: response.status, error: body.error }, body.error_description).toEqual({ status, error });
  if (description) expect(body.error_description).toMatch(description);
}

async function open(config: oidc.Configuration, extra: Record<string, string> = {}) {
  const { url, verifier } = await pkceAuthorization(config, { scope: 'openid profile siwe', ...extra });
  const jar = new CookieJar();
  const interactionUrl = await startInteraction(jar, url);
  const details = await getDetails(jar, interactionUrl);
  return { jar, interactionUrl, details, verifier };
}

const signedBy = (keypair: ReturnType<typeof solanaKeypair>, message: string) => ({
  message,
  signature: base58.encode(keypair.sign(message)),
});

/** A self-hosted provider with SOLANA_NETWORKS=mainnet,devnet, a counting node, a public client and an audit log. */
function selfHostedSolana() {
  let provider: TestProvider;
  let node: Awaited<ReturnType<typeof countingNode>>;
  let client: oidc.Configuration;

  const dir = mkdtempSync(join(tmpdir(), 'signet-solana-'));

  const auditFile = join(dir, 'audit.log');

  beforeAll(async () => {
    node = await countingNode();
    const clientsFile = join(dir, 'clients.json');
    // An operator's client with a synthetic e-mail domain (only CLIENTS_FILE or the CLI may set one).
    writeFileSync(
      clientsFile,
      JSON.stringify([
        {
          client_id: 'mail',
          redirect_uris: [TEST_REDIRECT_URI],
          token_endpoint_auth_method: 'none',
          synthetic_email_domain: 'wallet.example.com',
        },
      ]),
    );
    provider = await startTestProvider({
      SOLANA_NETWORKS: 'mainnet,devnet',
      // A chain-1 node for the gated client below; a Solana sign-in must never reach it.
      ETH_RPC_URL: node.url,
      ACCESS_CACHE_SECONDS: '0',
      CLIENTS_FILE: clientsFile,
      AUDIT_LOG: auditFile,
    });
    client = await registerPublicClient(provider.url, { client_name: 'Solana RP' });
  });
  afterAll(async () => {
    await provider?.stop();
    node?.server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The audit events written so far (the file is written asynchronously: poll for what you expect). */
  const audit = () =>
    readFileSync(auditFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  return {
    get provider() {
      return provider;
    },
    get node() {
      return node;
    },
    get client() {
      return client;
    },
    dir,
    auditFile,
    audit,
  };
}
type SelfHostedSolana = ReturnType<typeof selfHostedSolana>;

/** Sign-ins on each network. */
function solanaSignInTests(env: SelfHostedSolana) {
  it('the details name the namespaces and the networks; every Ethereum field is as before', async () => {
    const { provider, client } = env;
    const { details, interactionUrl } = await open(client);
    expect(details).toMatchObject({
      uid: interactionUrl.pathname.split('/')[2],
      nonce: Buffer.from(details.uid, 'utf8').toString('hex'),
      domain: new URL(provider.url).host,
      uri: provider.url,
      resources: [TEST_REDIRECT_URI],
      chainIds: [1],
      namespaces: ['eip155', 'solana'],
      solanaNetworks: ['mainnet', 'devnet'],
      scopes: ['openid', 'profile', 'siwe'],
    });
    expect(details.statement).toBe(`Sign in to Solana RP with ${new URL(provider.url).host}.`);
  });

  it('a Solana sign-in ends at openid-client: sub solana:<mainnet>:<address>, the address as username, the signed message and signature', async () => {
    const { provider, node, client } = env;
    const keypair = solanaKeypair();
    const before = node.requests();
    const { url, verifier } = await pkceAuthorization(client, { scope: 'openid profile siwe', state: 'st' });
    const { callbackUrl, message } = await solanaSignIn({ authorizationUrl: url, keypair });
    expect(message.split('\n')[0]).toBe(`${new URL(provider.url).host} wants you to sign in with your Solana account:`);
    const tokens = await oidc.authorizationCodeGrant(client, callbackUrl, { pkceCodeVerifier: verifier, expectedState: 'st' });
    const sub = `solana:${MAINNET}:${keypair.address}`;
    const idToken = tokens.claims();
    expect(idToken).toMatchObject({ sub, preferred_username: keypair.address, siwe_message: message });
    expect(idToken?.picture).toBeUndefined();
    const userinfo = await oidc.fetchUserInfo(client, tokens.access_token, sub);
    expect(userinfo).toMatchObject({ sub, preferred_username: keypair.address, siwe_message: message });
    // The signature claim is base58, and a relying party can check it against the message itself.
    expect(userinfo.siwe_signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/);
    expect(
      verifySiwsSignature({ message: userinfo.siwe_message as string, signature: userinfo.siwe_signature as string }),
    ).toMatchObject({ address: keypair.address, accountId: sub, method: 'ed25519' });
    // No RPC node, no ENS: nothing was asked.
    expect(node.requests()).toBe(before);
    const metrics = await (await fetch(`${provider.url}/metrics`)).text();
    expect(metrics).toMatch(/signet_sign_ins_total\{result="success",method="ed25519"\} [1-9]/);
    expect(metrics).toMatch(/signet_siwe_verification_seconds_count\{method="ed25519"\} [1-9]/);
  });

  it('devnet names its own reference; a base64 signature is taken too, and the claim carries it in base58', async () => {
    const { client } = env;
    const keypair = solanaKeypair();
    const { url, verifier } = await pkceAuthorization(client, { scope: 'openid siwe' });
    const { callbackUrl, message, signature } = await solanaSignIn({
      authorizationUrl: url,
      keypair,
      network: 'devnet',
      encoding: 'base64',
    });
    expect(signature).toMatch(/==$/);
    const tokens = await oidc.authorizationCodeGrant(client, callbackUrl, { pkceCodeVerifier: verifier });
    const claims = tokens.claims();
    expect(claims?.sub).toBe(`solana:${SOLANA_CHAIN_REFERENCES.devnet}:${keypair.address}`);
    expect(claims?.siwe_signature).toBe(base58.encode(base64.decode(signature)));
    expect(claims?.siwe_message).toBe(message);
  });
}

/** Refusals, and what the audit log says of them. */
function solanaRefusalTests(env: SelfHostedSolana) {
  it('every bad Solana submission has its own code; nothing is stored; the same sign-in then succeeds', async () => {
    const { provider, client } = env;
    const { jar, interactionUrl, details } = await open(client, { state: 'bad' });
    const keypair = solanaKeypair();
    const post = (body: { message: string; signature: string }) => postSignature(jar, interactionUrl, body);
    const messageWith = (overrides: Parameters<typeof solanaMessageFor>[2]) =>
      solanaMessageFor(details, keypair.address, overrides);
    const now = Date.now();
    const good = signedBy(keypair, messageWith({}));
    const { store } = provider.app.services;
    const stored = async () => ({
      grants: (await store.keys('oidc:Grant:')).length,
      signIns: (await store.keys('signin:')).length,
    });
    const before = await stored();

    // A message for another kind of account, by its first line.
    const cosmos = good.message.replace('your Solana account:', 'your Cosmos account:');
    await expectError(await post(signedBy(keypair, cosmos)), 400, 'WRONG_NAMESPACE', /Cosmos/);
    // Bitcoin is a namespace Signet knows, not offered here (BITCOIN_NETWORKS is empty).
    const bitcoin = good.message.replace('your Solana account:', 'your Bitcoin account:');
    await expectError(await post(signedBy(keypair, bitcoin)), 400, 'NAMESPACE_NOT_ALLOWED', /does not sign in Bitcoin accounts/);
    // A base58 address that is not 32 bytes (31 here), well formed otherwise.
    const short = good.message.replace(keypair.address, base58.encode(new Uint8Array(31).fill(7)));
    await expectError(await post(signedBy(keypair, short)), 400, 'INVALID_ADDRESS');
    // Signatures that are not 64 bytes, in either encoding, or not by the address's key.
    const bytes = keypair.sign(good.message);
    await expectError(
      await post({ ...good, signature: base58.encode(bytes.slice(0, 63)) }),
      401,
      'INVALID_SIGNATURE',
      /64 bytes/,
    );
    await expectError(await post({ ...good, signature: base64.encode(new Uint8Array([...bytes, 0])) }), 401, 'INVALID_SIGNATURE');
    await expectError(await post({ ...good, signature: `0x${Buffer.from(bytes).toString('hex')}` }), 401, 'INVALID_SIGNATURE');
    await expectError(await post(signedBy(solanaKeypair(), good.message)), 401, 'INVALID_SIGNATURE', /not made by/);

    // The binding rules, as for an Ethereum message.
    const cases: [Parameters<typeof solanaMessageFor>[2], string][] = [
      [{ nonce: 'aaaaaaaaaaaaaaaa' }, 'NONCE_MISMATCH'],
      [{ domain: 'evil.example.com' }, 'DOMAIN_MISMATCH'],
      [{ uri: 'https://evil.example.com/' }, 'URI_MISMATCH'],
      [{ network: 'testnet' }, 'CHAIN_NOT_ALLOWED'],
      [{ chainId: 'localnet' }, 'CHAIN_NOT_ALLOWED'],
      [{ chainId: undefined }, 'MISSING_FIELD'],
      [{ nonce: undefined }, 'MISSING_FIELD'],
      [{ issuedAt: undefined }, 'MISSING_FIELD'],
      [{ resources: undefined }, 'MISSING_FIELD'],
      [{ resources: ['https://evil.example.com/cb'] }, 'RESOURCE_MISMATCH'],
      [{ expirationTime: new Date(now - 1000) }, 'EXPIRED_MESSAGE'],
      [{ notBefore: new Date(now + minutes(5)) }, 'NOT_YET_VALID_MESSAGE'],
      [{ issuedAt: new Date(now + minutes(5)) }, 'ISSUED_IN_FUTURE'],
      [{ issuedAt: new Date(now - minutes(5)) }, 'MESSAGE_TOO_OLD'],
    ];
    for (const [overrides, error] of cases) {
      await expectError(await post(signedBy(keypair, messageWith(overrides))), 400, error);
    }
    // A wallet that signed another message than the one it was given, whatever it changed.
    const changed: [Parameters<typeof solanaMessageFor>[2], string][] = [
      [{ statement: 'Send all my tokens to a stranger.' }, 'statement'],
      [{ statement: undefined }, 'statement'],
      [{ uri: `${provider.url}/elsewhere` }, 'uri'],
      [{ version: undefined }, 'version'],
      [{ expirationTime: new Date(Date.parse(details.expiresAt) + minutes(60)) }, 'expirationTime'],
      [{ notBefore: new Date(now - 1000) }, 'notBefore'],
      [{ requestId: 'r-1' }, 'requestId'],
      [{ resources: [TEST_REDIRECT_URI, 'https://evil.example.com/'] }, 'resources'],
    ];
    for (const [overrides, field] of changed) {
      await expectError(
        await post(signedBy(keypair, messageWith(overrides))),
        400,
        'MESSAGE_MISMATCH',
        new RegExp(`its ${field} is`),
      );
    }

    // None of it issued or recorded anything, and the interaction is still usable (a form post, with a browser's CRLF).
    expect(await stored()).toEqual(before);
    const ok = await request(jar, interactionUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: new URLSearchParams({ message: good.message.replace(/\n/g, '\r\n'), signature: good.signature }).toString(),
    });
    expect(ok.status).toBe(303);
    expect(await stored()).toEqual({ grants: before.grants + 1, signIns: before.signIns + 1 });
    // The nonce is spent: the same signed message again is refused.
    await expectError(await post(good), 409, 'INTERACTION_COMPLETED');
  });

  it('audit: a Solana sign-in succeeds as solana:… with method ed25519; a refused one names the account it claims', async () => {
    const { client, auditFile, audit } = env;
    const keypair = solanaKeypair();
    const { url } = await pkceAuthorization(client, { scope: 'openid' });
    await solanaSignIn({ authorizationUrl: url, keypair });
    const account = `solana:${MAINNET}:${keypair.address}`;
    await expect
      .poll(() => audit().find((line) => line.event === 'sign_in.succeeded' && line.account === account))
      .toMatchObject({ method: 'ed25519', client_id: client.clientMetadata().client_id });

    const { jar, interactionUrl, details } = await open(client);
    const claimed = solanaKeypair();
    const message = solanaMessageFor(details, claimed.address);
    expect((await postSignature(jar, interactionUrl, signedBy(keypair, message))).status).toBe(401);
    await expect
      .poll(() =>
        audit().find((line) => line.event === 'sign_in.refused' && line.account === `solana:${MAINNET}:${claimed.address}`),
      )
      .toMatchObject({ reason: 'INVALID_SIGNATURE', account_verified: false });
    expect(readFileSync(auditFile, 'utf8')).not.toContain(base58.encode(keypair.sign(message)));
  });
}

/** Claims: the synthetic e-mail address, and subject_chain "any". */
function solanaEmailTests(env: SelfHostedSolana) {
  it('email: a synthetic address is the hex of the 32-byte key (base58 is case-sensitive); subject_chain "any" keeps the cluster', async () => {
    const { provider } = env;
    const keypair = solanaKeypair();
    const mail = await oidc.discovery(new URL(provider.url), 'mail', undefined, oidc.None(), insecure);
    const { url, verifier } = await pkceAuthorization(mail, { scope: 'openid email' });
    const { callbackUrl } = await solanaSignIn({ authorizationUrl: url, keypair });
    const claims = (await oidc.authorizationCodeGrant(mail, callbackUrl, { pkceCodeVerifier: verifier })).claims();
    expect(claims).toMatchObject({
      email: `${Buffer.from(keypair.publicKey).toString('hex')}@wallet.example.com`,
      email_verified: false,
    });

    const anyChain = await registerPublicClient(provider.url, { subject_chain: 'any' } as Partial<oidc.ClientMetadata>);
    const signIn = await pkceAuthorization(anyChain);
    const { callbackUrl: landed } = await solanaSignIn({ authorizationUrl: signIn.url, keypair });
    const tokens = await oidc.authorizationCodeGrant(anyChain, landed, { pkceCodeVerifier: signIn.verifier });
    expect(tokens.claims()?.sub).toBe(`solana:${MAINNET}:${keypair.address}`);
  });
}

/** account_namespaces at registration, update and sign-in. */
function solanaNamespaceTests(env: SelfHostedSolana) {
  it('account_namespaces: validated at registration and update; each client takes only what it allows', async () => {
    const { provider } = env;
    const register = (metadata: Record<string, unknown>) =>
      fetch(`${provider.url}/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [TEST_REDIRECT_URI], ...metadata }),
      });
    const refusals: [unknown, RegExp][] = [
      ['solana', /^account_namespaces: must be a non-empty array/],
      [[], /^account_namespaces: must be a non-empty array/],
      [['eip155', 'bitcoin'], /^account_namespaces\[1\]: "bitcoin" is not a namespace/],
      [['solana', 'solana'], /^account_namespaces\[1\]: solana is listed twice/],
    ];
    for (const [value, description] of refusals) {
      const response = await register({ account_namespaces: value });
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: string; error_description: string };
      expect(body.error).toBe('invalid_client_metadata');
      expect(body.error_description).toMatch(description);
    }
    const gatedSolana = await register({
      account_namespaces: ['solana'],
      access_conditions: { match: 'all', conditions: [{ type: 'native', chainId: 1, minimum: '1' }] },
    });
    expect(gatedSolana.status).toBe(400);
    expect(((await gatedSolana.json()) as { error_description: string }).error_description).toMatch(
      /a client with access_conditions must allow eip155/,
    );

    // A Solana-only client: its details offer Solana only, and an Ethereum message is refused unchecked.
    const created = await register({ account_namespaces: ['solana'], token_endpoint_auth_method: 'none' });
    expect(created.status).toBe(201);
    const registered = (await created.json()) as Record<string, unknown>;
    expect(registered.account_namespaces).toEqual(['solana']);
    const solanaOnly = await oidc.discovery(
      new URL(provider.url),
      registered.client_id as string,
      undefined,
      oidc.None(),
      insecure,
    );
    const a = await open(solanaOnly);
    expect(a.details.namespaces).toEqual(['solana']);
    expect(a.details.solanaNetworks).toEqual(['mainnet', 'devnet']);
    const account = privateKeyToAccount(generatePrivateKey());
    const ethereum = messageFor(a.details, account.address);
    await expectError(
      await postSignature(a.jar, a.interactionUrl, {
        message: ethereum,
        signature: await account.signMessage({ message: ethereum }),
      }),
      400,
      'NAMESPACE_NOT_ALLOWED',
      /takes Solana accounts only/,
    );
    const keypair = solanaKeypair();
    expect(
      (await postSignature(a.jar, a.interactionUrl, signedBy(keypair, solanaMessageFor(a.details, keypair.address)))).status,
    ).toBe(303);

    // Its management: an update is validated the same way; Ethereum-only then takes no Solana message.
    const manage = (metadata: Record<string, unknown>) =>
      fetch(registered.registration_client_uri as string, {
        method: 'PUT',
        headers: { authorization: `Bearer ${registered.registration_access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          client_id: registered.client_id,
          redirect_uris: [TEST_REDIRECT_URI],
          token_endpoint_auth_method: 'none',
          ...metadata,
        }),
      });
    expect((await manage({ account_namespaces: ['ethereum'] })).status).toBe(400);
    expect((await manage({ account_namespaces: ['eip155'] })).status).toBe(200);
    const b = await open(solanaOnly);
    expect(b.details.namespaces).toEqual(['eip155']);
    expect(b.details.solanaNetworks).toBeUndefined();
    await expectError(
      await postSignature(b.jar, b.interactionUrl, signedBy(keypair, solanaMessageFor(b.details, keypair.address))),
      400,
      'NAMESPACE_NOT_ALLOWED',
      /takes Ethereum accounts only/,
    );
  });
}

/** Gated clients take Ethereum accounts only. */
function solanaGatedClientTests(env: SelfHostedSolana) {
  it('a gated client takes Ethereum accounts only: a Solana message is refused (403) in words, and no RPC node is asked', async () => {
    const { provider, node } = env;
    const gated = await registerPublicClient(provider.url, {
      client_name: 'Holders',
      access_conditions: {
        match: 'all',
        conditions: [{ type: 'erc721', chainId: 1, contract: '0x00000000000000000000000000000000000000aa' }],
      },
    } as never);
    const { jar, interactionUrl, details } = await open(gated);
    expect(details.namespaces).toEqual(['eip155']);
    expect(details.solanaNetworks).toBeUndefined();
    const before = node.requests();
    const keypair = solanaKeypair();
    const message = solanaMessageFor({ ...details, solanaNetworks: ['mainnet'] } as InteractionDetails, keypair.address);
    await expectError(
      await postSignature(jar, interactionUrl, signedBy(keypair, message)),
      403,
      'ACCESS_CONDITION_NOT_MET',
      /admits only holders of a token of the ERC-721 collection .* which a Solana account cannot have/,
    );
    expect(node.requests()).toBe(before);
  });
}

describe('Sign in with Solana on the self-hosted profile (SOLANA_NETWORKS=mainnet,devnet)', () => {
  const env = selfHostedSolana();
  solanaSignInTests(env);
  solanaRefusalTests(env);
  solanaEmailTests(env);
  solanaNamespaceTests(env);
  solanaGatedClientTests(env);
});

/** A hosted provider with Solana on, a counting node, and how a confidential client registers and signs in. */
function hostedSolana() {
  let provider: TestProvider;
  let node: Awaited<ReturnType<typeof countingNode>>;

  const redirectUri = 'http://127.0.0.1:4999/cb';

  beforeAll(async () => {
    node = await countingNode();
    provider = await startTestProvider({ PROFILE: 'hosted', SOLANA_NETWORKS: 'mainnet', ETH_RPC_URL: node.url });
  });
  afterAll(async () => {
    await provider?.stop();
    node?.server.close();
  });

  async function registered(metadata: Record<string, unknown> = {}, uri = redirectUri) {
    const response = await fetch(`${provider.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [uri], ...metadata }),
    });
    const body = (await response.json()) as Record<string, string>;
    expect(response.status, JSON.stringify(body)).toBe(201);
    const config = await oidc.discovery(
      new URL(provider.url),
      body.client_id as string,
      body.client_secret,
      oidc.ClientSecretBasic(),
      insecure,
    );
    return { body, config };
  }

  const signIn = async (
    config: oidc.Configuration,
    keypair: ReturnType<typeof solanaKeypair>,
    uri = redirectUri,
    jar?: CookieJar,
  ) => {
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: uri, scope: 'openid profile siwe' });
    const { callbackUrl } = await solanaSignIn({ authorizationUrl: url, keypair, jar });
    return oidc.authorizationCodeGrant(config, callbackUrl);
  };

  return {
    get provider() {
      return provider;
    },
    get node() {
      return node;
    },
    redirectUri,
    registered,
    signIn,
  };
}
type HostedSolana = ReturnType<typeof hostedSolana>;

/** Subjects: public and pairwise. */
function hostedSolanaSubjectTests(env: HostedSolana) {
  it('client_secret_basic: the subject is the Solana account id (hosted issuer, ID token and userinfo)', async () => {
    const { provider, registered, signIn } = env;
    const { config } = await registered();
    const keypair = solanaKeypair();
    const tokens = await signIn(config, keypair);
    const sub = `solana:${MAINNET}:${keypair.address}`;
    expect(decodeJwt(tokens.id_token as string)).toMatchObject({
      sub,
      iss: provider.issuer,
      preferred_username: keypair.address,
    });
    expect(await oidc.fetchUserInfo(config, tokens.access_token, sub)).toMatchObject({
      sub,
      preferred_username: keypair.address,
    });
  });

  it('pairwise: opaque, stable within a sector, different across sectors; no claim carries the address', async () => {
    const { registered, signIn } = env;
    const keypair = solanaKeypair();
    const subOf = async (uri: string) => {
      const { config } = await registered({ subject_type: 'pairwise' }, uri);
      const tokens = await signIn(config, keypair, uri);
      const idToken = decodeJwt(tokens.id_token as string);
      const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub as string);
      expect(JSON.stringify({ idToken, userinfo })).not.toContain(keypair.address);
      expect(userinfo.siwe_message).toBeUndefined();
      return idToken.sub as string;
    };
    const a1 = await subOf('http://127.0.0.1:4999/a');
    const a2 = await subOf('http://127.0.0.1:4999/b');
    const b = await subOf('http://localhost:4999/c');
    expect(a1).toBe(a2);
    expect(a1).not.toBe(b);
    expect(a1).not.toMatch(/^solana:/);
  });
}

/** Refresh and silent sign-ins, ungated and gated afterwards. */
function hostedSolanaRefreshTests(env: HostedSolana) {
  it('an ungated client: a Solana account refreshes its tokens, and a live session gets a silent code (prompt=none)', async () => {
    const { redirectUri, registered, signIn } = env;
    const { config } = await registered({ grant_types: ['authorization_code', 'refresh_token'] });
    const keypair = solanaKeypair();
    const jar = new CookieJar();
    const tokens = await signIn(config, keypair, redirectUri, jar);
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
    expect(refreshed.claims()?.sub).toBe(`solana:${MAINNET}:${keypair.address}`);
    const silent = await request(
      jar,
      oidc.buildAuthorizationUrl(config, { redirect_uri: redirectUri, scope: 'openid', prompt: 'none' }),
    );
    expect(silent.status).toBe(303);
    expect(new URL(silent.headers.get('location') as string).searchParams.get('code')).toBeTruthy();
  });

  it('a client gated after a Solana sign-in: the refresh is refused and revoked, prompt=none answers login_required; nothing crashes, no RPC call', async () => {
    const { node, redirectUri, registered, signIn } = env;
    const { body, config } = await registered({ grant_types: ['authorization_code', 'refresh_token'] });
    const keypair = solanaKeypair();
    const jar = new CookieJar();
    const tokens = await signIn(config, keypair, redirectUri, jar);
    expect(tokens.refresh_token).toBeTruthy();
    const updated = await fetch(body.registration_client_uri as string, {
      method: 'PUT',
      headers: { authorization: `Bearer ${body.registration_access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        client_id: body.client_id,
        client_secret: body.client_secret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        access_conditions: { match: 'all', conditions: [{ type: 'native', chainId: 1, minimum: '1' }] },
      }),
    });
    expect(updated.status).toBe(200);
    const before = node.requests();

    const silent = await request(
      jar,
      oidc.buildAuthorizationUrl(config, { redirect_uri: redirectUri, scope: 'openid', prompt: 'none' }),
    );
    expect(silent.status).toBe(303);
    expect(new URL(silent.headers.get('location') as string).searchParams.get('error')).toBe('login_required');

    const refused = await oidc.refreshTokenGrant(config, tokens.refresh_token as string).then(
      () => undefined,
      (error: { error?: string; error_description?: string }) => error,
    );
    expect(refused?.error).toBe('invalid_grant');
    expect(refused?.error_description).toMatch(/^ACCESS_CONDITION_NOT_MET: /);
    await expect(oidc.fetchUserInfo(config, tokens.access_token, `solana:${MAINNET}:${keypair.address}`)).rejects.toMatchObject({
      status: 401,
    });
    expect(node.requests()).toBe(before);
  });
}

describe('Sign in with Solana on the hosted profile: confidential clients, pairwise subjects, refresh', () => {
  const env = hostedSolana();
  hostedSolanaSubjectTests(env);
  hostedSolanaRefreshTests(env);
});

describe('Solana off (the default): nothing changes for Ethereum, and a Solana message is refused', () => {
  let provider: TestProvider;
  beforeAll(async () => {
    provider = await startTestProvider();
  });
  afterAll(() => provider?.stop());

  it('details offer Ethereum only; a Solana message is NAMESPACE_NOT_ALLOWED; registering for Solana is refused', async () => {
    const client = await registerPublicClient(provider.url);
    const { details, jar, interactionUrl } = await open(client);
    expect(details.namespaces).toEqual(['eip155']);
    expect(details.solanaNetworks).toBeUndefined();
    const keypair = solanaKeypair();
    const message = solanaMessageFor({ ...details, solanaNetworks: ['mainnet'] }, keypair.address);
    await expectError(
      await postSignature(jar, interactionUrl, signedBy(keypair, message)),
      400,
      'NAMESPACE_NOT_ALLOWED',
      /does not sign in Solana accounts/,
    );
    const response = await fetch(`${provider.url}/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [TEST_REDIRECT_URI], account_namespaces: ['eip155', 'solana'] }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error_description: string }).error_description).toMatch(
      /^account_namespaces\[1\]: this provider does not offer Solana accounts \(SOLANA_NETWORKS is empty\)/,
    );
    // The page still says Ethereum, as before.
    const page = await (await request(jar, interactionUrl, { headers: { accept: 'text/html' } })).text();
    expect(page).toContain('wants you to sign in with Ethereum</h1>');
    expect(page).toContain('your Ethereum address (as your account id)');
  });
});
