/**
 * ENS names at sign-in, through the whole sign-in (authorization, wallet, token): only
 * normalized names; the primary name for the chain signed on (ENSIP-19); off-chain and L2
 * names through CCIP-read gateways, with their limits against hostile gateways; and the name
 * lookup running beside a gated client's access check. Real parts: a local chain holding ENS
 * (chain 1, also the mainnet of contract wallets), a second one for contract wallets on
 * Optimism (chain 10), gateways as HTTP servers on loopback (so ALLOW_PRIVATE_FETCH, the
 * development switch, is on unless a test says otherwise).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CANONICAL_UNIVERSAL_RESOLVER,
  coinTypeOf,
  DEFAULT_COIN_TYPE,
  type EnsGateway,
  MULTICALL3_ADDRESS,
  type RpcCall,
  startEnsGateway,
  startRpcProxy,
  startTestchain,
  type Testchain,
} from '@signet/testchain';
import {
  CookieJar,
  getDetails,
  messageFor,
  pkceAuthorization,
  postSignature,
  registerPublicClient,
  startInteraction,
  startTestProvider,
  type TestProvider,
  walletSignIn,
} from '@signet/testkit';
import * as oidc from 'openid-client';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const OP = 10;
const BASE = 8453;
/** An avatar URL the provider accepts under ALLOW_PRIVATE_FETCH (it never requests it). */
const AVATAR = 'http://127.0.0.1:9/avatar.png';

const fresh = () => privateKeyToAccount(generatePrivateKey());
/** ENSIP-19's reverse name of an address on a chain. */
const reverseName = (address: Address, chainId: number) =>
  `${address.toLowerCase().slice(2)}.${coinTypeOf(chainId).toString(16)}.reverse`;

let chain: Testchain;
let op: Testchain;
/** Answers cb.id names and Base's reverse names, as Base's and Coinbase's gateways do on mainnet. */
let gateway: EnsGateway;
let env: Record<string, string>;
let provider: TestProvider;
let client: oidc.Configuration;

beforeAll(async () => {
  [chain, op] = await Promise.all([startTestchain({ chainId: 1 }), startTestchain({ chainId: OP, ens: false })]);
  gateway = await startEnsGateway();
  await chain.useOffchainResolver('cb.id', { urls: [gateway.url], signer: gateway.signer });
  await chain.useOffchainResolver(`${coinTypeOf(BASE).toString(16)}.reverse`, {
    urls: [gateway.getUrl],
    signer: gateway.signer,
  });
  env = {
    ETH_RPC_URL: chain.url,
    RPC_URLS: `${OP}=${op.url}`,
    CHAIN_IDS: `1,${OP},${BASE}`,
    ENS_TIMEOUT_MS: '5000',
    ALLOW_PRIVATE_FETCH: 'true',
  };
  provider = await startTestProvider(env);
  client = await registerPublicClient(provider.url);
});
afterAll(async () => {
  await provider?.stop();
  await gateway?.close();
  await Promise.all([chain?.stop(), op?.stop()]);
});

type SignInOptions = Omit<Parameters<typeof walletSignIn>[0], 'authorizationUrl'>;

/** A whole sign-in; the ID token's claims. */
async function claims(options: SignInOptions, on: { client: oidc.Configuration } = { client }) {
  const { url, verifier } = await pkceAuthorization(on.client, { scope: 'openid profile' });
  const { callbackUrl } = await walletSignIn({ authorizationUrl: url, ...options });
  const tokens = await oidc.authorizationCodeGrant(on.client, callbackUrl, { pkceCodeVerifier: verifier });
  return tokens.claims() as Record<string, unknown>;
}

/** A provider with other settings, and a client registered at it. */
async function withProvider<T>(
  settings: Record<string, string>,
  run: (on: { provider: TestProvider; client: oidc.Configuration }) => Promise<T>,
): Promise<T> {
  const other = await startTestProvider({ ...env, ...settings });
  try {
    return await run({ provider: other, client: await registerPublicClient(other.url) });
  } finally {
    await other.stop();
  }
}

