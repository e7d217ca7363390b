/**
 * Passkeys on a Signet account (docs/wallets.md, "Passkeys"), over HTTP against a real provider,
 * on both profiles and on each shared storage (SQLite, Redis, PostgreSQL): adding one after a
 * fresh wallet proof, signing in with it in a fresh browser (the account's `sub`, no `wallet`, an
 * `amr`), what it may not do, removing it, and every refusal: unknown credentials, non-account
 * clients, gated and namespaced clients without the opt-in, replays, challenges of another
 * interaction, another origin or relying party id, a counter that goes back, the cap.
 *
 * The authenticator is @signet/testkit's software one (real P-256 keys and WebAuthn encodings,
 * as Chromium's virtual authenticator is software too): a browser cannot run here for every
 * storage and profile at a reasonable cost, and this one can also answer as a hostile client
 * would (another origin, a counter sent back). e2e/passkeys.test.ts runs the page in Chromium
 * with its virtual authenticator.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestchain, type Testchain, type TestToken } from '@signet/testchain';
import {
  CookieJar,
  confirmUserCode,
  deviceAuthorization,
  followToClient,
  followToDevicePage,
  getDetails,
  messageFor,
  pkceAuthorization,
  pollDeviceToken,
  registerDeviceClient,
  registerPublicClient,
  request,
  SoftAuthenticator,
  startInteraction,
  startTestProvider,
  type TestProvider,
  walletSignIn,
} from '@signet/testkit';
import { postgresSchema, type TestSchema } from '@signet/testkit/postgres';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const dir = mkdtempSync(join(tmpdir(), 'signet-passkeys-'));
const schemas: TestSchema[] = [];
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await Promise.all(schemas.map((schema) => schema.drop()));
});

/** STORAGE_URL (and prefix) for a fresh store of each kind. */
const STORAGES: Record<string, () => Record<string, string>> = {
  sqlite: () => ({ STORAGE_URL: `sqlite:${join(dir, `${randomUUID()}.db`)}` }),
  redis: () => ({ STORAGE_URL: REDIS_URL, STORAGE_PREFIX: `signet-test:passkeys:${randomUUID()}:` }),
  postgres: () => {
    const schema = postgresSchema();
    schemas.push(schema);
    return { STORAGE_URL: schema.url };
  },
};

const key = () => privateKeyToAccount(generatePrivateKey());
type Json = Record<string, unknown>;

