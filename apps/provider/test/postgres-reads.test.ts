/**
 * A sign-in on PostgreSQL reads each record together with what it names (a token with its grant
 * and session, a resumed interaction with its grant, a wallet's link with its account): one
 * statement where a request would otherwise wait on one round trip after another. The store is
 * a real PostgreSQL store on the machine's server (a schema of its own), watched: each call is
 * recorded with the request that made it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { pkceAuthorization, registerPublicClient, startTestProvider, type TestProvider, walletSignIn } from '@signet/testkit';
import { postgresSchema, type TestSchema } from '@signet/testkit/postgres';
import * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOidcAdapter } from '../src/storage/adapter.ts';
import { aroundEachOperation } from '../src/storage/around.ts';
import { createPostgresStore, type PostgresStore } from '../src/storage/postgres/postgres.ts';
import { withUnitsOfWork } from '../src/storage/unit-of-work.ts';

describe('a sign-in on PostgreSQL: a record and what it names in one statement', () => {
  const calls: { request: string; call: string }[] = [];
  const current = new AsyncLocalStorage<string>();
  let provider: TestProvider;
  let postgres: PostgresStore;
  let schema: TestSchema;
  beforeAll(async () => {
    schema = postgresSchema();
    postgres = await createPostgresStore(schema.url);
    const store = aroundEachOperation(postgres, (operation, { key }, run) => {
      // Client records aside (read on every request; answered from memory in a running provider).
      if (!key?.startsWith('oidc:Client:')) {
        calls.push({ request: current.getStore() ?? '(none)', call: `${operation} ${key?.split(':').slice(0, 2).join(':')}` });
      }
      return run();
    });
    provider = await startTestProvider({}, { store });
    const handlers = provider.server.listeners('request') as ((...args: unknown[]) => void)[];
    provider.server.removeAllListeners('request');
    provider.server.on('request', (req, res) => {
      const route = `${req.method} ${(req.url ?? '').split('?')[0]?.replace(/\/(interaction|auth)\/[^/]+/, '/$1/:uid')}`;
      current.run(route, () => {
        for (const handler of handlers) handler(req, res);
      });
    });
  });
  afterAll(async () => {
    await provider?.stop();
    await postgres?.close();
    await schema?.drop();
  });

  it('token and userinfo: one read each; the resume one; the signed post reads the wallet with its account', async () => {
    const config = await registerPublicClient(provider.url);
    const signer = privateKeyToAccount(generatePrivateKey());
    // The wallet's first sign-in makes its account; the second finds it through the wallet's link.
    await walletSignIn({ authorizationUrl: (await pkceAuthorization(config)).url, signer });
    const { url, verifier } = await pkceAuthorization(config);
    calls.length = 0;
    const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer });
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier });
    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, oidc.skipSubjectCheck);
    expect(userinfo.sub).toBeTruthy();

    const of = (request: string) => calls.filter((c) => c.request === request && !c.call.startsWith('batch')).map((c) => c.call);
    expect(of('POST /token')).toEqual(['getWithReferences oidc:AuthorizationCode', 'setIfAbsent oidc:AuthorizationCode']);
    expect(of('GET /me')).toEqual(['getWithReferences oidc:AccessToken']);
    expect(of('GET /auth/:uid')).toEqual(['getWithReferences oidc:Interaction']);
    expect(of('POST /interaction/:uid')).toEqual([
      'getWithReferences oidc:Interaction',
      'getWithReferences wallet:eip155',
      'setIfAbsent interaction:done',
    ]);
    // No record was read twice, nor on its own after the read that named it.
    expect(calls.filter((c) => c.call.startsWith('get ') || c.call.startsWith('getMany '))).toEqual([]);
    // The whole sign-in, client records aside: 6 reads, 2 claims and 4 batches, a statement each
    // (18 before reads followed references).
    expect(calls.filter((c) => c.call.startsWith('batch'))).toHaveLength(4);
    expect(calls).toHaveLength(12);
    expect(calls.every((c) => c.request !== '(none)')).toBe(true);
  });
});

describe('what a read followed is the request’s own: never kept past it, never over its own writes', () => {
  it('a grant the other replica revokes between two requests is gone for the next; the request’s own write wins', async () => {
    const schema = postgresSchema();
    const [a, b] = await Promise.all([createPostgresStore(schema.url), createPostgresStore(schema.url)]);
    try {
      const A = withUnitsOfWork(a);
      const B = withUnitsOfWork(b);
      const AdapterA = createOidcAdapter(A);
      const AdapterB = createOidcAdapter(B);
      await B.run(async () => {
        await new AdapterB('Grant').upsert('g1', { jti: 'g1', accountId: 'acc' }, 60);
        await new AdapterB('AccessToken').upsert('t1', { jti: 't1', grantId: 'g1', sessionUid: 'u1' }, 60);
      });
      const reads = () => a.statements.get('get_with_references') ?? 0;
      const first = await A.run(async () => {
        const before = reads();
        const token = await new AdapterA('AccessToken').find('t1');
        const grant = await new AdapterA('Grant').find('g1');
        return { token, grant, statements: reads() - before, gets: a.statements.get('get') ?? 0 };
      });
      expect(first).toMatchObject({ token: { grantId: 'g1' }, grant: { accountId: 'acc' }, statements: 1, gets: 0 });
      await B.run(() => new AdapterB('Grant').destroy('g1'));
      expect(await A.run(() => new AdapterA('Grant').find('g1'))).toBeUndefined();
      // Written by the request before the read that names it came back: the written value stands.
      await B.run(() => new AdapterB('Grant').upsert('g1', { jti: 'g1', accountId: 'stored' }, 60));
      const own = await A.run(async () => {
        await new AdapterA('Grant').upsert('g1', { jti: 'g1', accountId: 'written' }, 60);
        await new AdapterA('AccessToken').find('t1');
        return new AdapterA('Grant').find('g1');
      });
      expect(own).toMatchObject({ accountId: 'written' });
    } finally {
      await Promise.all([a.close(), b.close()]);
      await schema.drop();
    }
  });
});
