import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { describe, expect, it } from 'vitest';
import { createOidcAdapter, recordKey } from '../storage/adapter.ts';
import { createMemoryStore } from '../storage/memory.ts';
import type { Store } from '../storage/store.ts';
import { reuseClientObjects } from './objects.ts';

const registered = (id: string, name: string) => ({
  client_id: id,
  client_name: name,
  redirect_uris: ['https://rp.example.com/callback'],
  token_endpoint_auth_method: 'none',
  response_types: ['code'],
  grant_types: ['authorization_code'],
  id_token_signed_response_alg: 'ES256',
});

const { privateKey } = await generateKeyPair('ES256', { extractable: true });
const jwks = { keys: [{ ...(await exportJWK(privateKey)), alg: 'ES256', use: 'sig' }] };

/**
 * A real oidc-provider on Signet's adapter, its Client.find wrapped; every read of a client record
 * counted, and every call of oidc-provider's own find (which parses, serializes and hashes).
 */
function setup() {
  const memory = createMemoryStore();
  const reads: string[] = [];
  const store: Store = {
    ...memory,
    get: (key) => {
      reads.push(key);
      return memory.get(key);
    },
  };
  const provider = new Provider('https://op.example.com', {
    adapter: createOidcAdapter(store) as never,
    clients: [registered('from-file', 'From the file')] as never,
    jwks: jwks as never,
    features: { devInteractions: { enabled: false } },
  });
  const Client = provider.Client as unknown as { find(id: unknown): Promise<unknown> };
  const ownFind = Client.find.bind(Client);
  let slow = 0;
  Client.find = (id) => {
    slow += 1;
    return ownFind(id);
  };
  reuseClientObjects(provider, store, new Set(['from-file']));
  const put = (id: string, name: string) => memory.set(recordKey('Client', id), JSON.stringify(registered(id, name)));
  return { provider, memory, reads, put, slow: () => slow };
}

type Found = { clientId: string; clientName?: string } | undefined;

describe('reuseClientObjects', () => {
  it('answers the object made from the stored text while the text is unchanged, reading the record each time', async () => {
    const { provider, reads, put, slow } = setup();
    await put('rp-1', 'First name');
    const first = (await provider.Client.find('rp-1')) as Found;
    expect(first?.clientName).toBe('First name');
    expect(slow()).toBe(1);
    reads.length = 0;
    const again = await provider.Client.find('rp-1');
    expect(again).toBe(first);
    // One read of the record, and oidc-provider's find not run again.
    expect(reads).toEqual([recordKey('Client', 'rp-1')]);
    expect(slow()).toBe(1);
  });

  it('sees a changed record at the next find', async () => {
    const { provider, put, slow } = setup();
    await put('rp-1', 'First name');
    const first = (await provider.Client.find('rp-1')) as Found;
    await put('rp-1', 'Second name');
    const second = (await provider.Client.find('rp-1')) as Found;
    expect(second).not.toBe(first);
    expect(second?.clientName).toBe('Second name');
    expect(await provider.Client.find('rp-1')).toBe(second);
    expect(slow()).toBe(2);
  });

  it('finds nothing once the record is deleted, and nothing for an unknown id', async () => {
    const { provider, memory, put } = setup();
    await put('rp-1', 'First name');
    expect(await provider.Client.find('rp-1')).toBeDefined();
    await memory.delete(recordKey('Client', 'rp-1'));
    expect(await provider.Client.find('rp-1')).toBeUndefined();
    expect(await provider.Client.find('nobody')).toBeUndefined();
    expect(await provider.Client.find('')).toBeUndefined();
  });

  it('leaves clients from CLIENTS_FILE to oidc-provider, without a read of storage', async () => {
    const { provider, reads } = setup();
    const client = (await provider.Client.find('from-file')) as Found;
    expect(client?.clientName).toBe('From the file');
    expect(reads).toEqual([]);
  });

  it('holds no object when the record changed while oidc-provider read it', async () => {
    const { provider, memory, put } = setup();
    await put('rp-1', 'First name');
    // The record changes between the wrapper's read and oidc-provider's: what oidc-provider made
    // belongs to the new text, so it is answered but not held for the old one.
    const get = memory.get;
    let calls = 0;
    memory.get = async (key) => {
      calls += 1;
      if (calls === 2) await put('rp-1', 'Changed meanwhile');
      return get(key);
    };
    const during = (await provider.Client.find('rp-1')) as Found;
    expect(during?.clientName).toBe('Changed meanwhile');
    memory.get = get;
    await put('rp-1', 'First name');
    const after = (await provider.Client.find('rp-1')) as Found;
    expect(after?.clientName).toBe('First name');
  });
});