/** The account page's requests and a passkey's ceremonies, against one provider. */
function passkeyHelpers(provider: TestProvider) {
  const origin = new URL(provider.url).origin;
  const call = (jar: CookieJar, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    request(jar, new URL(path, provider.url), {
      method,
      headers: { accept: 'application/json', 'content-type': 'application/json', origin, ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const json = async (response: Response) => (await response.json()) as Json;
  return {
    origin,
    call,
    json,
    /** Options, the authenticator's new credential, and the post: the post's answer. */
    async addPasskey(jar: CookieJar, authenticator: SoftAuthenticator, name?: string) {
      const options = await call(jar, 'POST', '/account/passkeys/options');
      expect(options.status, await options.clone().text()).toBe(200);
      const credential = authenticator.create((await options.json()) as never);
      return call(jar, 'POST', '/account/passkeys', { ...credential, ...(name ? { name } : {}) });
    },
    /** A sign-in's interaction: GET the passkey request options, have the authenticator answer. */
    async assertion(jar: CookieJar, interactionUrl: URL, authenticator: SoftAuthenticator, overrides = {}) {
      const options = await request(jar, new URL(`${interactionUrl.pathname}/passkey`, interactionUrl), {
        headers: { accept: 'application/json' },
      });
      expect(options.status, await options.clone().text()).toBe(200);
      return authenticator.get((await options.json()) as never, overrides);
    },
    post(jar: CookieJar, interactionUrl: URL, credential: unknown, as: 'json' | 'form' = 'json') {
      return request(jar, new URL(`${interactionUrl.pathname}/passkey`, interactionUrl), {
        method: 'POST',
        headers:
          as === 'json'
            ? { 'content-type': 'application/json', accept: 'application/json' }
            : { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
        body:
          as === 'json' ? JSON.stringify(credential) : new URLSearchParams({ credential: JSON.stringify(credential) }).toString(),
      });
    },
  };
}

/**
 * The provider on `profile` with `storage`, its passkey helpers, an account client and a wallet
 * client; and the sign-in steps the tests share.
 */
function passkeyProvider(profile: 'self-hosted' | 'hosted', storage: keyof typeof STORAGES) {
  let provider: TestProvider;
  let kit: ReturnType<typeof passkeyHelpers>;
  let accountClient: oidc.Configuration;
  let walletClient: oidc.Configuration;

  beforeAll(async () => {
    provider = await startTestProvider({ PROFILE: profile, ACCOUNT_MAX_PASSKEYS: '2', ...STORAGES[storage]?.() });
    kit = passkeyHelpers(provider);
    accountClient = await registerPublicClient(provider.issuer, {
      account_subject: true,
      grant_types: ['authorization_code', 'refresh_token'],
    } as never);
    walletClient = await registerPublicClient(provider.issuer);
  });
  afterAll(() => provider?.stop());

  /** A wallet's sign-in to `client` in `jar`: the ID token's claims. */
  async function walletIn(client: oidc.Configuration, signer: PrivateKeyAccount, jar = new CookieJar()) {
    const { url, verifier } = await pkceAuthorization(client, { prompt: 'login' });
    const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer, jar });
    const tokens = await oidc.authorizationCodeGrant(client, callbackUrl, { pkceCodeVerifier: verifier });
    return { claims: tokens.claims() as Json, jar };
  }

  /** A person with an account (one wallet), signed in at /account in `jar`, with a passkey on `authenticator`. */
  async function personWithPasskey(name = 'Laptop') {
    const signer = key();
    const { claims, jar } = await walletIn(accountClient, signer);
    const authenticator = new SoftAuthenticator({ origin: kit.origin });
    const added = await kit.addPasskey(jar, authenticator, name);
    expect(added.status, await added.clone().text()).toBe(201);
    return { signer, sub: claims.sub as string, jar, authenticator, id: ((await added.json()) as { id: string }).id };
  }

  /** A passkey sign-in to `client` in a fresh jar: the post's answer, and the tokens when it went through. */
  async function passkeyIn(client: oidc.Configuration, authenticator: SoftAuthenticator, jar = new CookieJar(), overrides = {}) {
    const { url, verifier } = await pkceAuthorization(client, {
      scope: 'openid profile wallets offline_access',
      prompt: 'login consent',
    });
    const interactionUrl = await startInteraction(jar, url);
    const credential = await kit.assertion(jar, interactionUrl, authenticator, overrides);
    const response = await kit.post(jar, interactionUrl, credential);
    if (response.status !== 303) return { response, jar, interactionUrl, credential };
    const callbackUrl = await followToClient(jar, interactionUrl, response.headers.get('location') as string);
    const tokens = await oidc.authorizationCodeGrant(client, callbackUrl, { pkceCodeVerifier: verifier });
    return { response, jar, interactionUrl, credential, tokens };
  }

  /** What GET /interaction/<uid>/passkey answers for a new sign-in to `client`. */
  async function optionsStatus(client: oidc.Configuration) {
    const jar = new CookieJar();
    const interactionUrl = await startInteraction(jar, (await pkceAuthorization(client, { prompt: 'login' })).url);
    const options = await request(jar, new URL(`${interactionUrl.pathname}/passkey`, interactionUrl), {
      headers: { accept: 'application/json' },
    });
    return { status: options.status, offered: (await getDetails(jar, interactionUrl)).passkeys === true };
  }

  return {
    get provider() {
      return provider;
    },
    get kit() {
      return kit;
    },
    get accountClient() {
      return accountClient;
    },
    get walletClient() {
      return walletClient;
    },
    walletIn,
    personWithPasskey,
    passkeyIn,
    optionsStatus,
  };
}
type PasskeyProvider = ReturnType<typeof passkeyProvider>;

/** Adding a passkey, and signing in with it. */
function addAndSignInTests(env: PasskeyProvider) {
  it('adds a discoverable passkey after a fresh wallet proof: the options, 201 { id }, the JSON view', async () => {
    const { provider, kit, accountClient, walletIn } = env;
    const signer = key();
    const { jar } = await walletIn(accountClient, signer);
    const first = await kit.json(await kit.call(jar, 'POST', '/account/passkeys/options'));
    expect(first.rp).toEqual({ id: 'localhost', name: new URL(provider.url).host });
    expect(first.attestation).toBe('none');
    expect(first.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'preferred' });
    expect(first.excludeCredentials).toEqual([]);
    const user = first.user as { id: string; name: string };
    // The user handle: 32 random bytes, the same for every passkey of the account, never the address.
    expect(Buffer.from(user.id, 'base64url')).toHaveLength(32);
    expect(Buffer.from(user.id, 'base64url').toString('hex')).not.toContain(signer.address.slice(2).toLowerCase());
    expect(user.name).toBe(`${signer.address.slice(0, 6)}…${signer.address.slice(-4)}`);

    const authenticator = new SoftAuthenticator({ origin: kit.origin });
    const added = await kit.call(jar, 'POST', '/account/passkeys', {
      ...authenticator.create(first as never),
      name: 'Work laptop',
    });
    expect(added.status, await added.clone().text()).toBe(201);
    const { id } = (await added.json()) as { id: string };
    expect(id).toBe(authenticator.credentials[0]?.id);
    const view = await kit.json(await kit.call(jar, 'GET', '/account'));
    expect(view.passkeys).toEqual([
      { id, name: 'Work laptop', created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), last_used_at: null },
    ]);
    // The next options exclude it, with the same user handle.
    const second = await kit.json(await kit.call(jar, 'POST', '/account/passkeys/options'));
    expect(second.excludeCredentials).toEqual([{ id, type: 'public-key', transports: ['internal'] }]);
    expect((second.user as { id: string }).id).toBe(user.id);
  });

  it('signs in with the passkey in a fresh browser: the account’s sub, no wallet, amr with pop', async () => {
    const { kit, accountClient, personWithPasskey, passkeyIn } = env;
    const person = await personWithPasskey();
    const jar = new CookieJar();
    const { url } = await pkceAuthorization(accountClient, { prompt: 'login' });
    const details = await getDetails(jar, await startInteraction(jar, url));
    expect(details.passkeys).toBe(true);
    const { tokens } = await passkeyIn(accountClient, person.authenticator, jar);
    const claims = tokens?.claims() as Json;
    expect(claims.sub).toBe(person.sub);
    expect(claims).not.toHaveProperty('wallet');
    expect(claims.wallets).toEqual([`eip155:0:${person.signer.address}`]);
    // A device-bound key, user presence and verification: RFC 8176's values.
    expect(claims.amr).toEqual(['pop', 'hwk', 'user', 'mfa']);
    const userinfo = await oidc.fetchUserInfo(accountClient, tokens?.access_token as string, claims.sub as string);
    expect(userinfo.sub).toBe(person.sub);
    // A refresh keeps the amr; the passkey's use is recorded.
    const refreshed = await oidc.refreshTokenGrant(accountClient, tokens?.refresh_token as string);
    expect(decodeJwt(refreshed.id_token as string).amr).toEqual(['pop', 'hwk', 'user', 'mfa']);
    const view = await kit.json(await kit.call(person.jar, 'GET', '/account'));
    expect((view.passkeys as Json[])[0]?.last_used_at).toMatch(/^\d{4}-/);
  });

  it('a synced passkey without user verification: amr swk, no mfa', async () => {
    const { kit, accountClient, walletIn, passkeyIn } = env;
    const signer = key();
    const { jar } = await walletIn(accountClient, signer);
    const authenticator = new SoftAuthenticator({ origin: kit.origin, backupEligible: true, userVerified: false });
    expect((await kit.addPasskey(jar, authenticator)).status).toBe(201);
    const { tokens } = await passkeyIn(accountClient, authenticator);
    expect(tokens?.claims()?.amr).toEqual(['pop', 'swk', 'user']);
  });

  it('a passkey session sees the account but cannot touch its wallets: 401 REAUTHENTICATION_REQUIRED', async () => {
    const { kit, accountClient, personWithPasskey, passkeyIn } = env;
    const person = await personWithPasskey();
    const { jar } = await passkeyIn(accountClient, person.authenticator);
    const view = await kit.call(jar, 'GET', '/account');
    expect(view.status).toBe(200);
    expect(((await view.json()) as Json).wallets).toEqual([
      { id: `eip155:0:${person.signer.address}`, primary: true, linked_at: expect.any(String) },
    ]);
    const wallet = `eip155:0:${person.signer.address}`;
    const linkDetails = await kit.json(await kit.call(jar, 'GET', '/account/link'));
    const newcomer = key();
    const message = messageFor(linkDetails as never, newcomer.address);
    for (const [method, path, body] of [
      ['DELETE', `/account/wallets/${encodeURIComponent(wallet)}`],
      ['POST', '/account/primary', { id: wallet }],
      ['DELETE', '/account'],
      ['POST', '/account/wallets', { message, signature: await newcomer.signMessage({ message }) }],
      ['POST', '/account/passkeys/options'],
    ] as const) {
      const refused = await kit.call(jar, method, path, body);
      expect({ path, status: refused.status, error: ((await refused.json()) as Json).error }).toEqual({
        path,
        status: 401,
        error: 'REAUTHENTICATION_REQUIRED',
      });
    }
    // The account is still whole.
    expect(((await kit.json(await kit.call(person.jar, 'GET', '/account'))).wallets as unknown[]).length).toBe(1);
  });
}

/** Unknown credentials, clients that take no passkeys, replays and the checks on an answer. */
function refusalTests(env: PasskeyProvider) {
  it('an unknown credential: 401 PASSKEY_NOT_FOUND; a form post renders the page naming it for the browser', async () => {
    const { kit, accountClient, passkeyIn } = env;
    const stranger = new SoftAuthenticator({ origin: kit.origin });
    stranger.create({ challenge: 'x', rp: { id: 'localhost' }, user: { id: 'AAAA' } });
    const { response, jar, interactionUrl } = await passkeyIn(accountClient, stranger);
    expect(response.status).toBe(401);
    expect(((await response.json()) as Json).error).toBe('PASSKEY_NOT_FOUND');
    const page = await kit.post(jar, interactionUrl, await kit.assertion(jar, interactionUrl, stranger), 'form');
    expect(page.status).toBe(401);
    const html = await page.text();
    expect(html).toContain(`data-unknown-credential="${stranger.credentials[0]?.id}"`);
    expect(html).toContain('PASSKEY_NOT_FOUND');
  });

  it('refused for a client without account_subject (403 with words); the details offer none', async () => {
    const { kit, walletClient, personWithPasskey } = env;
    const person = await personWithPasskey();
    const jar = new CookieJar();
    const { url } = await pkceAuthorization(walletClient, { prompt: 'login' });
    const interactionUrl = await startInteraction(jar, url);
    expect((await getDetails(jar, interactionUrl)).passkeys).toBeUndefined();
    const options = await request(jar, new URL(`${interactionUrl.pathname}/passkey`, interactionUrl), {
      headers: { accept: 'application/json' },
    });
    expect(options.status).toBe(403);
    expect(await options.json()).toEqual({ error: 'PASSKEY_NOT_ALLOWED', error_description: expect.stringContaining('wallet') });
    const post = await kit.post(jar, interactionUrl, person.authenticator.get({ challenge: 'AAAAAAAAAAAAAAAAAAAAAA' }));
    expect(post.status).toBe(403);
  });

  it('gated and namespaced account clients take none unless they opt in (passkey_sign_in)', async () => {
    const { provider, personWithPasskey, passkeyIn, optionsStatus } = env;
    const person = await personWithPasskey();
    const register = (metadata: Json) => registerPublicClient(provider.issuer, { account_subject: true, ...metadata } as never);
    const namespaced = await register({ account_namespaces: ['eip155'] });
    expect(await optionsStatus(namespaced)).toEqual({ status: 403, offered: false });
    const optedIn = await register({ account_namespaces: ['eip155'], passkey_sign_in: true });
    expect(await optionsStatus(optedIn)).toEqual({ status: 200, offered: true });
    expect((await passkeyIn(optedIn, person.authenticator)).tokens?.claims()?.sub).toEqual(expect.any(String));
    const off = await register({ passkey_sign_in: false });
    expect(await optionsStatus(off)).toEqual({ status: 403, offered: false });
    // The metadata is checked as every client's is: a boolean, and only for account clients.
    for (const metadata of [{ passkey_sign_in: true }, { account_subject: true, passkey_sign_in: 'yes' }]) {
      await expect(registerPublicClient(provider.issuer, metadata as never)).rejects.toMatchObject({
        error: 'invalid_client_metadata',
        error_description: expect.stringMatching(/^passkey_sign_in/),
      });
    }
  });

  it('an answer is used once: a replay, and a challenge of another interaction, are refused', async () => {
    const { kit, accountClient, personWithPasskey } = env;
    const person = await personWithPasskey();
    const jar = new CookieJar();
    const { url } = await pkceAuthorization(accountClient, { prompt: 'login' });
    const first = await startInteraction(jar, url);
    const second = await startInteraction(jar, (await pkceAuthorization(accountClient, { prompt: 'login' })).url);
    // A challenge issued for the first interaction, answered to the second.
    const crossed = await kit.assertion(jar, first, person.authenticator);
    const other = await kit.post(jar, second, crossed);
    expect(other.status).toBe(400);
    expect(((await other.json()) as Json).error).toBe('PASSKEY_CHALLENGE_MISMATCH');
    const credential = await kit.assertion(jar, second, person.authenticator);
    expect((await kit.post(jar, second, credential)).status).toBe(303);
    const replay = await kit.post(jar, second, credential);
    expect(replay.status).not.toBe(303);
    // A fresh interaction: the old answer's challenge is not this one's.
    const third = await startInteraction(new CookieJar(), (await pkceAuthorization(accountClient, { prompt: 'login' })).url);
    expect((await kit.post(jar, third, credential)).status).toBeGreaterThanOrEqual(400);
  });

  it('checks the origin, the relying party id, the user handle and the counter', async () => {
    const { accountClient, personWithPasskey, passkeyIn } = env;
    const person = await personWithPasskey();
    const attempt = async (overrides: Record<string, unknown>) => {
      const { response } = await passkeyIn(accountClient, person.authenticator, new CookieJar(), overrides);
      return { status: response.status, error: response.status === 303 ? undefined : ((await response.json()) as Json).error };
    };
    expect(await attempt({ origin: 'https://evil.example' })).toEqual({ status: 400, error: 'PASSKEY_VERIFICATION_FAILED' });
    expect(await attempt({ rpId: 'evil.example' })).toEqual({ status: 400, error: 'PASSKEY_VERIFICATION_FAILED' });
    expect(await attempt({ userHandle: Buffer.alloc(32, 7).toString('base64url') })).toEqual({
      status: 400,
      error: 'PASSKEY_VERIFICATION_FAILED',
    });
    expect(await attempt({})).toEqual({ status: 303, error: undefined });
    // The counter went back (a copied key): refused, and the stored counter stays.
    const counter = person.authenticator.credentials[0]?.counter as number;
    expect(await attempt({ counter: counter - 1 })).toEqual({ status: 401, error: 'PASSKEY_COUNTER_REGRESSED' });
    expect(await attempt({ counter })).toEqual({ status: 401, error: 'PASSKEY_COUNTER_REGRESSED' });
    expect(await attempt({ counter: counter + 5 })).toEqual({ status: 303, error: undefined });
  });
}

/** Removing passkeys, deleting the account, and device sign-ins. */
function removalAndDeviceTests(env: PasskeyProvider) {
  it('removing: by a sign-in with that passkey or a wallet, ending its sessions and tokens; the cap; 404', async () => {
    const { kit, accountClient, personWithPasskey, passkeyIn } = env;
    const person = await personWithPasskey('First');
    // Two sets of options while the account holds one: the cap (2) holds when both are posted.
    const spare = new SoftAuthenticator({ origin: kit.origin });
    const extra = new SoftAuthenticator({ origin: kit.origin });
    const [forSpare, forExtra] = await Promise.all(
      [spare, extra].map(async (authenticator) =>
        authenticator.create((await kit.json(await kit.call(person.jar, 'POST', '/account/passkeys/options'))) as never),
      ),
    );
    expect((await kit.call(person.jar, 'POST', '/account/passkeys', { ...forSpare, name: 'Second' })).status).toBe(201);
    const third = await kit.call(person.jar, 'POST', '/account/passkeys', forExtra);
    expect({ status: third.status, error: ((await third.json()) as Json).error }).toEqual({
      status: 409,
      error: 'TOO_MANY_PASSKEYS',
    });
    const options = await kit.call(person.jar, 'POST', '/account/passkeys/options');
    expect({ status: options.status, error: ((await options.json()) as Json).error }).toEqual({
      status: 409,
      error: 'TOO_MANY_PASSKEYS',
    });

    const { jar, tokens } = await passkeyIn(accountClient, person.authenticator);
    // The passkey's own session may remove it, not the other one.
    const other = await kit.call(jar, 'DELETE', `/account/passkeys/${spare.credentials[0]?.id}`);
    expect(other.status).toBe(401);
    const cross = await kit.call(jar, 'DELETE', `/account/passkeys/${person.id}`, undefined, { origin: 'https://evil.example' });
    expect(cross.status).toBe(403);
    expect(((await cross.json()) as Json).error).toBe('CROSS_ORIGIN_REQUEST');
    expect((await kit.call(jar, 'DELETE', `/account/passkeys/${person.id}`)).status).toBe(204);
    // What it signed in ended: the tokens, the provider session (its /account session with it).
    expect(tokens?.refresh_token).toEqual(expect.any(String));
    await expect(oidc.refreshTokenGrant(accountClient, tokens?.refresh_token as string)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    await expect(oidc.fetchUserInfo(accountClient, tokens?.access_token as string, oidc.skipSubjectCheck)).rejects.toMatchObject({
      status: 401,
    });
    expect((await kit.call(jar, 'GET', '/account')).status).toBe(401);
    // It signs nobody in any more; the wallet's session removes the other one; then 404.
    expect((await passkeyIn(accountClient, person.authenticator)).response.status).toBe(401);
    expect((await kit.call(person.jar, 'DELETE', `/account/passkeys/${spare.credentials[0]?.id}`)).status).toBe(204);
    const gone = await kit.call(person.jar, 'DELETE', `/account/passkeys/${spare.credentials[0]?.id}`);
    expect({ status: gone.status, error: ((await gone.json()) as Json).error }).toEqual({
      status: 404,
      error: 'NO_SUCH_PASSKEY',
    });
    expect((await kit.json(await kit.call(person.jar, 'GET', '/account'))).passkeys).toEqual([]);
  });

  it('deleting the account deletes its passkeys', async () => {
    const { kit, accountClient, personWithPasskey, passkeyIn } = env;
    const person = await personWithPasskey();
    expect((await kit.call(person.jar, 'DELETE', '/account')).status).toBe(204);
    const { response } = await passkeyIn(accountClient, person.authenticator);
    expect(response.status).toBe(401);
    expect(((await response.json()) as Json).error).toBe('PASSKEY_NOT_FOUND');
  });

  it('a device sign-in (RFC 8628) may use a passkey for an account client', async () => {
    const { provider, kit, personWithPasskey } = env;
    const person = await personWithPasskey();
    const discovery = (await (
      await fetch(`${provider.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`)
    ).json()) as Json;
    const device = await registerDeviceClient(discovery.registration_endpoint as string, { account_subject: true });
    const codes = await deviceAuthorization(discovery.device_authorization_endpoint as string, device.client_id);
    const jar = new CookieJar();
    const interactionUrl = await confirmUserCode(jar, codes.verification_uri, codes.user_code);
    const posted = await kit.post(jar, interactionUrl, await kit.assertion(jar, interactionUrl, person.authenticator));
    expect(posted.status, await posted.clone().text()).toBe(303);
    await followToDevicePage(jar, interactionUrl, posted.headers.get('location') as string);
    const polled = await pollDeviceToken(discovery.token_endpoint as string, device.client_id, codes.device_code);
    expect(polled.status, JSON.stringify(polled.body)).toBe(200);
    const claims = decodeJwt(polled.body.id_token as string);
    expect(claims.sub).toBe(person.sub);
    expect(claims.amr).toContain('pop');
  });
}

describe.each(
  (['self-hosted', 'hosted'] as const).flatMap((profile) => Object.keys(STORAGES).map((storage) => [profile, storage] as const)),
)('passkeys on the %s profile, %s storage', (profile, storage) => {
  const env = passkeyProvider(profile, storage);
  addAndSignInTests(env);
  refusalTests(env);
  removalAndDeviceTests(env);
});

describe.each(['redis', 'postgres'])('two replicas on one %s: an answer posted to both at once gets through once', (storage) => {
  let a: TestProvider;
  let b: TestProvider;
  beforeAll(async () => {
    const shared = STORAGES[storage]?.() ?? {};
    a = await startTestProvider(shared);
    b = await startTestProvider({ ...shared, ISSUER: a.url });
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  it('exactly one 303; the other is refused', async () => {
    const kit = passkeyHelpers(a);
    const client = await registerPublicClient(a.issuer, { account_subject: true } as never);
    const { url } = await pkceAuthorization(client, { prompt: 'login' });
    const jar = new CookieJar();
    await walletSignIn({ authorizationUrl: url, signer: key(), jar });
    const authenticator = new SoftAuthenticator({ origin: kit.origin });
    expect((await kit.addPasskey(jar, authenticator)).status).toBe(201);
    for (let round = 0; round < 3; round++) {
      const fresh = new CookieJar();
      const interactionUrl = await startInteraction(fresh, (await pkceAuthorization(client, { prompt: 'login' })).url);
      const credential = await kit.assertion(fresh, interactionUrl, authenticator);
      // The same answer to both replicas (the same issuer, the same interaction cookie).
      const onB = new URL(interactionUrl.pathname, b.url);
      const answers = await Promise.all([kit.post(fresh, interactionUrl, credential), kit.post(fresh, onB, credential)]);
      expect(answers.map((answer) => answer.status === 303).filter(Boolean)).toHaveLength(1);
      expect(answers.find((answer) => answer.status !== 303)?.status).toBeGreaterThanOrEqual(400);
    }
  });
});

describe('where passkeys are off', () => {
  it('ACCOUNT_MAX_PASSKEYS=0: no offer, 404 PASSKEYS_UNAVAILABLE; an IP-address issuer has none either', async () => {
    const provider = await startTestProvider({ ACCOUNT_MAX_PASSKEYS: '0' });
    try {
      const kit = passkeyHelpers(provider);
      const client = await registerPublicClient(provider.issuer, { account_subject: true } as never);
      const jar = new CookieJar();
      const { url } = await pkceAuthorization(client, { prompt: 'login' });
      const { jar: signedIn } = await walletSignIn({ authorizationUrl: url, signer: key(), jar });
      const interactionUrl = await startInteraction(jar, (await pkceAuthorization(client, { prompt: 'login' })).url);
      expect((await getDetails(jar, interactionUrl)).passkeys).toBeUndefined();
      const options = await request(jar, new URL(`${interactionUrl.pathname}/passkey`, interactionUrl), {
        headers: { accept: 'application/json' },
      });
      expect({ status: options.status, error: ((await options.json()) as Json).error }).toEqual({
        status: 404,
        error: 'PASSKEYS_UNAVAILABLE',
      });
      const adding = await kit.call(signedIn, 'POST', '/account/passkeys/options');
      expect(adding.status).toBe(404);
    } finally {
      await provider.stop();
    }
    const { passkeyRpId } = await import('../src/accounts/passkeys.ts');
    expect(passkeyRpId({ origin: 'http://127.0.0.1:8080', accountMaxPasskeys: 10 })).toBeUndefined();
    expect(passkeyRpId({ origin: 'http://[::1]:8080', accountMaxPasskeys: 10 })).toBeUndefined();
    expect(passkeyRpId({ origin: 'https://id.example.com:8443', accountMaxPasskeys: 10 })).toBe('id.example.com');
  });
});

describe('audit events and the operator’s view', () => {
  it('writes account.passkey_added and account.passkey_removed; signet accounts show lists the passkeys', async () => {
    const file = join(dir, `audit-${randomUUID()}.log`);
    const storage = STORAGES.sqlite?.() ?? {};
    const provider = await startTestProvider({ AUDIT_LOG: file, ...storage });
    try {
      const kit = passkeyHelpers(provider);
      const client = await registerPublicClient(provider.issuer, { account_subject: true } as never);
      const jar = new CookieJar();
      const signer = key();
      await walletSignIn({ authorizationUrl: (await pkceAuthorization(client, { prompt: 'login' })).url, signer, jar });
      const authenticator = new SoftAuthenticator({ origin: kit.origin });
      const { id } = (await (await kit.addPasskey(jar, authenticator, 'Phone')).json()) as { id: string };
      const { runCli } = await import('../src/cli.ts');
      const out: string[] = [];
      const env = { ...storage, LOG_LEVEL: 'silent' };
      expect(await runCli(['accounts', 'show', `eip155:0:${signer.address}`, '--json'], env, (line) => out.push(line))).toBe(0);
      const shown = JSON.parse(out.join('\n')) as { passkeys: Json[] };
      expect(shown.passkeys).toEqual([{ id, name: 'Phone', kind: 'device-bound', created_at: expect.any(String) }]);
      expect((await kit.call(jar, 'DELETE', `/account/passkeys/${id}`)).status).toBe(204);
      const { readFileSync } = await import('node:fs');
      await expect
        .poll(() =>
          readFileSync(file, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as Json)
            .filter((line) => String(line.event).startsWith('account.passkey'))
            .map((line) => [line.event, line.passkey]),
        )
        .toEqual([
          ['account.passkey_added', id],
          ['account.passkey_removed', id],
        ]);
    } finally {
      await provider.stop();
    }
  });
});

describe('a gated account client that opted in: its conditions are checked against the account’s primary wallet', () => {
  let chain: Testchain;
  let erc721: TestToken;
  let provider: TestProvider;
  let kit: ReturnType<typeof passkeyHelpers>;
  let open: oidc.Configuration;
  let gated: oidc.Configuration;

  beforeAll(async () => {
    chain = await startTestchain({ chainId: 1, ens: false });
    erc721 = await chain.deployToken('erc721');
    provider = await startTestProvider({ ETH_RPC_URL: chain.url, ACCESS_CACHE_SECONDS: '0' });
    kit = passkeyHelpers(provider);
    open = await registerPublicClient(provider.issuer, { account_subject: true } as never);
    gated = await registerPublicClient(provider.issuer, {
      account_subject: true,
      passkey_sign_in: true,
      grant_types: ['authorization_code', 'refresh_token'],
      access_conditions: { match: 'all', conditions: [{ type: 'erc721', chainId: 1, contract: erc721.address }] },
    } as never);
  });
  afterAll(async () => {
    await provider?.stop();
    await chain?.stop();
  });

  /** A person whose account's primary wallet is `signer`, with a synced passkey (its counter stays 0, as most synced passkeys' do). */
  async function person(signer: PrivateKeyAccount) {
    const jar = new CookieJar();
    await walletSignIn({ authorizationUrl: (await pkceAuthorization(open, { prompt: 'login' })).url, signer, jar });
    const authenticator = new SoftAuthenticator({ origin: kit.origin, backupEligible: true });
    expect((await kit.addPasskey(jar, authenticator)).status).toBe(201);
    return authenticator;
  }

  it('a holder’s passkey signs in and refreshes; a non-holder’s is refused, and that answer cannot be posted again', async () => {
    const holder = key();
    await erc721.mint(holder.address, { id: 7n });
    const holding = await person(holder);
    const { url, verifier } = await pkceAuthorization(gated, { scope: 'openid offline_access', prompt: 'login consent' });
    const jar = new CookieJar();
    const interactionUrl = await startInteraction(jar, url);
    const posted = await kit.post(jar, interactionUrl, await kit.assertion(jar, interactionUrl, holding, { counter: 0 }));
    expect(posted.status, await posted.clone().text()).toBe(303);
    const callbackUrl = await followToClient(jar, interactionUrl, posted.headers.get('location') as string);
    const tokens = await oidc.authorizationCodeGrant(gated, callbackUrl, { pkceCodeVerifier: verifier });
    // A refresh checks the conditions again, against the same primary wallet.
    expect((await oidc.refreshTokenGrant(gated, tokens.refresh_token as string)).access_token).toEqual(expect.any(String));

    const empty = await person(key());
    const fresh = new CookieJar();
    const other = await startInteraction(fresh, (await pkceAuthorization(gated, { prompt: 'login' })).url);
    const answer = await kit.assertion(fresh, other, empty, { counter: 0 });
    const refused = await kit.post(fresh, other, answer);
    expect({ status: refused.status, error: ((await refused.json()) as Json).error }).toEqual({
      status: 403,
      error: 'ACCESS_CONDITION_NOT_MET',
    });
    // Its counter says nothing (0), the interaction is still open: the spent challenge is what refuses it.
    const again = await kit.post(fresh, other, answer);
    expect({ status: again.status, error: ((await again.json()) as Json).error }).toEqual({
      status: 400,
      error: 'PASSKEY_CHALLENGE_MISMATCH',
    });
  });
});

describe('rate limits', () => {
  it('challenges and answers count in the interaction rate limit: 429 with Retry-After', async () => {
    const provider = await startTestProvider({ RATE_LIMIT_INTERACTION: '4' });
    try {
      const client = await registerPublicClient(provider.issuer, { account_subject: true } as never);
      const jar = new CookieJar();
      const interactionUrl = await startInteraction(jar, (await pkceAuthorization(client, { prompt: 'login' })).url);
      const options = () =>
        request(jar, new URL(`${interactionUrl.pathname}/passkey`, interactionUrl), { headers: { accept: 'application/json' } });
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await options()).status);
      expect(statuses).toEqual([200, 200, 200, 200]);
      const limited = await options();
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
      const answer = await passkeyHelpers(provider).post(jar, interactionUrl, {
        id: 'AAAA',
        type: 'public-key',
        response: { clientDataJSON: 'e30' },
      });
      expect(answer.status).toBe(429);
    } finally {
      await provider.stop();
    }
  });
});
