/**
 * Sign in with Bitcoin through the provider over real HTTP: the interaction details, every address
 * type to openid-client on both profiles (subject, username, the `siwe` claims, pairwise, refresh),
 * each bad submission with its typed code and never a 5xx (nothing stored, the sign-in still
 * usable), replay, the clients' account namespaces, gated clients, synthetic e-mail, and that a
 * Bitcoin sign-in asks no node anything. Signatures are made by `@signet/siwb`'s test signer
 * (@scure/btc-signer's own signing), through the testkit's Bitcoin key.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BITCOIN_CHAIN_REFERENCES, verifySiwbSignature } from '@signet/siwb';
import {
  type BitcoinAddressKind,
  bitcoinKey,
  bitcoinMessageFor,
  bitcoinSignIn,
  CookieJar,
  getDetails,
  type InteractionDetails,
  insecure,
  messageFor,
  pkceAuthorization,
  postSignature,
  registerPublicClient,
  request,
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
const MAINNET = BITCOIN_CHAIN_REFERENCES.mainnet;
const SIGNET = BITCOIN_CHAIN_REFERENCES.signet;
/** The address types that sign in, each with its signature: BIP-322 for segwit and Taproot, BIP-137 for P2PKH. */
const ADDRESS_TYPES: [BitcoinAddressKind, string][] = [
  ['p2wpkh', 'bip322-simple'],
  ['p2tr', 'bip322-simple'],
  ['p2sh-p2wpkh', 'bip322-simple'],
  ['p2pkh', 'bip137'],
];

/** A JSON-RPC "node" that only counts what it is asked: a Bitcoin sign-in must ask it nothing. */
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

// Witness stacks and DER signatures, written out by hand for the tampering below (BIP-141's
// serialization: a count, then each item's length and bytes; everything here is under 253 bytes).
const witnessOf = (signature: string): Uint8Array[] => {
  const bytes = Buffer.from(signature, 'base64');
  const items: Uint8Array[] = [];
  let at = 1;
  for (let i = 0; i < (bytes[0] as number); i++) {
    const length = bytes[at] as number;
    items.push(bytes.subarray(at + 1, at + 1 + length));
    at += 1 + length;
  }
  return items;
};
const asWitness = (items: Uint8Array[]) =>
  Buffer.from([items.length, ...items.flatMap((item) => [item.length, ...item])]).toString('base64');
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
/** The same ECDSA signature with S flipped to n − S (valid arithmetic, but high S), re-encoded as DER. */
function highS(derWithHashType: Uint8Array): Uint8Array {
  const rLength = derWithHashType[3] as number;
  const r = derWithHashType.subarray(4, 4 + rLength);
  const sLength = derWithHashType[5 + rLength] as number;
  const s = BigInt(`0x${Buffer.from(derWithHashType.subarray(6 + rLength, 6 + rLength + sLength)).toString('hex')}`);
  let hex = (N - s).toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  const flipped = [...Buffer.from(hex, 'hex')];
  if ((flipped[0] as number) >= 0x80) flipped.unshift(0);
  const body = [0x02, rLength, ...r, 0x02, flipped.length, ...flipped];
  return Uint8Array.from([0x30, body.length, ...body, derWithHashType.at(-1) as number]);
}

/** One interaction's refusals: a key, its well-formed submission, and a poster that checks each refusal and keeps its status. */
type Submissions = {
  key: ReturnType<typeof bitcoinKey>;
  p2wpkh: string;
  good: { message: string; signature: string };
  /** Each message built once: a second build may carry a later Issued At. */
  p2trMessage: string;
  p2pkhMessage: string;
  messageOf: (address: string, overrides?: Parameters<typeof bitcoinMessageFor>[2]) => string;
  post: (body: { message: string; signature: string }) => Promise<Response>;
  refused: (body: { message: string; signature: string }, status: number, error: string, words?: RegExp) => Promise<void>;
  statuses: number[];
  details: InteractionDetails;
  now: number;
};

