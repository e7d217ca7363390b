import { createPublicClient, erc20Abi, http, parseAbi, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coinTypeOf, DEFAULT_COIN_TYPE, MULTICALL3_ADDRESS, startEnsGateway, startTestchain, type Testchain } from './index.ts';

// One node for the whole file, shared by the describes below.
let chain: Testchain;
let startMs: number;

beforeAll(async () => {
  const started = performance.now();
  chain = await startTestchain({ chainId: 1 });
  startMs = performance.now() - started;
});
afterAll(() => chain?.stop());

describe('testchain', () => {
  it('starts a real JSON-RPC node with funded accounts in well under 5 s', async () => {
    expect(startMs).toBeLessThan(5000);
    const client = createPublicClient({ transport: http(chain.url) });
    expect(await client.getChainId()).toBe(1);
    expect(await client.getBalance({ address: chain.accounts[3]!.address })).toBe(10_000n * 10n ** 18n);
    const raw = await fetch(chain.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ jsonrpc: '2.0', id: 7, method: 'eth_blockNumber' }]),
    }).then((r) => r.json());
    expect(raw).toEqual([{ jsonrpc: '2.0', id: 7, result: expect.stringMatching(/^0x/) }]);
  });

  it('token fixtures answer the standard reads, batched through Multicall3 at its canonical address', async () => {
    const holder = privateKeyToAccount(generatePrivateKey()).address;
    const other = privateKeyToAccount(generatePrivateKey()).address;
    // One transaction at a time: they all come from the deployer account.
    const erc20 = await chain.deployToken('erc20');
    const erc721 = await chain.deployToken('erc721');
    const erc1155 = await chain.deployToken('erc1155');
    await erc20.mint(holder, { amount: 5n });
    await erc721.mint(holder, { id: 42n });
    await erc1155.mint(holder, { id: 7n, amount: 3n });
    await chain.setBalance(holder, 123n);
    const client = createPublicClient({ chain: chain.chain, transport: http(chain.url) });
    const read = () =>
      client.multicall({
        multicallAddress: MULTICALL3_ADDRESS,
        allowFailure: true,
        contracts: [
          { address: erc20.address, abi: erc20Abi, functionName: 'balanceOf', args: [holder] },
          {
            address: erc721.address,
            abi: parseAbi(['function ownerOf(uint256) view returns (address)']),
            functionName: 'ownerOf',
            args: [42n],
          },
          {
            address: erc721.address,
            abi: parseAbi(['function ownerOf(uint256) view returns (address)']),
            functionName: 'ownerOf',
            args: [43n],
          },
          {
            address: erc1155.address,
            abi: parseAbi(['function balanceOf(address,uint256) view returns (uint256)']),
            functionName: 'balanceOf',
            args: [holder, 7n],
          },
          {
            address: MULTICALL3_ADDRESS,
            abi: parseAbi(['function getEthBalance(address) view returns (uint256)']),
            functionName: 'getEthBalance',
            args: [holder],
          },
        ],
      });
    const before = await read();
    expect(before.map((r) => r.status)).toEqual(['success', 'success', 'failure', 'success', 'success']);
    expect(before.map((r) => r.result)).toEqual([5n, holder, undefined, 3n, 123n]);
    await erc721.move(holder, other, { id: 42n });
    await erc20.move(holder, other, { amount: 5n });
    const after = await read();
    expect(after[0]?.result).toBe(0n);
    expect(after[1]?.result).toBe(other);
  });
});

