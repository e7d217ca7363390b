import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '@signet/provider';
import { pkceAuthorization, registerPublicClient, startTestProvider, type TestProvider, walletSignIn } from '@signet/testkit';
import * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aroundEachOperation } from '../src/storage/around.ts';
import { createSqliteStore } from '../src/storage/sqlite/sqlite.ts';
import { delegateTo, StorageUnavailableError } from '../src/storage/store.ts';

/**
 * A request's writes are stored together, at its end and before its answer leaves. The store
 * under the provider is a real SQLite store (the default storage), watched: each call is recorded with the request
 * that made it, and every batch is slowed down, so an answer sent before its writes were
 * stored would show.
 */
type Call = { request: string; operation: string; key?: string; writes?: number; storedAt?: number };

function watched(inner: Store, calls: Call[], current: AsyncLocalStorage<string>): Store {
  return aroundEachOperation(inner, async (operation, { key, writes }, run) => {
    const call: Call = {
      request: current.getStore() ?? '(none)',
      operation,
      ...(key ? { key } : {}),
      ...(writes ? { writes: writes.length } : {}),
    };
    calls.push(call);
    if (operation !== 'batch') return run();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const result = await run();
    call.storedAt = performance.now();
    return result;
  });
}

/** A provider whose store records every operation (and the request it ran in), and the time each request was answered. */
function recordingProvider() {
  const calls: Call[] = [];

  const current = new AsyncLocalStorage<string>();

  const answeredAt = new Map<string, number>();

  let provider: TestProvider;

  const dir = mkdtempSync(join(tmpdir(), 'signet-unit-of-work-'));

  beforeAll(async () => {
    const store = watched(createSqliteStore(join(dir, 'signet.db')), calls, current);
    provider = await startTestProvider({}, { store });
    // Tag each request with its route, for the recorded calls.
    const handlers = provider.server.listeners('request') as ((...args: unknown[]) => void)[];
    provider.server.removeAllListeners('request');
    provider.server.on('request', (req, res) => {
      const route = `${req.method} ${(req.url ?? '').split('?')[0]?.replace(/\/(interaction|auth)\/[^/]+/, '/$1/:uid')}`;
      const writeHead = res.writeHead.bind(res);
      res.writeHead = ((...args: Parameters<typeof res.writeHead>) => {
        answeredAt.set(route, performance.now());
        return writeHead(...args);
      }) as typeof res.writeHead;
      current.run(route, () => {
        for (const handler of handlers) handler(req, res);
      });
    });
  });
  afterAll(async () => {
    await provider?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** signet_storage_operations_total by operation, and the batched writes, from GET /metrics. */
  async function storageCounters(): Promise<Record<string, number>> {
    const text = await (await fetch(`${provider.url}/metrics`)).text();
    const counters: Record<string, number> = {};
    for (const [, label, value] of text.matchAll(/^signet_storage_operations_total\{(operation="\w+")\} (\d+)$/gm)) {
      counters[label as string] = Number(value);
    }
    counters.writes = Number(/^signet_storage_batched_writes_total (\d+)$/m.exec(text)?.[1] ?? 0);
    return counters;
  }

  return {
    calls,
    current,
    answeredAt,
    get provider() {
      return provider;
    },
    dir,
    storageCounters,
  };
}
type RecordingProvider = ReturnType<typeof recordingProvider>;

/** A whole sign-in, request by request. */
function wholeSignInTests(env: RecordingProvider) {
  it('a whole sign-in: one batch per request that writes, no write on its own, each stored before the answer', async () => {
    const { calls, answeredAt, provider, storageCounters } = env;
    const config = await registerPublicClient(provider.url);
    // The client's first sign-in also marks it used (once per client): measure the next one.
    await walletSignIn({
      authorizationUrl: (await pkceAuthorization(config)).url,
      signer: privateKeyToAccount(generatePrivateKey()),
    });
    const { url, verifier } = await pkceAuthorization(config);
    const before = await storageCounters();
    calls.length = 0;
    const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer: privateKeyToAccount(generatePrivateKey()) });
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier });
    await oidc.fetchUserInfo(config, tokens.access_token, oidc.skipSubjectCheck);

    const byRequest = new Map<string, Call[]>();
    for (const call of calls) byRequest.set(call.request, [...(byRequest.get(call.request) ?? []), call]);
    // Every write went into its request's batch: none was stored on its own.
    expect(calls.filter((c) => ['set', 'delete', 'addToSet'].includes(c.operation)).map((c) => JSON.stringify(c))).toEqual([]);
    for (const [request, made] of byRequest) {
      expect(made.filter((c) => c.operation === 'batch').length, request).toBeLessThanOrEqual(1);
    }
    // The requests that write: authorize (the interaction), the signed post (grant, sign-in
    // record, result), the resume (code, session), the token request (access token).
    const batches = calls.filter((c) => c.operation === 'batch');
    expect(batches.map((c) => c.request)).toEqual(['GET /auth', 'POST /interaction/:uid', 'GET /auth/:uid', 'POST /token']);
    for (const batch of batches) {
      expect(batch.writes).toBeGreaterThanOrEqual(1);
      // Stored (the slowed batch finished) before the request's answer began.
      expect(batch.storedAt, batch.request).toBeLessThan(answeredAt.get(batch.request) ?? 0);
    }
    // GET /metrics counts what reached the storage: the same operations, a batch once.
    const after = await storageCounters();
    const counted = (name: string) => (after[name] ?? 0) - (before[name] ?? 0);
    for (const operation of ['get', 'getMany', 'setIfAbsent', 'batch']) {
      expect(counted(`operation="${operation}"`), operation).toBe(calls.filter((c) => c.operation === operation).length);
    }
    expect(counted('writes')).toBe(batches.reduce((sum, c) => sum + (c.writes ?? 0), 0));
    // Reads go out as soon as the request knows it will make them, each with another when it can
    // (one round trip on Redis): the wallet's link with the outcome's claim, a code's or token's
    // grant with its session; the session by the id its uid was stored under here (no uid read).
    const order = (request: string) =>
      (byRequest.get(request) ?? [])
        .filter((c) => c.operation !== 'batch' && !c.key?.startsWith('oidc:Client:'))
        .map((c) => `${c.operation} ${c.key?.split(':').slice(0, 2).join(':')}`);
    expect(order('POST /interaction/:uid')).toEqual([
      'get oidc:Interaction',
      'get wallet:eip155',
      'setIfAbsent interaction:done',
      'setIfAbsent wallet:eip155',
    ]);
    expect(order('POST /token')).toEqual([
      'getMany oidc:AuthorizationCode',
      'get oidc:Grant',
      'get oidc:Session',
      'setIfAbsent oidc:AuthorizationCode',
    ]);
    expect(order('GET /me')).toEqual(['get oidc:AccessToken', 'get oidc:Grant', 'get oidc:Session']);
    // One-time claims stay immediate and atomic: the new wallet's link to its new account (a
    // first sign-in), the interaction's outcome, and the code.
    expect(calls.filter((c) => c.operation === 'setIfAbsent').map((c) => `${c.request} ${c.key?.split(':')[0]}`)).toEqual([
      'POST /interaction/:uid interaction',
      'POST /interaction/:uid wallet',
      'POST /token oidc',
    ]);
  });
}

