/**
 * The name resolver on its own, against a real local chain (ENS on chain 1) and a real gateway
 * on loopback: what a profile holds (name, avatar, e-mail), how many requests it costs the
 * node, and the cache (per address, chain and kind of account; the normalization rule applied
 * to what it holds). The whole sign-in is in apps/provider/test/names.test.ts.
 */

import { ETH_CALL_GAS_CAP } from '@signet/siwe';
import {
  coinTypeOf,
  DEFAULT_COIN_TYPE,
  type RpcProxy,
  startEnsGateway,
  startRpcProxy,
  startTestchain,
  type Testchain,
} from '@signet/testchain';
import fc from 'fast-check';
import { type Address, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { normalize } from 'viem/ens';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../observability/logger.ts';
import { claimsOf } from '../../relying-party/claims.ts';
import { createMemoryStore } from '../../storage/index.ts';
import { cacheKeyOf, createEnsResolver, type EnsOptions, usableEmail } from './index.ts';
import { isNormalized } from './normalized.ts';

const OP = 10;
const AVATAR = 'http://127.0.0.1:9/avatar.png';
const fresh = () => privateKeyToAccount(generatePrivateKey()).address;
const plain = { chainId: 1, contractWallet: false };

let chain: Testchain;
let proxy: RpcProxy;

beforeAll(async () => {
  chain = await startTestchain({ chainId: 1 });
  proxy = await startRpcProxy(chain.url);
});
afterAll(async () => {
  await proxy?.close();
  await chain?.stop();
});

const resolver = (options: Partial<EnsOptions> = {}) => {
  const store = createMemoryStore();
  const ens = createEnsResolver({
    rpcUrl: proxy.url,
    cacheTtlSeconds: 3600,
    timeoutMs: 5000,
    allowPrivate: true,
    store,
    logger: createLogger('silent'),
    ...options,
  });
  return { ens, store };
};

describe('isNormalized: exactly viem`s normalize (ENSIP-15)', () => {
  const viemSays = (name: string) => {
    try {
      return normalize(name) === name;
    } catch {
      return false;
    }
  };

  it('agrees on the issue`s look-alikes', () => {
    for (const name of ['vіtalik.eth', 'Vitalik.eth', 'vita\u200dlik.eth', 'vitalik\u202e.eth', 'xn--vitalik.eth', 'a--b.eth']) {
      expect({ name, normalized: isNormalized(name) }).toEqual({ name, normalized: viemSays(name) });
    }
    expect(isNormalized('vitalik.eth')).toBe(true);
    expect(isNormalized('👍.eth')).toBe(true);
    expect(isNormalized('vіtalik.eth')).toBe(false);
  });

  it('agrees on any name made of ASCII, hyphens and dots, look-alike letters, marks, controls and emoji', () => {
    // Mostly what the fast path sees (lowercase, digits, hyphens, dots), with the rest mixed in.
    const unit = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...'abxn09-.') },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          ..."AZ_$' ",
          'і', // Cyrillic
          'а', // Cyrillic
          'é',
          '\u0301', // combining acute
          '\u200d', // zero-width joiner
          '\u200c',
          '\u202e', // right-to-left override
          '👍',
          'ß',
        ),
      },
    );
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 14 }), (name) => isNormalized(name) === viemSays(name)),
      { numRuns: 3000 },
    );
  });
});