describe('testchain: ENS', () => {
  it('resolves ENS names and avatars through the canonical Universal Resolver address', async () => {
    const alice = chain.accounts[1]!;
    await chain.setEnsName(alice.address, 'alice.eth', { avatar: 'https://example.com/alice.png' });
    const client = createPublicClient({ chain: chain.chain, transport: http(chain.url) });
    expect(await client.getEnsName({ address: alice.address })).toBe('alice.eth');
    expect(await client.getEnsText({ name: 'alice.eth', key: 'avatar' })).toBe('https://example.com/alice.png');
    expect(await client.getEnsName({ address: chain.accounts[2]!.address })).toBeNull();
  });

  it('a reverse record whose forward record points elsewhere resolves to no name', async () => {
    const bob = chain.accounts[4]!;
    const carol = chain.accounts[5]!;
    await chain.setEnsName(bob.address, 'bob.eth');
    await chain.setEnsName(carol.address, 'bob.eth'); // bob.eth now points at carol
    const client = createPublicClient({ chain: chain.chain, transport: http(chain.url) });
    expect(await client.getEnsName({ address: bob.address })).toBeNull();
    expect(await client.getEnsName({ address: carol.address })).toBe('bob.eth');
  });

  it('ENSIP-19: a name for one EVM chain, the default name for every chain, each verified for the chain`s coin type', async () => {
    const client = createPublicClient({ chain: chain.chain, transport: http(chain.url) });
    const optimism = BigInt(coinTypeOf(10));
    const only = privateKeyToAccount(generatePrivateKey()).address;
    await chain.setEnsRecords('only-op.eth', { addresses: { [coinTypeOf(10)]: only } });
    await chain.setPrimaryName(only, 'only-op.eth', coinTypeOf(10));
    expect(await client.getEnsName({ address: only, coinType: optimism })).toBe('only-op.eth');
    expect(await client.getEnsName({ address: only })).toBeNull();
    expect(await client.getEnsName({ address: only, coinType: BigInt(coinTypeOf(8453)) })).toBeNull();

    const everywhere = privateKeyToAccount(generatePrivateKey()).address;
    await chain.setEnsRecords('default.eth', { addresses: { [coinTypeOf(10)]: everywhere } });
    await chain.setPrimaryName(everywhere, 'default.eth', DEFAULT_COIN_TYPE);
    expect(await client.getEnsName({ address: everywhere, coinType: optimism })).toBe('default.eth');
    // addr.reverse falls back to the default name too, but default.eth has no coin type 60 address.
    await expect(client.getEnsName({ address: everywhere, strict: true })).rejects.toThrow(/ReverseAddressMismatch/);
  });

  it('EIP-3668: an off-chain resolver answers names, records and an L2`s reverse names through a signing gateway', async () => {
    const gateway = await startEnsGateway();
    try {
      const client = createPublicClient({ chain: chain.chain, transport: http(chain.url) });
      const base = coinTypeOf(8453);
      const dave = privateKeyToAccount(generatePrivateKey()).address;
      await chain.useOffchainResolver('cb.id', { urls: [gateway.url], signer: gateway.signer });
      await chain.useOffchainResolver(`${base.toString(16)}.reverse`, { urls: [gateway.getUrl], signer: gateway.signer });
      // The name has only a default EVM address: the gateway answers Base's coin type from it (ENSIP-19).
      gateway.records.set('dave.cb.id', {
        addresses: { [DEFAULT_COIN_TYPE]: dave },
        texts: { avatar: 'https://example.com/d.png' },
      });
      gateway.records.set(`${dave.toLowerCase().slice(2)}.${base.toString(16)}.reverse`, { name: 'dave.cb.id' });
      expect(await client.getEnsName({ address: dave, coinType: BigInt(base) })).toBe('dave.cb.id');
      expect(await client.getEnsText({ name: 'dave.cb.id', key: 'avatar' })).toBe('https://example.com/d.png');
      expect(gateway.requests).toBe(3); // reverse name, forward address, avatar
      // A gateway answer signed by another key is refused by the resolver.
      await chain.useOffchainResolver('forged.eth', { urls: [gateway.url], signer: chain.accounts[9]!.address });
      gateway.records.set('forged.eth', { texts: { avatar: 'https://evil.example/x.png' } });
      // (the resolver's revert reason, inside the Universal Resolver's ResolverError)
      await expect(client.getEnsText({ name: 'forged.eth', key: 'avatar', strict: true })).rejects.toThrow(
        toHex('not signed by the gateway').slice(2),
      );
    } finally {
      await gateway.close();
    }
  });
});

describe('testchain: wallets and node control', () => {
  it('deploys EIP-1271 wallets and knows counterfactual addresses before deployment', async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const counterfactual = await chain.counterfactualWallet(owner.address, 9n);
    expect(await chain.publicClient.getCode({ address: counterfactual.address })).toBeUndefined();
    const deployed = await chain.deployWallet(owner.address, 9n);
    expect(deployed).toBe(counterfactual.address);
    expect(await chain.publicClient.getCode({ address: deployed })).toMatch(/^0x[0-9a-f]+$/);
  });

  it('pause() makes the node unreachable and resume() brings it back with its state', async () => {
    const client = createPublicClient({ transport: http(chain.url, { retryCount: 0, timeout: 1000 }), cacheTime: 0 });
    const block = await client.getBlockNumber();
    await chain.node.pause();
    await expect(client.getBlockNumber()).rejects.toThrow();
    await chain.node.resume();
    expect(await client.getBlockNumber()).toBe(block);
  });
});
