/**
 * Which clients count as used, and the expiry of dynamically registered clients never used for a
 * sign-in: recorded once at the first sign-in, swept by the provider with
 * CLIENT_UNUSED_EXPIRY_DAYS (off by default), never touching the operator's clients or clients
 * stored before usage was recorded.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pkceAuthorization, registerPublicClient, startTestProvider, walletSignIn } from '@signet/testkit';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it, vi } from 'vitest';
import { findUnusedClients, pruneUnusedClients } from '../src/clients/expiry.ts';
import { loadConfig } from '../src/config.ts';
import { createOidcAdapter, createStore, type Store } from '../src/storage/index.ts';

const DAY = 24 * 3600;
const sqlite = () => `sqlite:${join(mkdtempSync(join(tmpdir(), 'signet-expiry-')), 'signet.db')}`;

/** A client record as oidc-provider stores a dynamic registration, `ageDays` old, with its registration access token and a logo. */
async function storeDynamicClient(store: Store, id: string, ageDays: number) {
  const Adapter = createOidcAdapter(store);
  await new Adapter('Client').upsert(id, {
    client_id: id,
    client_id_issued_at: Math.floor(Date.now() / 1000) - ageDays * DAY,
    redirect_uris: ['https://rp.example.com/cb'],
    client_name: `RP ${id}`,
    token_endpoint_auth_method: 'none',
  });
  await new Adapter('RegistrationAccessToken').upsert(`rat-${id}`, { clientId: id, kind: 'RegistrationAccessToken' });
  await store.set(
    `logo:${id}`,
    JSON.stringify({ uri: 'https://rp.example.com/logo.png', type: 'image/png', body: 'AA==', size: 1 }),
  );
}

async function withStore<T>(url: string, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await createStore(loadConfig({ STORAGE_URL: url }));
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

describe('client usage and expiry', () => {
  it('a completed sign-in marks the client used, with one write per client and process', async () => {
    const provider = await startTestProvider();
    try {
      const store = provider.app.services.store;
      const writes = vi.spyOn(store, 'setIfAbsent');
      const client = await registerPublicClient(provider.url);
      const id = client.clientMetadata().client_id;
      expect(await store.get(`client:used:${id}`)).toBeUndefined();
      for (let i = 0; i < 2; i++) {
        const { url } = await pkceAuthorization(client);
        await walletSignIn({ authorizationUrl: url, signer: privateKeyToAccount(generatePrivateKey()) });
      }
      expect(JSON.parse((await store.get(`client:used:${id}`)) as string)).toMatchObject({ by: 'sign-in' });
      expect(writes.mock.calls.filter(([key]) => key === `client:used:${id}`)).toHaveLength(1);
    } finally {
      await provider.stop();
    }
  });

  it('findUnusedClients / pruneUnusedClients: only dynamic clients older than N days with no sign-in, with their tokens and logos', async () => {
    const url = sqlite();
    // A provider has run on this storage: usage is recorded from then on.
    await (await startTestProvider({ STORAGE_URL: url })).stop();
    await withStore(url, async (store) => {
      await storeDynamicClient(store, 'old-unused', 40);
      await storeDynamicClient(store, 'old-used', 40);
      await storeDynamicClient(store, 'recent-unused', 2);
      await store.set('client:used:old-used', JSON.stringify({ at: Date.now(), by: 'sign-in' }));
      expect((await findUnusedClients(store, 30)).map((c) => c.client_id)).toEqual(['old-unused']);
      expect((await findUnusedClients(store, 1)).map((c) => c.client_id)).toEqual(['old-unused', 'recent-unused']);
      expect((await pruneUnusedClients(store, 30, { dryRun: true })).map((c) => c.client_id)).toEqual(['old-unused']);
      expect(await store.get('oidc:Client:old-unused')).toBeDefined();
      const removed = await pruneUnusedClients(store, 30);
      expect(removed).toEqual([expect.objectContaining({ client_id: 'old-unused', client_name: 'RP old-unused' })]);
      for (const key of ['oidc:Client:old-unused', 'oidc:RegistrationAccessToken:rat-old-unused', 'logo:old-unused']) {
        expect(await store.get(key), key).toBeUndefined();
      }
      for (const key of ['oidc:Client:old-used', 'oidc:RegistrationAccessToken:rat-old-used', 'oidc:Client:recent-unused']) {
        expect(await store.get(key), key).toBeDefined();
      }
    });
  });

  it('CLIENT_UNUSED_EXPIRY_DAYS: the provider removes unused dynamic clients itself (off by default)', async () => {
    const url = sqlite();
    await (await startTestProvider({ STORAGE_URL: url })).stop();
    await withStore(url, (store) => storeDynamicClient(store, 'stale', 10));
    const off = await startTestProvider({ STORAGE_URL: url });
    try {
      expect(off.config.clientUnusedExpiryDays).toBe(0);
      expect(await off.app.services.provider().Client.find('stale')).toBeDefined();
    } finally {
      await off.stop();
    }
    const on = await startTestProvider({ STORAGE_URL: url, CLIENT_UNUSED_EXPIRY_DAYS: '7' });
    try {
      const deadline = Date.now() + 15_000;
      while ((await on.app.services.store.get('oidc:Client:stale')) !== undefined) {
        if (Date.now() > deadline) throw new Error('the stale client was not removed');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await on.app.services.store.get('oidc:RegistrationAccessToken:rat-stale')).toBeUndefined();
    } finally {
      await on.stop();
    }
  });

  it('a prune on a storage no provider of this version has opened yet removes none of the clients already there', async () => {
    const url = sqlite();
    await withStore(url, async (store) => {
      await storeDynamicClient(store, 'legacy-a', 400);
      await storeDynamicClient(store, 'legacy-b', 400);
      expect(await pruneUnusedClients(store, 1)).toEqual([]);
      expect(await store.get('oidc:Client:legacy-a')).toBeDefined();
      expect(JSON.parse((await store.get('client:used:legacy-b')) as string)).toMatchObject({ by: 'before-tracking' });
      // A client registered from then on, and never used, is a candidate.
      await storeDynamicClient(store, 'new-spam', 3);
      expect((await findUnusedClients(store, 1)).map((c) => c.client_id)).toEqual(['new-spam']);
    });
  });

  it('clients stored before usage was recorded count as used (before-tracking) and are never expired', async () => {
    const url = sqlite();
    await withStore(url, (store) => storeDynamicClient(store, 'legacy', 400));
    const provider = await startTestProvider({ STORAGE_URL: url, CLIENT_UNUSED_EXPIRY_DAYS: '1' });
    try {
      const store = provider.app.services.store;
      expect(JSON.parse((await store.get('client:used:legacy')) as string)).toMatchObject({ by: 'before-tracking' });
      expect(await findUnusedClients(store, 1)).toEqual([]);
      expect(await store.get('oidc:Client:legacy')).toBeDefined();
    } finally {
      await provider.stop();
    }
  });
});
