/**
 * Accounts with real parts: a relying party's back-channel logout endpoint told when a wallet
 * leaves, two providers on one Redis racing to link one wallet (exactly one wins), a real
 * OpenZeppelin account (ERC-1271, ERC-7739) on a local chain linking for the chain it signed on
 * only, and the audit events.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { realWallets, startTestchain, type Testchain } from '@signet/testchain';
import {
  CookieJar,
  type getDetails,
  messageFor,
  pkceAuthorization,
  request,
  startTestProvider,
  TEST_REDIRECT_URI,
  type TestProvider,
  walletSignIn,
} from '@signet/testkit';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import type { Address, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const insecure = { execute: [oidc.allowInsecureRequests] };
const key = () => privateKeyToAccount(generatePrivateKey());
type Details = Awaited<ReturnType<typeof getDetails>>;
type Signer = { address: Address; signMessage(args: { message: string }): Promise<Hex> };

/** The account page's requests, for one provider. */
function accountPage(provider: TestProvider) {
  const origin = new URL(provider.url).origin;
  const call = (jar: CookieJar, method: string, path: string, body?: unknown) =>
    request(jar, new URL(path, provider.url), {
      method,
      headers: { accept: 'application/json', 'content-type': 'application/json', origin },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const details = async (jar: CookieJar, path: string) => (await (await call(jar, 'GET', path)).json()) as Details;
  return {
    call,
    details,
    async link(jar: CookieJar, signer: Signer, chainId?: number, address: Address = signer.address) {
      const message = messageFor(await details(jar, '/account/link'), address, chainId ? { chainId } : {});
      return call(jar, 'POST', '/account/wallets', { message, signature: await signer.signMessage({ message }) });
    },
  };
}

async function register(provider: TestProvider, metadata: Record<string, unknown> = {}) {
  return oidc.dynamicClientRegistration(
    new URL(provider.issuer),
    { redirect_uris: [TEST_REDIRECT_URI], token_endpoint_auth_method: 'none', account_subject: true, ...metadata },
    undefined,
    insecure,
  );
}

async function signIn(
  client: oidc.Configuration,
  signer: Signer,
  options: { jar?: CookieJar; chainId?: number; address?: Address } = {},
) {
  const { url, verifier } = await pkceAuthorization(client, { scope: 'openid', prompt: 'login' });
  const jar = options.jar ?? new CookieJar();
  const { callbackUrl } = await walletSignIn({
    authorizationUrl: url,
    signer,
    jar,
    chainId: options.chainId,
    address: options.address,
  });
  const tokens = await oidc.authorizationCodeGrant(client, callbackUrl, { pkceCodeVerifier: verifier });
  return { claims: tokens.claims() as Record<string, unknown>, tokens, jar };
}

async function logoutReceiver(): Promise<{ url: string; server: Server; next(): Promise<string> }> {
  const tokens: string[] = [];
  const waiting: ((token: string) => void)[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const token = new URLSearchParams(body).get('logout_token');
      if (req.method === 'POST' && token) {
        const waiter = waiting.shift();
        if (waiter) waiter(token);
        else tokens.push(token);
      }
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/logout`,
    server,
    next: () => (tokens.length > 0 ? Promise.resolve(tokens.shift() as string) : new Promise((resolve) => waiting.push(resolve))),
  };
}

describe('a wallet leaving an account: back-channel logout, and the audit trail', () => {
  let provider: TestProvider;
  let receiver: Awaited<ReturnType<typeof logoutReceiver>>;
  let auditFile: string;
  beforeAll(async () => {
    receiver = await logoutReceiver();
    auditFile = join(mkdtempSync(join(tmpdir(), 'signet-accounts-audit-')), 'audit.jsonl');
    provider = await startTestProvider({ ALLOW_PRIVATE_FETCH: 'true', AUDIT_LOG: auditFile });
  });
  afterAll(async () => {
    await provider?.stop();
    receiver?.server.close();
  });

  it('removing a wallet sends the relying party a logout token with the sub it was given, and revokes its refresh token', async () => {
    const page = accountPage(provider);
    const rp = await register(provider, {
      backchannel_logout_uri: receiver.url,
      backchannel_logout_session_required: true,
      grant_types: ['authorization_code', 'refresh_token'],
    });
    const alice = key();
    const bob = key();
    const { jar } = await signIn(rp, alice);
    expect((await page.link(jar, bob)).status).toBe(201);
    const { url, verifier } = await pkceAuthorization(rp, { scope: 'openid offline_access', prompt: 'consent' });
    const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer: bob });
    const bobTokens = await oidc.authorizationCodeGrant(rp, callbackUrl, { pkceCodeVerifier: verifier });
    expect(bobTokens.refresh_token).toEqual(expect.any(String));
    const sub = bobTokens.claims()?.sub as string;
    const sid = bobTokens.claims()?.sid;

    const removed = await page.call(jar, 'DELETE', `/account/wallets/${encodeURIComponent(`eip155:0:${bob.address}`)}`);
    expect(removed.status).toBe(204);
    const keys = createRemoteJWKSet(new URL(rp.serverMetadata().jwks_uri as string));
    // Tokens of Alice's sign-in (her grant) were not sent: the first logout token is Bob's.
    const { payload } = await jwtVerify(await receiver.next(), keys, {
      issuer: provider.issuer,
      audience: rp.clientMetadata().client_id,
    });
    expect(payload.sub).toBe(sub);
    expect(payload.sid).toBe(sid);
    expect(payload.events).toEqual({ 'http://schemas.openid.net/event/backchannel-logout': {} });
    await expect(oidc.refreshTokenGrant(rp, bobTokens.refresh_token as string)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('writes account.created, account.wallet_linked, account.primary_changed, account.wallet_removed, account.deleted', async () => {
    const page = accountPage(provider);
    const rp = await register(provider);
    const alice = key();
    const bob = key();
    const { jar } = await signIn(rp, alice);
    expect((await page.link(jar, bob)).status).toBe(201);
    expect((await page.call(jar, 'POST', '/account/primary', { id: `eip155:0:${bob.address}` })).status).toBe(204);
    // Bob is the primary now; a fresh signature by him, then Alice goes, then the account.
    const reauth = await page.details(jar, '/account/reauth');
    const message = messageFor(reauth, bob.address);
    expect(
      (await page.call(jar, 'POST', '/account/reauth', { message, signature: await bob.signMessage({ message }) })).status,
    ).toBe(200);
    expect((await page.call(jar, 'DELETE', `/account/wallets/${encodeURIComponent(`eip155:0:${alice.address}`)}`)).status).toBe(
      204,
    );
    expect((await page.call(jar, 'DELETE', '/account')).status).toBe(204);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const events = readFileSync(auditFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((event) => String(event.event).startsWith('account.'));
    const account = events.find(
      (event) => event.event === 'account.created' && event.wallet === `eip155:0:${alice.address}`,
    )?.account;
    expect(account).toMatch(/^acct_/);
    const mine = events.filter((event) => event.account === account).map((event) => event.event);
    expect(mine).toEqual([
      'account.created',
      'account.wallet_linked',
      'account.primary_changed',
      'account.wallet_removed',
      'account.deleted',
    ]);
    for (const event of events) {
      expect(event.type).toBe('audit');
      expect(JSON.stringify(event)).not.toMatch(/signature|0x[0-9a-f]{130}/i);
    }
  });
});

describe('two providers on one Redis: two links of one wallet at once, exactly one wins', () => {
  let a: TestProvider;
  let b: TestProvider;
  beforeAll(async () => {
    const shared = { STORAGE_URL: REDIS_URL, STORAGE_PREFIX: `signet-test:accounts:${randomUUID()}:` };
    a = await startTestProvider(shared);
    b = await startTestProvider({ ...shared, ISSUER: a.url });
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
  });

  it('eight rounds: one 201, the other 409 WALLET_LINKED_ELSEWHERE; the wallet is in exactly one account', async () => {
    const rpA = await register(a);
    const rpB = await register(b);
    for (let round = 0; round < 8; round++) {
      const [first, second] = [await signIn(rpA, key()), await signIn(rpB, key())];
      const contested = key();
      const [pa, pb] = [accountPage(a), accountPage(b)];
      const answers = await Promise.all([pa.link(first.jar, contested), pb.link(second.jar, contested)]);
      const statuses = answers.map((response) => response.status).sort();
      expect(statuses).toEqual([201, 409]);
      const loser = answers.find((response) => response.status === 409) as Response;
      expect(((await loser.json()) as { error: string }).error).toBe('WALLET_LINKED_ELSEWHERE');
      const owners = await Promise.all(
        [first, second].map(async ({ jar }, i) => {
          const listed = (await (await [pa, pb][i]?.call(jar, 'GET', '/account'))?.json()) as { wallets: { id: string }[] };
          return listed.wallets.some((wallet) => wallet.id === `eip155:0:${contested.address}`);
        }),
      );
      expect(owners.filter(Boolean)).toHaveLength(1);
    }
  });
});

describe('two providers on one Redis: a wallet’s first sign-in on both at once', () => {
  let a: TestProvider;
  let b: TestProvider;
  beforeAll(async () => {
    const shared = { STORAGE_URL: REDIS_URL, STORAGE_PREFIX: `signet-test:accounts-first:${randomUUID()}:` };
    a = await startTestProvider(shared);
    b = await startTestProvider({ ...shared, ISSUER: a.url });
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
  });

  it('eight rounds: one account, the same sub at both; a link racing a first sign-in leaves the wallet in the linking account', async () => {
    const [rpA, rpB] = [await register(a), await register(b)];
    for (let round = 0; round < 8; round++) {
      const wallet = key();
      const [one, two] = await Promise.all([signIn(rpA, wallet), signIn(rpB, wallet)]);
      expect(one.claims.sub, `round ${round}`).toBe(two.claims.sub);
      expect(String(one.claims.sub)).toMatch(/^acct_/);

      // Someone links a wallet on A while its owner signs in with it for the first time on B.
      const linker = await signIn(rpA, key());
      const newcomer = key();
      const [linked] = await Promise.all([accountPage(a).link(linker.jar, newcomer), signIn(rpB, newcomer)]);
      expect(linked.status, await linked.clone().text()).toBe(201);
      const listed = (await (await accountPage(a).call(linker.jar, 'GET', '/account')).json()) as { wallets: { id: string }[] };
      expect(listed.wallets.map((w) => w.id)).toContain(`eip155:0:${newcomer.address}`);
      // From now on the newcomer signs in as the linker's account, at either provider.
      expect((await signIn(rpB, newcomer)).claims.sub).toBe(linker.claims.sub);
    }
  });
});

describe('a contract account links for the chain it signed on only', () => {
  let ten: Testchain;
  let provider: TestProvider;
  let oz: Address;
  const owner = key();
  beforeAll(async () => {
    ten = await startTestchain({ chainId: 10, ens: false });
    const wallets = await realWallets(ten);
    oz = await wallets.openZeppelin.deploy(owner.address);
    provider = await startTestProvider({ RPC_URLS: `10=${ten.url}`, CHAIN_IDS: '1,10' });
    (globalThis as { signOz?: (message: string) => Promise<Hex> }).signOz = (message) =>
      wallets.openZeppelin.sign(oz, message, owner);
  });
  afterAll(async () => {
    await provider?.stop();
    await ten?.stop();
  });

  it('an OpenZeppelin account on chain 10 links as eip155:10:<address>; it signs in as the account there; its owner key is another wallet', async () => {
    const sign = (globalThis as unknown as { signOz: (message: string) => Promise<Hex> }).signOz;
    const contract: Signer = { address: oz, signMessage: ({ message }) => sign(message) };
    const page = accountPage(provider);
    const rp = await register(provider);
    const { claims, jar } = await signIn(rp, key());
    // Signed for chain 1, where no such account exists: refused, nothing linked.
    const onOne = await page.link(jar, contract, 1);
    expect(onOne.status).toBe(401);
    const linked = await page.link(jar, contract, 10);
    expect(linked.status, await linked.clone().text()).toBe(201);
    expect(await linked.json()).toEqual({ id: `eip155:10:${oz}` });
    // The contract signs in on chain 10 as the account; its owner's own key is not in it.
    expect((await signIn(rp, contract, { chainId: 10 })).claims.sub).toBe(claims.sub);
    expect((await signIn(rp, owner)).claims.sub).not.toBe(claims.sub);
  });
});
