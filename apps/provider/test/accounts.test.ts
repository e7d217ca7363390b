/**
 * Accounts: one person, many wallets (docs/wallets.md, "Accounts"). Over HTTP against a real
 * provider: the account a first sign-in makes, linking a wallet with a fresh signature by it and
 * a recent one by the account, an `account_subject` client knowing the person by the account
 * (same `sub` whichever wallet signs), and every refusal the contract names, each decided only
 * after the posted signature verifies.
 *
 * A proof's age is set back in storage where a test needs one older than 10 minutes (it cannot
 * wait ten minutes): the record is the provider's own, changed as time would change it.
 */
import { base58 } from '@scure/base';
import {
  bitcoinKey,
  bitcoinMessageFor,
  bitcoinSignIn,
  CookieJar,
  getDetails,
  messageFor,
  pkceAuthorization,
  request,
  solanaKeypair,
  solanaMessageFor,
  startInteraction,
  startTestProvider,
  TEST_REDIRECT_URI,
  type TestProvider,
  walletSignIn,
} from '@signet/testkit';
import * as oidc from 'openid-client';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const insecure = { execute: [oidc.allowInsecureRequests] };
const key = () => privateKeyToAccount(generatePrivateKey());
type Details = Awaited<ReturnType<typeof getDetails>>;

// One provider and its two clients, shared by the "accounts" describes below.
let provider: TestProvider;
let accountClient: oidc.Configuration;
let walletClient: oidc.Configuration;

beforeAll(async () => {
  provider = await startTestProvider({ SOLANA_NETWORKS: 'mainnet', BITCOIN_NETWORKS: 'mainnet', ACCOUNT_MAX_WALLETS: '4' });
  const register = (metadata: Record<string, unknown>) =>
    oidc.dynamicClientRegistration(
      new URL(provider.issuer),
      {
        redirect_uris: [TEST_REDIRECT_URI],
        token_endpoint_auth_method: 'none',
        account_namespaces: ['eip155', 'solana', 'bip122'],
        ...metadata,
      },
      undefined,
      insecure,
    );
  accountClient = await register({ account_subject: true });
  walletClient = await register({});
});
afterAll(() => provider?.stop());

const origin = () => new URL(provider.url).origin;

const url = (path: string) => new URL(path, provider.url);