/** What a token request reads, and a token stored after its grant was revoked. */
function readAndRevocationTests(env: RecordingProvider) {
  it('the sign-in record is read for the claims of a profile scope, and not for openid alone (its only claim is sub)', async () => {
    const { calls, provider } = env;
    const readsOfRecords = async (scope: string) => {
      const config = await registerPublicClient(provider.url, { scope });
      const { url, verifier } = await pkceAuthorization(config, { scope });
      const signer = privateKeyToAccount(generatePrivateKey());
      const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer });
      calls.length = 0;
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier });
      const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, oidc.skipSubjectCheck);
      const reads = calls.filter((c) => c.key?.startsWith('signin:')).map((c) => c.request);
      return { reads, userinfo, claims: tokens.claims(), address: signer.address };
    };
    const bare = await readsOfRecords('openid');
    expect(bare.reads).toEqual([]);
    expect(Object.keys(bare.userinfo)).toEqual(['sub']);
    expect(bare.claims?.sub).toBe(`eip155:1:${bare.address}`);
    const profile = await readsOfRecords('openid profile');
    expect(profile.reads).toEqual(['POST /token', 'GET /me']);
    expect(profile.userinfo.preferred_username).toBe(profile.address);
  });

  it('an access token stored after its grant was revoked (a code reused while its first exchange ran) is refused', async () => {
    const { provider } = env;
    const config = await registerPublicClient(provider.url);
    const { url, verifier } = await pkceAuthorization(config);
    const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer: privateKeyToAccount(generatePrivateKey()) });
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier });
    const me = () => fetch(`${provider.url}/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect((await me()).status).toBe(200);
    const store = provider.app.services.store;
    const record = JSON.parse((await store.get(`oidc:AccessToken:${tokens.access_token}`)) ?? '{}') as { grantId?: string };
    expect(record.grantId).toBeTruthy();
    // What a reuse's revocation leaves when the first exchange's held token write lands after it:
    // the grant gone, the access token stored.
    await store.delete(`oidc:Grant:${record.grantId}`);
    expect(await store.get(`oidc:AccessToken:${tokens.access_token}`)).toBeDefined();
    const userinfo = await me();
    expect(userinfo.status).toBe(401);
    expect(userinfo.headers.get('www-authenticate')).toContain('invalid_token');
  });
}

describe('each request is one unit of storage work', () => {
  const env = recordingProvider();
  wholeSignInTests(env);
  readAndRevocationTests(env);
});

describe('a batch the storage refuses', () => {
  let provider: TestProvider;
  let refuse = false;
  const dir = mkdtempSync(join(tmpdir(), 'signet-unit-of-work-'));
  beforeAll(async () => {
    const inner = createSqliteStore(join(dir, 'signet.db'));
    // The storage fails exactly when asked to store a request's writes (a disk that filled up,
    // a Redis that went away between the request's reads and its end).
    const store: Store = {
      ...delegateTo(inner),
      batch: (writes) =>
        refuse
          ? Promise.reject(new StorageUnavailableError('SQLite: SQLITE_FULL (database or disk is full)'))
          : inner.batch(writes),
    };
    provider = await startTestProvider({}, { store });
  });
  afterAll(async () => {
    await provider?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 STORAGE_UNAVAILABLE instead of a redirect to what was not stored, and serves the next request', async () => {
    const config = await registerPublicClient(provider.url);
    const { url } = await pkceAuthorization(config);
    refuse = true;
    const refused = await fetch(url, { redirect: 'manual' });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ error: 'temporarily_unavailable' });
    refuse = false;
    const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer: privateKeyToAccount(generatePrivateKey()) });
    expect(callbackUrl.searchParams.get('code')).toBeTruthy();
  });
});