/** Signatures of the wrong type, non-canonical, malformed, oversized, or by another key. */
async function refuseBadSignatures({ key, good, p2trMessage, p2pkhMessage, post, refused, statuses }: Submissions) {
  // A signature for another address type than the address: the same key's Taproot signature for its bc1q address.
  await refused({ message: good.message, signature: key.sign('p2tr', good.message) }, 400, 'SIGNATURE_TYPE_MISMATCH');
  // ... an ECDSA witness for its bc1p address, BIP-322 for its P2PKH address.
  await refused({ message: p2trMessage, signature: key.sign('p2wpkh', p2trMessage) }, 400, 'SIGNATURE_TYPE_MISMATCH');
  await refused({ message: p2pkhMessage, signature: key.sign('p2wpkh', p2pkhMessage) }, 400, 'SIGNATURE_TYPE_MISMATCH');
  // A BIP-137 signature for a segwit address, and a BIP-137 header that lies about the address type (35–42: segwit).
  const legacy = Buffer.from(key.sign('p2pkh', good.message), 'base64');
  await refused({ ...good, signature: legacy.toString('base64') }, 400, 'SIGNATURE_TYPE_MISMATCH');
  const lying = Buffer.from(key.sign('p2pkh', p2pkhMessage), 'base64');
  lying[0] = (lying[0] as number) + 8; // 31–34 (P2PKH, compressed) → 39–42 (P2WPKH)
  await refused({ message: p2pkhMessage, signature: lying.toString('base64') }, 400, 'SIGNATURE_TYPE_MISMATCH');
  // A high-S ECDSA signature (valid arithmetic), and BER where DER belongs.
  const [sig, pub] = witnessOf(good.signature) as [Uint8Array, Uint8Array];
  await refused({ ...good, signature: asWitness([highS(sig), pub]) }, 400, 'NON_CANONICAL_SIGNATURE');
  const ber = Uint8Array.from([0x30, (sig[1] as number) + 1, 0x02, (sig[3] as number) + 1, 0x00, ...sig.subarray(4)]);
  await refused({ ...good, signature: asWitness([ber, pub]) }, 400, 'NON_CANONICAL_SIGNATURE');
  // A witness with an extra item, or one missing; a Taproot annex.
  await refused({ ...good, signature: asWitness([sig, pub, new Uint8Array([1])]) }, 400, 'MALFORMED_SIGNATURE');
  await refused({ ...good, signature: asWitness([sig]) }, 400, 'MALFORMED_SIGNATURE');
  const [schnorr] = witnessOf(key.sign('p2tr', p2trMessage)) as [Uint8Array];
  await refused(
    { message: p2trMessage, signature: asWitness([schnorr, Uint8Array.from([0x50, 1])]) },
    400,
    'MALFORMED_SIGNATURE',
  );
  // A Taproot signature with a hash type that signs less than everything.
  await refused(
    { message: p2trMessage, signature: asWitness([Uint8Array.from([...schnorr, 0x02])]) },
    400,
    'UNSUPPORTED_SIGHASH',
  );
  // Oversized: a signature over 400 characters (refused before decoding), a body over the limit, not base64, hex.
  await refused({ ...good, signature: 'A'.repeat(404) }, 400, 'MALFORMED_SIGNATURE');
  await refused({ ...good, signature: asWitness([sig, pub, ...Array(20).fill(new Uint8Array(30))]) }, 400, 'MALFORMED_SIGNATURE');
  await refused({ ...good, signature: `0x${Buffer.from(sig).toString('hex')}` }, 400, 'MALFORMED_SIGNATURE');
  // Base64 whose length is not a multiple of 4 (unpadded or cut short).
  await refused({ ...good, signature: good.signature.slice(0, -1) }, 400, 'MALFORMED_SIGNATURE');
  const huge = await post({ ...good, signature: 'A'.repeat(200_000) });
  statuses.push(huge.status);
  await expectError(huge, 413, 'PAYLOAD_TOO_LARGE');
  // Signed by another key: 401.
  await refused({ ...good, signature: bitcoinKey().sign('p2wpkh', good.message) }, 401, 'INVALID_SIGNATURE');
}

/** A test address on mainnet, a bech32 address in upper case, a P2WSH (script) address. */
async function refuseBadAddresses({ key, p2wpkh, good, refused }: Submissions) {
  const testAddress = key.address('p2wpkh', 'testnet');
  await refused(
    { message: good.message.replace(p2wpkh, testAddress), signature: key.sign('p2wpkh', good.message, { network: 'testnet' }) },
    400,
    'NETWORK_MISMATCH',
  );
  await refused({ ...good, message: good.message.replace(p2wpkh, p2wpkh.toUpperCase()) }, 400, 'INVALID_ADDRESS');
  await refused(
    { ...good, message: good.message.replace(p2wpkh, 'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3') },
    400,
    'UNSUPPORTED_ADDRESS_TYPE',
  );
}