/** A loopback server answering every request with `handle`; `requests` counts them. */
async function server(handle: (req: IncomingMessage, res: import('node:http').ServerResponse) => void) {
  const counter = { requests: 0, closedEarly: 0 };
  const listener: Server = createServer((req, res) => {
    counter.requests++;
    res.on('close', () => {
      if (!res.writableFinished) counter.closedEarly++;
    });
    handle(req, res);
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
  return {
    url,
    counter,
    close: () =>
      new Promise<void>((resolve) => {
        listener.close(() => resolve());
        listener.closeAllConnections();
      }),
  };
}

describe('only names equal to their ENSIP-15 normalization become preferred_username', () => {
  it.each([
    ['a Cyrillic і', 'vіtalik.eth'],
    ['upper case', 'Vitalik.eth'],
    ['a zero-width joiner', 'vita\u200dlik.eth'],
    ['a bidi control', 'vitalik\u202e.eth'],
  ])('a primary name with %s (%s), forward-verified on chain: the address, and no picture', async (_what, name) => {
    const user = fresh();
    await chain.setEnsName(user.address, name, { avatar: AVATAR });
    const idToken = await claims({ signer: user, chainId: 1 });
    expect(idToken.preferred_username).toBe(user.address);
    expect(idToken).not.toHaveProperty('picture');
  });

  it('the normalized name itself is used, with its avatar', async () => {
    const user = fresh();
    await chain.setEnsName(user.address, 'vitalik.eth', { avatar: AVATAR });
    expect(await claims({ signer: user, chainId: 1 })).toMatchObject({ preferred_username: 'vitalik.eth', picture: AVATAR });
  });
});

describe('the primary name for the chain signed on (ENSIP-19), cached per address and chain', () => {
  it('a name set only for Optimism`s coin type: the name on Optimism, the address on mainnet and on Base', async () => {
    const user = fresh();
    await chain.setEnsRecords('only-op.eth', { addresses: { [coinTypeOf(OP)]: user.address } });
    await chain.setPrimaryName(user.address, 'only-op.eth', coinTypeOf(OP));
    expect((await claims({ signer: user, chainId: OP })).preferred_username).toBe('only-op.eth');
    expect((await claims({ signer: user, chainId: 1 })).preferred_username).toBe(user.address);
    expect((await claims({ signer: user, chainId: BASE })).preferred_username).toBe(user.address);
    // Cached per chain: Optimism still gives the name.
    expect((await claims({ signer: user, chainId: OP })).preferred_username).toBe('only-op.eth');
  });

  it('the default name (default.reverse) where the chain has none, verified for the chain`s coin type', async () => {
    const user = fresh();
    await chain.setEnsRecords('everywhere.eth', { addresses: { [coinTypeOf(OP)]: user.address } });
    await chain.setPrimaryName(user.address, 'everywhere.eth', DEFAULT_COIN_TYPE);
    expect((await claims({ signer: user, chainId: OP })).preferred_username).toBe('everywhere.eth');
    // On mainnet the same default name has no coin type 60 address: it fails verification.
    expect((await claims({ signer: user, chainId: 1 })).preferred_username).toBe(user.address);
  });

  it('a plain account with only a mainnet name gets it on Optimism (verified with coin type 60)', async () => {
    const user = fresh();
    await chain.setEnsName(user.address, 'mainnet-only.eth');
    expect((await claims({ signer: user, chainId: OP })).preferred_username).toBe('mainnet-only.eth');
  });

  it('a contract wallet on Optimism never falls back to its address`s mainnet name, but gets its Optimism name', async () => {
    const owner = fresh();
    const wallet = await op.deployWallet(owner.address, 1n);
    await chain.setEnsName(wallet, 'wallet-on-mainnet.eth');
    expect((await claims({ signer: owner, address: wallet, chainId: OP })).preferred_username).toBe(wallet);

    const named = await op.deployWallet(owner.address, 2n);
    await chain.setEnsName(named, 'named-on-mainnet.eth');
    await chain.setEnsRecords('wallet.op.eth', { addresses: { [coinTypeOf(OP)]: named } });
    await chain.setPrimaryName(named, 'wallet.op.eth', coinTypeOf(OP));
    expect((await claims({ signer: owner, address: named, chainId: OP })).preferred_username).toBe('wallet.op.eth');
  });

  it('an Optimism name that fails its forward check ends the lookup: the address, not the mainnet name', async () => {
    const user = fresh();
    await chain.setEnsName(user.address, 'valid-on-mainnet.eth');
    await chain.setEnsRecords('someone-else.eth', { addresses: { [coinTypeOf(OP)]: fresh().address } });
    await chain.setPrimaryName(user.address, 'someone-else.eth', coinTypeOf(OP));
    expect((await claims({ signer: user, chainId: OP })).preferred_username).toBe(user.address);
  });

  it('an Optimism name that is not normalized ends the lookup: the address, not the mainnet name', async () => {
    const user = fresh();
    await chain.setEnsName(user.address, 'also-valid-on-mainnet.eth');
    await chain.setEnsRecords('Shouting.eth', { addresses: { [coinTypeOf(OP)]: user.address } });
    await chain.setPrimaryName(user.address, 'Shouting.eth', coinTypeOf(OP));
    expect((await claims({ signer: user, chainId: OP })).preferred_username).toBe(user.address);
  });
});

describe('off-chain and L2 names through CCIP-read gateways (EIP-3668)', () => {
  it('a Base primary name from Base`s reverse gateway, forward-verified through the name`s own gateway, with its avatar', async () => {
    const user = fresh();
    // Only a default EVM address: the gateway answers Base's coin type from it (ENSIP-19).
    gateway.records.set('base-user.cb.id', {
      addresses: { [DEFAULT_COIN_TYPE]: user.address },
      texts: { avatar: AVATAR, email: 'base-user@example.com' },
    });
    gateway.records.set(reverseName(user.address, BASE), { name: 'base-user.cb.id' });
    const before = gateway.requests;
    expect(await claims({ signer: user, chainId: BASE })).toMatchObject({
      preferred_username: 'base-user.cb.id',
      picture: AVATAR,
    });
    expect(gateway.requests - before).toBe(4); // the reverse name, the forward address, the avatar and the e-mail
  });

  it('a mainnet primary name whose resolver is a gateway', async () => {
    const user = fresh();
    await chain.setPrimaryName(user.address, 'mainnet-user.cb.id');
    gateway.records.set('mainnet-user.cb.id', { address: user.address });
    expect((await claims({ signer: user, chainId: 1 })).preferred_username).toBe('mainnet-user.cb.id');
  });

  it('ENS_CCIP_READ=false: names that need a gateway give the address, on-chain names still resolve, no gateway is called', async () => {
    const offchain = fresh();
    gateway.records.set('off.cb.id', { addresses: { [DEFAULT_COIN_TYPE]: offchain.address } });
    gateway.records.set(reverseName(offchain.address, BASE), { name: 'off.cb.id' });
    const onchain = fresh();
    await chain.setEnsName(onchain.address, 'on-chain.eth');
    const before = gateway.requests;
    await withProvider({ ENS_CCIP_READ: 'false' }, async (on) => {
      expect((await claims({ signer: offchain, chainId: BASE }, on)).preferred_username).toBe(offchain.address);
      expect((await claims({ signer: onchain, chainId: 1 }, on)).preferred_username).toBe('on-chain.eth');
    });
    expect(gateway.requests).toBe(before);
  });

  it('without ALLOW_PRIVATE_FETCH a gateway on a loopback address is never called: the address', async () => {
    const user = fresh();
    gateway.records.set('private.cb.id', { addresses: { [DEFAULT_COIN_TYPE]: user.address } });
    gateway.records.set(reverseName(user.address, BASE), { name: 'private.cb.id' });
    const before = gateway.requests;
    await withProvider({ ALLOW_PRIVATE_FETCH: 'false' }, async (on) => {
      expect((await claims({ signer: user, chainId: BASE }, on)).preferred_username).toBe(user.address);
    });
    expect(gateway.requests).toBe(before);
  });

  /** A user whose mainnet primary name `<label>.<domain>` is answered by an off-chain resolver at `urls`. */
  async function userBehind(domain: string, urls: string[], options: { endless?: boolean; signer?: Address } = {}) {
    const user = fresh();
    const name = `user.${domain}`;
    await chain.useOffchainResolver(domain, { urls, signer: options.signer ?? gateway.signer, endless: options.endless });
    await chain.setPrimaryName(user.address, name);
    gateway.records.set(name, { address: user.address, texts: { avatar: AVATAR } });
    return { user, name };
  }

  describe('hostile gateways: the sign-in completes with the address', () => {
    it('a gateway that never answers is abandoned at ENS_TIMEOUT_MS', async () => {
      const slow = await server(() => {
        /* never answers */
      });
      try {
        const { user } = await userBehind('slow.eth', [`${slow.url}/lookup`]);
        await withProvider({ ENS_TIMEOUT_MS: '1000' }, async (on) => {
          expect((await claims({ signer: user, chainId: 1 }, on)).preferred_username).toBe(user.address);
        });
        expect(slow.counter.requests).toBe(1);
        expect(slow.counter.closedEarly).toBe(1); // the provider hung up
      } finally {
        await slow.close();
      }
    });

    /** The real gateway's signed answer, padded with JSON whitespace to `kib` KiB, sent without a length. */
    const padded = (kib: number) =>
      server(async (req, res) => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const answer = await fetch(gateway.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: Buffer.concat(chunks),
        }).then((r) => r.text());
        res.writeHead(200, { 'content-type': 'application/json' }); // chunked: no Content-Length
        res.end(`${answer.slice(0, -1)}${' '.repeat(kib * 1024 - answer.length)}}`);
      });

    it('an answer over 256 KiB is refused (bytes read, not the announced length); one under it is used', async () => {
      const [huge, fits] = await Promise.all([padded(300), padded(200)]);
      try {
        const big = await userBehind('huge.eth', [`${huge.url}/lookup`]);
        const small = await userBehind('fits.eth', [`${fits.url}/lookup`]);
        expect((await claims({ signer: big.user, chainId: 1 })).preferred_username).toBe(big.user.address);
        expect((await claims({ signer: small.user, chainId: 1 })).preferred_username).toBe(small.name);
      } finally {
        await Promise.all([huge.close(), fits.close()]);
      }
    });

    it('a redirect (to a loopback gateway that would answer) is a failed call, even under ALLOW_PRIVATE_FETCH', async () => {
      const redirect = await server((_req, res) => res.writeHead(307, { location: gateway.url }).end());
      try {
        const { user } = await userBehind('moved.eth', [`${redirect.url}/lookup`]);
        const before = gateway.requests;
        expect((await claims({ signer: user, chainId: 1 })).preferred_username).toBe(user.address);
        expect(redirect.counter.requests).toBe(1);
        expect(gateway.requests).toBe(before);
      } finally {
        await redirect.close();
      }
    });

    it('a resolver asking for another lookup at every callback gets at most 4 gateway calls', async () => {
      const own = await startEnsGateway();
      try {
        const { user, name } = await userBehind('endless.eth', [own.url], { endless: true, signer: own.signer });
        own.records.set(name, { address: user.address });
        expect((await claims({ signer: user, chainId: 1 })).preferred_username).toBe(user.address);
        expect(own.requests).toBeGreaterThan(0);
        expect(own.requests).toBeLessThanOrEqual(4);
      } finally {
        await own.close();
      }
    });

    it('a resolver naming many failing gateways gets at most 4 gateway calls per lookup', async () => {
      const failing = await server((_req, res) => res.writeHead(503).end());
      try {
        const urls = Array.from({ length: 8 }, (_, i) => `${failing.url}/gateway-${i}`);
        const { user } = await userBehind('flaky.eth', urls);
        expect((await claims({ signer: user, chainId: 1 })).preferred_username).toBe(user.address);
        expect(failing.counter.requests).toBe(4);
      } finally {
        await failing.close();
      }
    });
  });
});