describe('a profile: the name, its avatar and its e-mail record', () => {
  it('an on-chain name with avatar and e-mail costs the node two requests: the name`s sources, then both records', async () => {
    const user = fresh();
    await chain.setEnsName(user, 'profile.eth', { avatar: AVATAR, texts: { email: 'me@profile.example' } });
    const { ens } = resolver();
    const before = proxy.requests;
    expect(await ens.resolve(user, { chainId: OP, contractWallet: false })).toEqual({
      name: 'profile.eth',
      avatar: AVATAR,
      email: 'me@profile.example',
    });
    // On Optimism a plain account's sources are Optimism's name and the mainnet name, asked at once.
    expect(proxy.requests - before).toBe(2);
  });

  it('an off-chain name`s records come through its gateway, within the same lookup; every eth_call carries the gas cap', async () => {
    const gateway = await startEnsGateway();
    const before = proxy.calls.length;
    try {
      const user = fresh();
      await chain.useOffchainResolver('profiles.example', { urls: [gateway.url], signer: gateway.signer });
      await chain.setPrimaryName(user, 'someone.profiles.example');
      gateway.records.set('someone.profiles.example', {
        address: user,
        texts: { avatar: AVATAR, email: 'someone@profiles.example' },
      });
      expect(await resolver().ens.resolve(user, plain)).toEqual({
        name: 'someone.profiles.example',
        avatar: AVATAR,
        email: 'someone@profiles.example',
      });
      expect(gateway.requests).toBe(3); // forward address, avatar, e-mail
      // The Universal Resolver's steps and the CCIP-read callbacks alike.
      const calls = proxy.calls.slice(before).filter((call) => call.method === 'eth_call');
      expect(calls.length).toBeGreaterThan(3);
      for (const call of calls) expect((call.params?.[0] as { gas?: string } | undefined)?.gas).toBe(toHex(ETH_CALL_GAS_CAP));
    } finally {
      await gateway.close();
    }
  });

  it.each([
    ['two addresses', 'a@example.com, b@example.com'],
    ['a display name', 'Alice <alice@example.com>'],
    ['no domain', 'alice@'],
    ['a line break', 'alice@example.com\nBcc: x@example.com'],
    ['too long', `${'a'.repeat(250)}@example.com`],
  ])('an e-mail record with %s is left out; the name stays', async (_what, email) => {
    expect(usableEmail(email)).toBeUndefined();
    const user = fresh();
    const name = `mail-${user.slice(2, 10).toLowerCase()}.eth`;
    await chain.setEnsName(user, name, { texts: { email } });
    expect(await resolver().ens.resolve(user, plain)).toEqual({ name });
  });
});

describe('the cache', () => {
  it('is kept per chain and per kind of account', async () => {
    const user = fresh();
    await chain.setEnsName(user, 'mainnet-cached.eth');
    const { ens, store } = resolver();
    expect(await ens.resolve(user, { chainId: OP, contractWallet: false })).toEqual({ name: 'mainnet-cached.eth' });
    expect(await ens.resolve(user, { chainId: OP, contractWallet: true })).toEqual({});
    expect(JSON.parse((await store.get(cacheKeyOf(user, { chainId: OP, contractWallet: false }))) as string)).toEqual({
      name: 'mainnet-cached.eth',
    });
    expect(JSON.parse((await store.get(cacheKeyOf(user, { chainId: OP, contractWallet: true }))) as string)).toEqual({});
  });

  it('a cached name that is not normalized (kept by an earlier version) is not used', async () => {
    const user = fresh();
    const { ens, store } = resolver();
    const before = proxy.requests;
    await store.set(cacheKeyOf(user, plain), JSON.stringify({ name: 'Vitalik.eth', avatar: AVATAR }), 60);
    expect(await ens.resolve(user, plain)).toEqual({});
    expect(proxy.requests).toBe(before);
  });

  it('a sign-in record that holds a name that is not normalized gives the address as preferred_username', () => {
    const address = fresh() as Address;
    const record = {
      accountId: `eip155:1:${address}`,
      address,
      chainId: 1,
      message: 'm',
      signature: '0x',
      method: 'eoa' as const,
      ensName: 'vіtalik.eth',
      avatar: AVATAR,
      signedInAt: 0,
    };
    const claims = claimsOf(record.accountId, record);
    expect(claims.preferred_username).toBe(address);
    expect(claims).not.toHaveProperty('picture');
    expect(claimsOf(record.accountId, { ...record, ensName: 'vitalik.eth' }).preferred_username).toBe('vitalik.eth');
  });
});

describe('the order of sources (ENSIP-19) on one resolver', () => {
  it('a contract wallet`s default name is used on a chain whose coin type it verifies for', async () => {
    const wallet = fresh();
    await chain.setEnsRecords('default-wallet.eth', { addresses: { [coinTypeOf(OP)]: wallet } });
    await chain.setPrimaryName(wallet, 'default-wallet.eth', DEFAULT_COIN_TYPE);
    expect(await resolver().ens.resolve(wallet, { chainId: OP, contractWallet: true })).toEqual({ name: 'default-wallet.eth' });
  });
});