/** The binding rules, as for an Ethereum message; another chain; a message that changes what the details give; not SIWB. */
async function refuseBrokenBindings({ key, p2wpkh, good, messageOf, refused, details, now }: Submissions) {
  const testAddress = key.address('p2wpkh', 'testnet');
  // The binding rules, as for an Ethereum message: another nonce, domain, URI, network, resource, times.
  const cases: [Parameters<typeof bitcoinMessageFor>[2], string][] = [
    [{ nonce: 'aaaaaaaaaaaaaaaa' }, 'NONCE_MISMATCH'],
    [{ domain: 'evil.example.com' }, 'DOMAIN_MISMATCH'],
    [{ uri: 'https://evil.example.com/' }, 'URI_MISMATCH'],
    [{ resources: ['https://evil.example.com/cb'] }, 'RESOURCE_MISMATCH'],
    [{ expirationTime: new Date(now - 1000) }, 'EXPIRED_MESSAGE'],
    [{ notBefore: new Date(now + minutes(5)) }, 'NOT_YET_VALID_MESSAGE'],
    [{ issuedAt: new Date(now + minutes(5)) }, 'ISSUED_IN_FUTURE'],
    [{ issuedAt: new Date(now - minutes(5)) }, 'MESSAGE_TOO_OLD'],
  ];
  for (const [overrides, error] of cases) {
    const message = messageOf(p2wpkh, overrides);
    await refused({ message, signature: key.sign('p2wpkh', message) }, 400, error);
  }
  // Another chain: testnet (not offered here), with its own address and a valid signature.
  const testnet = messageOf(testAddress, { network: 'testnet' });
  await refused({ message: testnet, signature: key.sign('p2wpkh', testnet, { network: 'testnet' }) }, 400, 'CHAIN_NOT_ALLOWED');
  // A message that changes what the details give (a statement of its own, a Request ID), validly signed.
  for (const [overrides, field] of [
    [{ statement: 'Send all my coins to a stranger.' }, 'statement'],
    [{ requestId: 'r-1' }, 'requestId'],
    [{ expirationTime: new Date(Date.parse(details.expiresAt) + minutes(60)) }, 'expirationTime'],
  ] as const) {
    const message = messageOf(p2wpkh, overrides);
    await refused({ message, signature: key.sign('p2wpkh', message) }, 400, 'MESSAGE_MISMATCH', new RegExp(`its ${field} is`));
  }
  // Not a SIWB message at all (a line missing), with a Bitcoin first line.
  await refused({ ...good, message: good.message.replace(/\nVersion: 1/, '') }, 400, 'UNABLE_TO_PARSE');
}

/** A self-hosted provider with BITCOIN_NETWORKS=mainnet,signet, a counting chain-1 node, a public client and an audit log. */
function selfHostedBitcoin() {
  let provider: TestProvider;
  let node: Awaited<ReturnType<typeof countingNode>>;
  let client: oidc.Configuration;

  const dir = mkdtempSync(join(tmpdir(), 'signet-bitcoin-'));

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
      BITCOIN_NETWORKS: 'mainnet,signet',
      // A chain-1 node for the gated client below; a Bitcoin sign-in must never reach it.
      ETH_RPC_URL: node.url,
      ACCESS_CACHE_SECONDS: '0',
      CLIENTS_FILE: clientsFile,
      AUDIT_LOG: auditFile,
    });
    client = await registerPublicClient(provider.url, { client_name: 'Bitcoin RP' });
  });
  afterAll(async () => {
    await provider?.stop();
    node?.server.close();
    rmSync(dir, { recursive: true, force: true });
  });

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
type SelfHostedBitcoin = ReturnType<typeof selfHostedBitcoin>;