describe('the name lookup runs beside the access check', () => {
  const to = (call: RpcCall, address: string) =>
    call.method === 'eth_call' && (call.params?.[0] as { to?: string } | undefined)?.to?.toLowerCase() === address.toLowerCase();

  it('a gated sign-in reads the holdings while the name lookup is under way; a non-holder is still refused', async () => {
    // The proxy holds the holdings read (Multicall3) until the name lookup's first read (the
    // Universal Resolver) has arrived: were they one after the other, the holdings read would
    // wait until the proxy gives up (10 s), beyond RPC_TIMEOUT_MS, and the sign-in would fail.
    const proxy = await startRpcProxy(chain.url, {
      hold: (calls, seen) =>
        calls.some((c) => to(c, MULTICALL3_ADDRESS)) && !seen.some((c) => to(c, CANONICAL_UNIVERSAL_RESOLVER)),
    });
    const nft = await chain.deployToken('erc721');
    const holder = fresh();
    await nft.mint(holder.address, { id: 1n });
    await chain.setEnsName(holder.address, 'holder.eth');
    const stranger = fresh();
    await chain.setEnsName(stranger.address, 'stranger.eth');
    try {
      await withProvider({ ETH_RPC_URL: proxy.url, RPC_TIMEOUT_MS: '3000', ACCESS_CACHE_SECONDS: '0' }, async (on) => {
        const gated = await registerPublicClient(on.provider.url, {
          access_conditions: { match: 'all', conditions: [{ type: 'erc721', chainId: 1, contract: nft.address }] },
        } as never);
        expect((await claims({ signer: holder, chainId: 1 }, { client: gated })).preferred_username).toBe('holder.eth');

        const { url } = await pkceAuthorization(gated, { scope: 'openid profile' });
        const jar = new CookieJar();
        const interactionUrl = await startInteraction(jar, url);
        const message = messageFor(await getDetails(jar, interactionUrl), stranger.address);
        const refused = await postSignature(jar, interactionUrl, { message, signature: await stranger.signMessage({ message }) });
        expect(refused.status).toBe(403);
        expect((await refused.json()).error).toBe('ACCESS_CONDITION_NOT_MET');
      });
    } finally {
      await proxy.close();
    }
  });

  it('a name lookup that fails (dead ENS node) never fails a gated sign-in', async () => {
    const nft = await chain.deployToken('erc721');
    const holder = fresh();
    await nft.mint(holder.address, { id: 2n });
    await withProvider({ ENS_RPC_URL: 'http://127.0.0.1:1' }, async (on) => {
      const gated = await registerPublicClient(on.provider.url, {
        access_conditions: { match: 'all', conditions: [{ type: 'erc721', chainId: 1, contract: nft.address }] },
      } as never);
      expect((await claims({ signer: holder, chainId: 1 }, { client: gated })).preferred_username).toBe(holder.address);
    });
  });
});
