import { describe, expect, it } from 'vitest';
import { createOidcAdapter, listModelIds } from './adapter.ts';
import { createMemoryStore } from './memory.ts';

describe('oidc adapter retention', () => {
  it('keeps an expired interaction only 10 more minutes (to tell "expired" from "unknown"), nothing else longer than its lifetime', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const store = createMemoryStore(() => now);
    const Adapter = createOidcAdapter(store);
    const interactions = new Adapter('Interaction');
    const codes = new Adapter('AuthorizationCode');
    await interactions.upsert('i1', { uid: 'i1', exp: now / 1000 + 600 }, 600);
    await codes.upsert('c1', { exp: now / 1000 + 60 }, 60);
    now += 61_000;
    expect(await codes.find('c1')).toBeUndefined();
    now += (600 - 61 + 599) * 1000;
    expect(await interactions.find('i1')).toBeDefined();
    now += 2000;
    expect(await interactions.find('i1')).toBeUndefined();
  });
});

describe('oidc adapter grant index', () => {
  it("revoking a grant removes its tokens and codes, not an interaction that names it (another account's sign-in under way)", async () => {
    const store = createMemoryStore();
    const Adapter = createOidcAdapter(store);
    await new Adapter('AccessToken').upsert('at1', { grantId: 'g1' }, 60);
    await new Adapter('DeviceCode').upsert('dc1', { grantId: 'g1', userCode: 'BCDFGHJK' }, 600);
    await new Adapter('Interaction').upsert('i1', { uid: 'i1', grantId: 'g1' }, 600);
    await new Adapter('AccessToken').revokeByGrantId('g1');
    expect(await new Adapter('AccessToken').find('at1')).toBeUndefined();
    expect(await new Adapter('DeviceCode').find('dc1')).toBeUndefined();
    expect(await new Adapter('Interaction').find('i1')).toBeDefined();
  });
});

describe('listModelIds', () => {
  it("lists one model's ids, not its consumed markers, lookups or other models", async () => {
    const store = createMemoryStore();
    const Adapter = createOidcAdapter(store);
    await new Adapter('Client').upsert('b-client', { client_id: 'b-client' }, undefined as unknown as number);
    await new Adapter('Client').upsert('a-client', { client_id: 'a-client' }, undefined as unknown as number);
    await store.set('oidc:Client:a-client:consumed', '1');
    await new Adapter('Session').upsert('s1', { uid: 'u1' }, 60);
    expect(await listModelIds(store, 'Client')).toEqual(['a-client', 'b-client']);
    expect(await listModelIds(store, 'Session')).toEqual(['s1']);
  });
});