/** Sign-ins with each address type and network. */
function bitcoinSignInTests(env: SelfHostedBitcoin) {
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
      namespaces: ['eip155', 'bip122'],
      bitcoinNetworks: ['mainnet', 'signet'],
      scopes: ['openid', 'profile', 'siwe'],
    });
    expect(details.solanaNetworks).toBeUndefined();
  });

  for (const [type, method] of ADDRESS_TYPES) {
    it(`${type} (${method}) ends at openid-client: sub bip122:<mainnet>:<address>, the address as username, the signed message and signature`, async () => {
      const { provider, node, client } = env;
      const key = bitcoinKey();
      const before = node.requests();
      const { url, verifier } = await pkceAuthorization(client, { scope: 'openid profile siwe', state: 'st' });
      const { callbackUrl, message, address, signature } = await bitcoinSignIn({ authorizationUrl: url, key, type });
      expect(message.split('\n')[0]).toBe(`${new URL(provider.url).host} wants you to sign in with your Bitcoin account:`);
      expect(message).toContain(`\nChain ID: ${MAINNET}\n`);
      const tokens = await oidc.authorizationCodeGrant(client, callbackUrl, { pkceCodeVerifier: verifier, expectedState: 'st' });
      const sub = `bip122:${MAINNET}:${address}`;
      expect(tokens.claims()).toMatchObject({
        sub,
        preferred_username: address,
        siwe_message: message,
        siwe_signature: signature,
      });
      expect(tokens.claims()?.picture).toBeUndefined();
      const userinfo = await oidc.fetchUserInfo(client, tokens.access_token, sub);
      expect(userinfo).toMatchObject({ sub, preferred_username: address, siwe_message: message });
      // A relying party can check the signature claim against the message itself.
      expect(
        verifySiwbSignature({ message: userinfo.siwe_message as string, signature: userinfo.siwe_signature as string }),
      ).toMatchObject({ address, accountId: sub, method });
      expect(node.requests()).toBe(before);
    });
  }

  it('signet names its own reference; a full BIP-322 signature (the single-input template) is taken too; metrics count the method', async () => {
    const { provider, client } = env;
    const key = bitcoinKey();
    const { url, verifier } = await pkceAuthorization(client, { scope: 'openid' });
    const { callbackUrl, address } = await bitcoinSignIn({
      authorizationUrl: url,
      key,
      type: 'p2tr',
      network: 'signet',
      form: 'full',
    });
    expect(address).toMatch(/^tb1p/);
    const tokens = await oidc.authorizationCodeGrant(client, callbackUrl, { pkceCodeVerifier: verifier });
    expect(tokens.claims()?.sub).toBe(`bip122:${SIGNET}:${address}`);
    const metrics = await (await fetch(`${provider.url}/metrics`)).text();
    expect(metrics).toMatch(/signet_sign_ins_total\{result="success",method="bip322-full"\} [1-9]/);
    expect(metrics).toMatch(/signet_sign_ins_total\{result="success",method="bip137"\} [1-9]/);
    expect(metrics).toMatch(/signet_siwe_verification_seconds_count\{method="bip322-simple"\} [1-9]/);
  });
}

