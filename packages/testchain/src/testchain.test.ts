import { createPublicClient, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestchain, type Testchain } from './index.ts';

describe('testchain', () => {
  let chain: Testchain;
  let startMs: number;

  beforeAll(async () => {
    const started = performance.now();
    chain = await startTestchain({ chainId: 1 });
    startMs = performance.now() - started;
  });
  afterAll(() => chain?.stop());

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