/** A request as the account page's script makes it: same origin, JSON. */
const page = (jar: CookieJar, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  request(jar, url(path), {
    method,
    headers: { accept: 'application/json', 'content-type': 'application/json', origin: origin(), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const details = async (jar: CookieJar, path: string) => {
  const response = await page(jar, 'GET', path);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as Details;
};

const signFor = async (signer: PrivateKeyAccount, d: Details, chainId?: number) => {
  const message = messageFor(d, signer.address, chainId ? { chainId } : {});
  return { message, signature: await signer.signMessage({ message }) };
};

/** Signs in to `client` with `signer` in `jar`; returns the tokens' claims and the jar. */
async function signIn(client: oidc.Configuration, signer: PrivateKeyAccount, jar = new CookieJar(), scope = 'openid profile') {
  const { url: authorizationUrl, verifier } = await pkceAuthorization(client, { scope, prompt: 'login' });
  const { callbackUrl } = await walletSignIn({ authorizationUrl, signer, jar });
  const tokens = await oidc.authorizationCodeGrant(client, callbackUrl, { pkceCodeVerifier: verifier });
  return { claims: tokens.claims() as Record<string, unknown>, tokens, jar };
}

/** Links `signer` to the account signed in to in `jar`. */
async function link(jar: CookieJar, signer: PrivateKeyAccount, chainId?: number) {
  return page(jar, 'POST', '/account/wallets', await signFor(signer, await details(jar, '/account/link'), chainId));
}

/** Sets this browser's proofs back by `minutes` (as time passing would). */
async function ageProofs(jar: CookieJar, minutes = 11) {
  await page(jar, 'GET', '/account');
  const id = /(?:^|; )signet_account=([^;]+)/.exec(jar.header(url('/account/x')))?.[1];
  expect(id).toBeDefined();
  const store = provider.app.services.store;
  const record = JSON.parse((await store.get(`account-session:${id}`)) as string) as { proofs: Record<string, number> };
  for (const wallet of Object.keys(record.proofs)) record.proofs[wallet] = (record.proofs[wallet] as number) - minutes * 60_000;
  await store.set(`account-session:${id}`, JSON.stringify(record), 3600);
}

const error = async (response: Response) => ({
  status: response.status,
  error: ((await response.json()) as { error: string }).error,
});

describe('accounts: one person, many wallets', () => {
  it('a first sign-in makes an account; an account client gets its id as sub, the signing wallet and the linked wallets', async () => {
    const alice = key();
    const { claims, jar } = await signIn(accountClient, alice, new CookieJar(), 'openid profile wallets');
    expect(claims.sub).toMatch(/^acct_[A-Za-z0-9_-]{22}$/);
    expect(claims.wallet).toBe(`eip155:0:${alice.address}`);
    expect(claims.wallets).toEqual([`eip155:0:${alice.address}`]);
    const mine = await page(jar, 'GET', '/account');
    expect(mine.status).toBe(200);
    const { wallets } = (await mine.json()) as { wallets: { id: string; primary: boolean; linked_at: string }[] };
    expect(wallets).toEqual([
      { id: `eip155:0:${alice.address}`, primary: true, linked_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
    ]);
    // A client without account_subject sees what it saw before accounts.
    const plain = await signIn(walletClient, alice);
    expect(plain.claims.sub).toBe(`eip155:1:${alice.address}`);
    expect(plain.claims).not.toHaveProperty('wallet');
  });

  it('links a second wallet (Ethereum) and a Solana key: the account client gets the same sub whichever signs', async () => {
    const alice = key();
    const bob = key();
    const { claims, jar } = await signIn(accountClient, alice);
    const linked = await link(jar, bob);
    expect(linked.status, await linked.clone().text()).toBe(201);
    expect(await linked.json()).toEqual({ id: `eip155:0:${bob.address}` });

    const solana = solanaKeypair();
    const d = await details(jar, '/account/link');
    const message = solanaMessageFor(d, solana.address);
    const viaSolana = await page(jar, 'POST', '/account/wallets', { message, signature: base58.encode(solana.sign(message)) });
    expect(viaSolana.status, await viaSolana.clone().text()).toBe(201);
    const solanaId = ((await viaSolana.json()) as { id: string }).id;
    expect(solanaId).toMatch(/^solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:/);

    const asBob = await signIn(accountClient, bob, new CookieJar(), 'openid wallets');
    expect(asBob.claims.sub).toBe(claims.sub);
    expect(asBob.claims.wallet).toBe(`eip155:0:${bob.address}`);
    expect(asBob.claims.wallets).toEqual([`eip155:0:${alice.address}`, `eip155:0:${bob.address}`, solanaId]);
    // The wallet client still knows Bob as Bob.
    expect((await signIn(walletClient, bob)).claims.sub).toBe(`eip155:1:${bob.address}`);
  });

  it('links a Bitcoin address (Taproot, BIP-322) on /account, and it then signs in as the same account', async () => {
    const alice = key();
    const btc = bitcoinKey();
    const { claims, jar } = await signIn(accountClient, alice);
    const taproot = btc.address('p2tr');
    const d = await details(jar, '/account/link');
    expect(d.namespaces).toContain('bip122');
    const message = bitcoinMessageFor(d, taproot);
    // Signed by another key for the same address: refused, nothing linked.
    const forged = await page(jar, 'POST', '/account/wallets', { message, signature: bitcoinKey().sign('p2tr', message) });
    expect(forged.status).toBe(401);
    const linked = await page(jar, 'POST', '/account/wallets', { message, signature: btc.sign('p2tr', message) });
    expect(linked.status, await linked.clone().text()).toBe(201);
    const walletId = `bip122:000000000019d6689c085ae165831e93:${taproot}`;
    expect(await linked.json()).toEqual({ id: walletId });

    const { url: authorizationUrl, verifier } = await pkceAuthorization(accountClient, {
      scope: 'openid wallets',
      prompt: 'login',
    });
    const { callbackUrl } = await bitcoinSignIn({ authorizationUrl, key: btc, type: 'p2tr' });
    const tokens = await oidc.authorizationCodeGrant(accountClient, callbackUrl, { pkceCodeVerifier: verifier });
    expect(tokens.claims()).toMatchObject({
      sub: claims.sub,
      wallet: walletId,
      wallets: [`eip155:0:${alice.address}`, walletId],
    });
    // The same key's segwit address is another wallet: not in the account.
    const { url: again, verifier: v2 } = await pkceAuthorization(accountClient, { scope: 'openid', prompt: 'login' });
    const segwit = await bitcoinSignIn({ authorizationUrl: again, key: btc, type: 'p2wpkh' });
    const other = await oidc.authorizationCodeGrant(accountClient, segwit.callbackUrl, { pkceCodeVerifier: v2 });
    expect(other.claims()?.sub).not.toBe(claims.sub);
  });
});

describe('accounts: one person, many wallets (linking refused)', () => {
  it('refuses a link without the new wallet’s key: no signature, another signer, another domain, a sign-in’s message, another browser’s, a replay', async () => {
    const alice = key();
    const carol = key();
    const { jar } = await signIn(accountClient, alice);
    const d = await details(jar, '/account/link');
    expect(d.resources).toEqual([`${provider.url}/account`]);
    expect(d.statement).toBe(`Link this wallet to your Signet account at ${new URL(provider.url).host}`);
    const good = await signFor(carol, d);
    expect(await error(await page(jar, 'POST', '/account/wallets', { message: good.message }))).toEqual({
      status: 400,
      error: 'INVALID_REQUEST',
    });
    const byAnother = messageFor(d, carol.address);
    expect(
      await error(
        await page(jar, 'POST', '/account/wallets', {
          message: byAnother,
          signature: await key().signMessage({ message: byAnother }),
        }),
      ),
    ).toEqual({
      status: 401,
      error: 'INVALID_SIGNATURE',
    });
    const elsewhere = messageFor(d, carol.address, { domain: 'evil.example' });
    expect(
      await error(
        await page(jar, 'POST', '/account/wallets', {
          message: elsewhere,
          signature: await carol.signMessage({ message: elsewhere }),
        }),
      ),
    ).toEqual({
      status: 400,
      error: 'DOMAIN_MISMATCH',
    });
    // A sign-in's message (its nonce is an interaction's) is no link message, and the reverse.
    const signInJar = new CookieJar();
    const interaction = await startInteraction(signInJar, (await pkceAuthorization(accountClient)).url);
    const signInMessage = await signFor(carol, await getDetails(signInJar, interaction));
    expect(await error(await page(jar, 'POST', '/account/wallets', signInMessage))).toEqual({
      status: 400,
      error: 'NONCE_MISMATCH',
    });
    const atSignIn = await request(signInJar, interaction, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(good),
    });
    expect(await error(atSignIn)).toEqual({ status: 400, error: 'NONCE_MISMATCH' });
    // A reauth message is no link message either.
    expect(
      await error(await page(jar, 'POST', '/account/wallets', await signFor(carol, await details(jar, '/account/reauth')))),
    ).toEqual({
      status: 400,
      error: 'NONCE_MISMATCH',
    });
    // A link message issued to another browser (its own account) cannot link here.
    const other = await signIn(accountClient, key());
    const theirs = await signFor(carol, await details(other.jar, '/account/link'));
    expect(await error(await page(jar, 'POST', '/account/wallets', theirs))).toEqual({ status: 400, error: 'NONCE_MISMATCH' });
    // The good one links once; posted again it is spent.
    expect((await page(jar, 'POST', '/account/wallets', good)).status).toBe(201);
    expect(await error(await page(jar, 'POST', '/account/wallets', good))).toEqual({ status: 400, error: 'NONCE_MISMATCH' });
  });

  it('every change comes from the provider’s own origin; no CORS on /account', async () => {
    const { jar } = await signIn(accountClient, key());
    const signed = await signFor(key(), await details(jar, '/account/link'));
    for (const headers of [{ origin: 'https://evil.example' }, { origin: 'null' }, { origin: '' }]) {
      const response = await request(jar, url('/account/wallets'), {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json', ...headers },
        body: JSON.stringify(signed),
      });
      expect({ headers, ...(await error(response)) }).toEqual({ headers, status: 403, error: 'CROSS_ORIGIN_REQUEST' });
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
    }
    for (const [method, path] of [
      ['DELETE', '/account'],
      ['POST', '/account/primary'],
      ['DELETE', '/account/wallets/x'],
      ['POST', '/account/reauth'],
    ] as const) {
      const response = await page(jar, method, path, {}, { origin: 'https://evil.example' });
      expect({ path, ...(await error(response)) }).toEqual({ path, status: 403, error: 'CROSS_ORIGIN_REQUEST' });
    }
    const preflight = await request(jar, url('/account/wallets'), {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const read = await request(jar, url('/account'), { headers: { accept: 'application/json', origin: 'https://evil.example' } });
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
    // A browser's same-origin request without Origin (Sec-Fetch-Site says so) is let through.
    const sameSite = await request(jar, url('/account/wallets'), {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
      body: JSON.stringify(signed),
    });
    expect(sameSite.status).toBe(201);
  });

  it('the 409s, only after the signature verifies: already linked, the cap, linked elsewhere', async () => {
    const alice = key();
    const { jar } = await signIn(accountClient, alice);
    expect(await error(await link(jar, alice))).toEqual({ status: 409, error: 'WALLET_ALREADY_LINKED' });
    // Another account holding two wallets, one of them Dave.
    const dave = key();
    const other = await signIn(accountClient, key());
    expect((await link(other.jar, dave)).status).toBe(201);
    expect(await error(await link(jar, dave))).toEqual({ status: 409, error: 'WALLET_LINKED_ELSEWHERE' });
    // Without Dave's key nothing is said about where Dave's wallet is.
    const d = await details(jar, '/account/link');
    const forged = messageFor(d, dave.address);
    expect(
      await error(
        await page(jar, 'POST', '/account/wallets', { message: forged, signature: await key().signMessage({ message: forged }) }),
      ),
    ).toEqual({
      status: 401,
      error: 'INVALID_SIGNATURE',
    });
    // The cap (ACCOUNT_MAX_WALLETS=4 here).
    for (let i = 0; i < 3; i++) expect((await link(jar, key())).status).toBe(201);
    expect(await error(await link(jar, key()))).toEqual({ status: 409, error: 'TOO_MANY_WALLETS' });
  });
});

describe('accounts: one person, many wallets (moves and fresh signatures)', () => {
  it('a wallet that is its account’s only wallet moves; that account ends with everything signed with it', async () => {
    const erin = key();
    const erinAlone = await signIn(accountClient, erin, new CookieJar(), 'openid');
    const oldSub = erinAlone.claims.sub;
    const userinfo = () => oidc.fetchUserInfo(accountClient, erinAlone.tokens.access_token, oidc.skipSubjectCheck);
    expect((await userinfo()).sub).toBe(oldSub);
    const { claims, jar } = await signIn(accountClient, key());
    expect((await link(jar, erin)).status).toBe(201);
    await expect(userinfo()).rejects.toThrow();
    // Erin's provider session ended: the account page no longer knows her there.
    expect((await page(erinAlone.jar, 'GET', '/account')).status).toBe(401);
    // Now Erin signs in as the account that took her wallet.
    expect((await signIn(accountClient, erin)).claims.sub).toBe(claims.sub);
  });

  it('REAUTHENTICATION_REQUIRED: a link needs a signature by the account from the last 10 minutes; /account/reauth gives one', async () => {
    const alice = key();
    const { jar } = await signIn(accountClient, alice);
    await ageProofs(jar);
    expect(await error(await link(jar, key()))).toEqual({ status: 401, error: 'REAUTHENTICATION_REQUIRED' });
    // A signature by a wallet outside the account proves nothing for it.
    const stranger = await page(jar, 'POST', '/account/reauth', await signFor(key(), await details(jar, '/account/reauth')));
    expect(await error(stranger)).toEqual({ status: 404, error: 'WALLET_NOT_FOUND' });
    const reauth = await page(jar, 'POST', '/account/reauth', await signFor(alice, await details(jar, '/account/reauth')));
    expect(reauth.status).toBe(200);
    expect((await link(jar, key())).status).toBe(201);
  });

  it('a wallet’s link signature is that wallet’s fresh proof for the next 10 minutes (as docs/wallets.md says)', async () => {
    const alice = key();
    const bob = key();
    const { jar } = await signIn(accountClient, alice);
    expect((await link(jar, bob)).status).toBe(201);
    // Alice (primary, fresh from her sign-in) makes Bob the primary.
    expect((await page(jar, 'POST', '/account/primary', { id: `eip155:0:${bob.address}` })).status).toBe(204);
    // Bob has signed nothing but his link message: that signature is the primary's fresh proof.
    expect((await page(jar, 'DELETE', `/account/wallets/${encodeURIComponent(`eip155:0:${alice.address}`)}`)).status).toBe(204);
    // Past the 10 minutes it no longer counts.
    expect((await link(jar, alice)).status).toBe(201);
    await ageProofs(jar);
    expect(await error(await page(jar, 'DELETE', `/account/wallets/${encodeURIComponent(`eip155:0:${alice.address}`)}`))).toEqual(
      { status: 401, error: 'REAUTHENTICATION_REQUIRED' },
    );
  });

  it('removing another wallet, changing the primary and deleting need the primary wallet’s fresh signature', async () => {
    const alice = key();
    const bob = key();
    const { jar } = await signIn(accountClient, alice);
    expect((await link(jar, bob)).status).toBe(201);
    // Only Bob (not the primary) has signed lately.
    await ageProofs(jar);
    expect((await page(jar, 'POST', '/account/reauth', await signFor(bob, await details(jar, '/account/reauth')))).status).toBe(
      200,
    );
    for (const [method, path, body] of [
      ['DELETE', `/account/wallets/${encodeURIComponent(`eip155:0:${alice.address}`)}`, undefined],
      ['POST', '/account/primary', { id: `eip155:0:${bob.address}` }],
      ['DELETE', '/account', undefined],
    ] as const) {
      expect({ path, ...(await error(await page(jar, method, path, body))) }).toEqual({
        path,
        status: 401,
        error: 'REAUTHENTICATION_REQUIRED',
      });
    }
    const mine = (await (await page(jar, 'GET', '/account')).json()) as { wallets: { id: string; primary: boolean }[] };
    expect(mine.wallets.find((wallet) => wallet.primary)?.id).toBe(`eip155:0:${alice.address}`);
    // With Alice's fresh signature: Bob becomes primary.
    expect((await page(jar, 'POST', '/account/reauth', await signFor(alice, await details(jar, '/account/reauth')))).status).toBe(
      200,
    );
    expect((await page(jar, 'POST', '/account/primary', { id: `eip155:0:${bob.address}` })).status).toBe(204);
    const after = (await (await page(jar, 'GET', '/account')).json()) as { wallets: { id: string; primary: boolean }[] };
    expect(after.wallets.find((wallet) => wallet.primary)?.id).toBe(`eip155:0:${bob.address}`);
    expect(
      await error(await page(jar, 'POST', '/account/primary', { id: 'eip155:0:0x0000000000000000000000000000000000000001' })),
    ).toEqual({
      // Bob, now primary, signed lately: the change is checked, and there is no such wallet.
      status: 404,
      error: 'WALLET_NOT_FOUND',
    });
  });
});

describe('accounts: one person, many wallets (removal and deletion)', () => {
  it('removing a wallet ends what it signed (tokens, refresh, session); LAST_WALLET and WALLET_NOT_FOUND', async () => {
    const alice = key();
    const bob = key();
    const { jar } = await signIn(accountClient, alice);
    expect((await link(jar, bob)).status).toBe(201);
    const asBob = await signIn(accountClient, bob, new CookieJar(), 'openid');
    expect((await oidc.fetchUserInfo(accountClient, asBob.tokens.access_token, oidc.skipSubjectCheck)).wallet).toBe(
      `eip155:0:${bob.address}`,
    );
    const bobId = encodeURIComponent(`eip155:0:${bob.address}`);
    expect((await page(jar, 'DELETE', `/account/wallets/${bobId}`)).status).toBe(204);
    await expect(oidc.fetchUserInfo(accountClient, asBob.tokens.access_token, oidc.skipSubjectCheck)).rejects.toThrow();
    expect(await error(await page(jar, 'DELETE', `/account/wallets/${bobId}`))).toEqual({
      status: 404,
      error: 'WALLET_NOT_FOUND',
    });
    expect(await error(await page(jar, 'DELETE', `/account/wallets/${encodeURIComponent(`eip155:0:${alice.address}`)}`))).toEqual(
      {
        status: 409,
        error: 'LAST_WALLET',
      },
    );
    // Bob, now on his own, signs in as a new account.
    expect((await signIn(accountClient, bob)).claims.sub).not.toBe((await signIn(accountClient, alice)).claims.sub);
  });

  it('deleting the account ends every sign-in of its wallets; its id is never reused', async () => {
    const alice = key();
    const { claims, jar, tokens } = await signIn(accountClient, alice);
    expect((await page(jar, 'DELETE', '/account')).status).toBe(204);
    await expect(oidc.fetchUserInfo(accountClient, tokens.access_token, oidc.skipSubjectCheck)).rejects.toThrow();
    expect((await page(jar, 'GET', '/account')).status).toBe(401);
    const again = await signIn(accountClient, alice);
    expect(again.claims.sub).toMatch(/^acct_/);
    expect(again.claims.sub).not.toBe(claims.sub);
  });

  it('without a sign-in: GET /account (JSON) is 401; a wallet signature at /account/reauth signs in to the page', async () => {
    const jar = new CookieJar();
    expect(await error(await page(jar, 'GET', '/account'))).toEqual({ status: 401, error: 'SIGN_IN_REQUIRED' });
    expect(await error(await page(jar, 'GET', '/account/link'))).toEqual({ status: 401, error: 'SIGN_IN_REQUIRED' });
    const frank = key();
    const signedIn = await page(jar, 'POST', '/account/reauth', await signFor(frank, await details(jar, '/account/reauth')));
    expect(signedIn.status).toBe(200);
    const body = (await signedIn.json()) as { account: string; wallet: string };
    expect(body.wallet).toBe(`eip155:0:${frank.address}`);
    expect(((await (await page(jar, 'GET', '/account')).json()) as { wallets: unknown[] }).wallets).toHaveLength(1);
    expect((await signIn(accountClient, frank)).claims.sub).toBe(body.account);
    const html = await request(jar, url('/account'), { headers: { accept: 'text/html' } });
    expect(html.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await html.text()).toContain(`eip155:0:${frank.address}`.slice(9));
  });
});