/** Refusals, and what the audit log says of them. */
function bitcoinRefusalTests(env: SelfHostedBitcoin) {
  it('every bad Bitcoin submission has its own typed code and never a 5xx; nothing is stored; the same sign-in then succeeds', async () => {
    const { provider, client } = env;
    const { jar, interactionUrl, details } = await open(client, { state: 'bad' });
    const key = bitcoinKey();
    const post = (body: { message: string; signature: string }) => postSignature(jar, interactionUrl, body);
    const p2wpkh = key.address('p2wpkh');
    const p2tr = key.address('p2tr');
    const p2pkh = key.address('p2pkh');
    const messageOf = (address: string, overrides: Parameters<typeof bitcoinMessageFor>[2] = {}) =>
      bitcoinMessageFor(details, address, overrides);
    const now = Date.now();
    const goodMessage = messageOf(p2wpkh);
    const good = { message: goodMessage, signature: key.sign('p2wpkh', goodMessage) };
    // Each message built once: a second build may carry a later Issued At.
    const p2trMessage = messageOf(p2tr);
    const p2pkhMessage = messageOf(p2pkh);
    const { store } = provider.app.services;
    const stored = async () => ({
      grants: (await store.keys('oidc:Grant:')).length,
      signIns: (await store.keys('signin:')).length,
    });
    const before = await stored();
    const statuses: number[] = [];
    const refused = async (body: { message: string; signature: string }, status: number, error: string, words?: RegExp) => {
      const response = await post(body);
      statuses.push(response.status);
      await expectError(response, status, error, words);
    };

    const submissions: Submissions = {
      key,
      p2wpkh,
      good,
      p2trMessage,
      p2pkhMessage,
      messageOf,
      post,
      refused,
      statuses,
      details,
      now,
    };
    await refuseBadSignatures(submissions);
    await refuseBadAddresses(submissions);
    await refuseBrokenBindings(submissions);

    expect(statuses.every((status) => status < 500)).toBe(true);
    // None of it issued or recorded anything, and the interaction is still usable (a form post, with a browser's CRLF).
    expect(await stored()).toEqual(before);
    const ok = await request(jar, interactionUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: new URLSearchParams({ message: good.message.replace(/\n/g, '\r\n'), signature: good.signature }).toString(),
    });
    expect(ok.status).toBe(303);
    expect(await stored()).toEqual({ grants: before.grants + 1, signIns: before.signIns + 1 });
    // Replay: the same signed message again here is refused; at another sign-in its nonce is another's.
    await expectError(await post(good), 409, 'INTERACTION_COMPLETED');
    const other = await open(client);
    await expectError(await postSignature(other.jar, other.interactionUrl, good), 400, 'NONCE_MISMATCH');
  });

  it('audit: a Bitcoin sign-in succeeds as bip122:… with its method; a refused one names the account it claims, never the signature', async () => {
    const { client, auditFile, audit } = env;
    const key = bitcoinKey();
    const { url } = await pkceAuthorization(client, { scope: 'openid' });
    const { address } = await bitcoinSignIn({ authorizationUrl: url, key, type: 'p2tr' });
    const account = `bip122:${MAINNET}:${address}`;
    await expect
      .poll(() => audit().find((line) => line.event === 'sign_in.succeeded' && line.account === account))
      .toMatchObject({ method: 'bip322-simple', client_id: client.clientMetadata().client_id });

    const { jar, interactionUrl, details } = await open(client);
    const claimed = bitcoinKey().address('p2wpkh');
    const message = bitcoinMessageFor(details, claimed);
    const signature = key.sign('p2wpkh', message);
    expect((await postSignature(jar, interactionUrl, { message, signature })).status).toBe(401);
    await expect
      .poll(() => audit().find((line) => line.event === 'sign_in.refused' && line.account === `bip122:${MAINNET}:${claimed}`))
      .toMatchObject({ reason: 'INVALID_SIGNATURE', account_verified: false });
    expect(readFileSync(auditFile, 'utf8')).not.toContain(signature);
  });
}

/** Claims (email), account_namespaces and gated clients. */
function bitcoinClaimAndClientTests(env: SelfHostedBitcoin) {
  it('email: bech32 in lower case, a base58 address as the hex of its version byte and hash (base58 is case-sensitive)', async () => {
    const { provider } = env;
    const mail = await oidc.discovery(new URL(provider.url), 'mail', undefined, oidc.None(), insecure);
    const key = bitcoinKey();
    for (const [type, mailbox] of [
      ['p2tr', (address: string) => address],
      ['p2pkh', () => /^00[0-9a-f]{40}$/],
      ['p2sh-p2wpkh', () => /^05[0-9a-f]{40}$/],
    ] as const) {
      const { url, verifier } = await pkceAuthorization(mail, { scope: 'openid email' });
      const { callbackUrl, address } = await bitcoinSignIn({ authorizationUrl: url, key, type });
      const claims = (await oidc.authorizationCodeGrant(mail, callbackUrl, { pkceCodeVerifier: verifier })).claims();
      expect(claims?.email_verified).toBe(false);
      const [local, domain] = String(claims?.email).split('@') as [string, string];
      expect(domain).toBe('wallet.example.com');
      const want = mailbox(address);
      if (typeof want === 'string') expect(local).toBe(want);
      else expect(local).toMatch(want);
    }
  });

  it('account_namespaces: bip122 accepted at registration; a Bitcoin-only client refuses an Ethereum message, an Ethereum-only one a Bitcoin message', async () => {
    const { provider } = env;
    const register = (metadata: Record<string, unknown>) =>
      fetch(`${provider.url}/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [TEST_REDIRECT_URI], ...metadata }),
      });
    // Solana is not offered here: registering for it is refused, naming its setting.
    const solana = await register({ account_namespaces: ['bip122', 'solana'] });
    expect(solana.status).toBe(400);
    expect(((await solana.json()) as { error_description: string }).error_description).toMatch(
      /^account_namespaces\[1\]: this provider does not offer Solana accounts \(SOLANA_NETWORKS is empty\)/,
    );
    const gatedBitcoin = await register({
      account_namespaces: ['bip122'],
      access_conditions: { match: 'all', conditions: [{ type: 'native', chainId: 1, minimum: '1' }] },
    });
    expect(gatedBitcoin.status).toBe(400);

    const created = await register({ account_namespaces: ['bip122'], token_endpoint_auth_method: 'none' });
    expect(created.status).toBe(201);
    const registered = (await created.json()) as Record<string, unknown>;
    expect(registered.account_namespaces).toEqual(['bip122']);
    const bitcoinOnly = await oidc.discovery(
      new URL(provider.url),
      registered.client_id as string,
      undefined,
      oidc.None(),
      insecure,
    );
    const a = await open(bitcoinOnly);
    expect(a.details.namespaces).toEqual(['bip122']);
    expect(a.details.bitcoinNetworks).toEqual(['mainnet', 'signet']);
    const account = privateKeyToAccount(generatePrivateKey());
    const ethereum = messageFor(a.details, account.address);
    await expectError(
      await postSignature(a.jar, a.interactionUrl, {
        message: ethereum,
        signature: await account.signMessage({ message: ethereum }),
      }),
      400,
      'NAMESPACE_NOT_ALLOWED',
      /takes Bitcoin accounts only/,
    );
    const key = bitcoinKey();
    const message = bitcoinMessageFor(a.details, key.address('p2wpkh'));
    expect((await postSignature(a.jar, a.interactionUrl, { message, signature: key.sign('p2wpkh', message) })).status).toBe(303);

    const ethereumOnly = await registerPublicClient(provider.url, {
      account_namespaces: ['eip155'],
    } as Partial<oidc.ClientMetadata>);
    const b = await open(ethereumOnly);
    expect(b.details.namespaces).toEqual(['eip155']);
    expect(b.details.bitcoinNetworks).toBeUndefined();
    const refusedMessage = bitcoinMessageFor({ ...b.details, bitcoinNetworks: ['mainnet'] }, key.address('p2wpkh'));
    await expectError(
      await postSignature(b.jar, b.interactionUrl, { message: refusedMessage, signature: key.sign('p2wpkh', refusedMessage) }),
      400,
      'NAMESPACE_NOT_ALLOWED',
      /takes Ethereum accounts only/,
    );
  });

  it('a gated client takes Ethereum accounts only: a Bitcoin message is refused (403) in words, and no node is asked', async () => {
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
    expect(details.bitcoinNetworks).toBeUndefined();
    const before = node.requests();
    const key = bitcoinKey();
    const message = bitcoinMessageFor({ ...details, bitcoinNetworks: ['mainnet'] } as InteractionDetails, key.address('p2tr'));
    await expectError(
      await postSignature(jar, interactionUrl, { message, signature: key.sign('p2tr', message) }),
      403,
      'ACCESS_CONDITION_NOT_MET',
      /admits only holders of a token of the ERC-721 collection .* which a Bitcoin account cannot have/,
    );
    expect(node.requests()).toBe(before);
  });
}

describe('Sign in with Bitcoin on the self-hosted profile (BITCOIN_NETWORKS=mainnet,signet)', () => {
  const env = selfHostedBitcoin();
  bitcoinSignInTests(env);
  bitcoinRefusalTests(env);
  bitcoinClaimAndClientTests(env);
});

describe('Sign in with Bitcoin on the hosted profile: confidential clients, pairwise subjects, refresh', () => {
  let provider: TestProvider;
  let node: Awaited<ReturnType<typeof countingNode>>;
  const redirectUri = 'http://127.0.0.1:4999/cb';

  beforeAll(async () => {
    node = await countingNode();
    provider = await startTestProvider({ PROFILE: 'hosted', BITCOIN_NETWORKS: 'mainnet', ETH_RPC_URL: node.url });
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
    key: ReturnType<typeof bitcoinKey>,
    type: BitcoinAddressKind,
    uri = redirectUri,
    jar?: CookieJar,
  ) => {
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: uri, scope: 'openid profile siwe' });
    const { callbackUrl, address } = await bitcoinSignIn({ authorizationUrl: url, key, type, jar });
    return { tokens: await oidc.authorizationCodeGrant(config, callbackUrl), address };
  };

  it('client_secret_basic: every address type’s subject is its Bitcoin account id (hosted issuer, ID token and userinfo)', async () => {
    const { config } = await registered();
    for (const [type] of ADDRESS_TYPES) {
      const { tokens, address } = await signIn(config, bitcoinKey(), type);
      const sub = `bip122:${MAINNET}:${address}`;
      expect(decodeJwt(tokens.id_token as string), type).toMatchObject({
        sub,
        iss: provider.issuer,
        preferred_username: address,
      });
      expect(await oidc.fetchUserInfo(config, tokens.access_token, sub)).toMatchObject({ sub, preferred_username: address });
    }
  });

  it('pairwise: opaque, stable within a sector, different across sectors; no claim carries the address', async () => {
    const key = bitcoinKey();
    const subOf = async (uri: string) => {
      const { config } = await registered({ subject_type: 'pairwise' }, uri);
      const { tokens, address } = await signIn(config, key, 'p2tr', uri);
      const idToken = decodeJwt(tokens.id_token as string);
      const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub as string);
      expect(JSON.stringify({ idToken, userinfo })).not.toContain(address);
      expect(userinfo.siwe_message).toBeUndefined();
      return idToken.sub as string;
    };
    const a1 = await subOf('http://127.0.0.1:4999/a');
    const a2 = await subOf('http://127.0.0.1:4999/b');
    const b = await subOf('http://localhost:4999/c');
    expect(a1).toBe(a2);
    expect(a1).not.toBe(b);
    expect(a1).not.toMatch(/^bip122:/);
  });

  it('an ungated client: a Bitcoin account refreshes its tokens; gated afterwards, the refresh is refused, with no node asked', async () => {
    const { body, config } = await registered({ grant_types: ['authorization_code', 'refresh_token'] });
    const jar = new CookieJar();
    const { tokens, address } = await signIn(config, bitcoinKey(), 'p2wpkh', redirectUri, jar);
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
    expect(refreshed.claims()?.sub).toBe(`bip122:${MAINNET}:${address}`);

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
    const refused = await oidc.refreshTokenGrant(config, refreshed.refresh_token as string).then(
      () => undefined,
      (error: { error?: string; error_description?: string }) => error,
    );
    expect(refused?.error).toBe('invalid_grant');
    expect(refused?.error_description).toMatch(/^ACCESS_CONDITION_NOT_MET: .*which a Bitcoin account cannot have/);
    expect(node.requests()).toBe(before);
  });
});

describe('Bitcoin off (the default): nothing changes for Ethereum, and a Bitcoin message is refused unchecked', () => {
  let provider: TestProvider;
  beforeAll(async () => {
    provider = await startTestProvider({ SOLANA_NETWORKS: 'mainnet' });
  });
  afterAll(() => provider?.stop());

  it('details offer no Bitcoin; a Bitcoin message is NAMESPACE_NOT_ALLOWED before its signature is read; registering for it is refused', async () => {
    const client = await registerPublicClient(provider.url);
    const { details, jar, interactionUrl } = await open(client);
    expect(details.namespaces).toEqual(['eip155', 'solana']);
    expect(details.bitcoinNetworks).toBeUndefined();
    const key = bitcoinKey();
    const message = bitcoinMessageFor({ ...details, bitcoinNetworks: ['mainnet'] }, key.address('p2wpkh'));
    // Unchecked: a signature that is not even base64 gets the namespace refusal, not a signature one.
    for (const signature of [key.sign('p2wpkh', message), 'not a signature']) {
      await expectError(
        await postSignature(jar, interactionUrl, { message, signature }),
        400,
        'NAMESPACE_NOT_ALLOWED',
        /does not sign in Bitcoin accounts \(it takes Ethereum or Solana accounts\)/,
      );
    }
    const response = await fetch(`${provider.url}/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [TEST_REDIRECT_URI], account_namespaces: ['eip155', 'bip122'] }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error_description: string }).error_description).toMatch(
      /^account_namespaces\[1\]: this provider does not offer Bitcoin accounts \(BITCOIN_NETWORKS is empty\)/,
    );
  });

  it('BITCOIN_NETWORKS is validated at start, naming the variable', async () => {
    await expect(startTestProvider({ BITCOIN_NETWORKS: 'mainnet,regtest' })).rejects.toThrow(/^BITCOIN_NETWORKS: /);
  });
});
