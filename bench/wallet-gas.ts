/**
 * What real wallets cost to check, in gas: each wallet's published contracts on the local chain,
 * each signature made as that wallet's software makes it, and `eth_estimateGas` of exactly the
 * `eth_call` Signet sends for it (`@signet/siwe`'s request, recorded on its way to the node).
 * The gas cap on every `eth_call` (ETH_CALL_GAS_CAP) is set from these figures; the last row
 * shows what a wallet that burns all its gas costs at that cap, in time.
 */
import { createChainRegistry, ETH_CALL_GAS_CAP, verifySiweSignature } from '@signet/siwe';
import { realWallets, startTestchain } from '@signet/testchain';
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import type { Section } from './report.ts';

const newKey = () => privateKeyToAccount(generatePrivateKey());

/** A signature's check: how it verified, the eth_calls it made, and the gas its last call takes (eth_estimateGas). */
async function measureCheck(
  chain: Awaited<ReturnType<typeof startTestchain>>,
  client: ReturnType<typeof createChainRegistry>,
  message: string,
  signature: Hex,
) {
  const before = chain.node.requestCount;
  const result = await verifySiweSignature({ message, signature, client });
  const calls = chain.node.requestsSince(before).filter((r) => r.method === 'eth_call');
  const call = calls[calls.length - 1] as (typeof calls)[number];
  const [request, block] = call.params as [Record<string, unknown>, unknown];
  const estimate = BigInt(
    (await chain.publicClient.request({
      method: 'eth_estimateGas' as never,
      params: [{ ...request, gas: undefined }, block ?? 'latest'] as never,
    })) as string,
  );
  return { method: result.method, calls: calls.length, estimate };
}

export async function walletGas(): Promise<Section> {
  const chain = await startTestchain({ chainId: 31337, ens: false });
  try {
    const wallets = await realWallets(chain);
    const client = createChainRegistry({ [chain.chainId]: chain.url });
    const text = (address: `0x${string}`) =>
      createSiweMessage({
        domain: 'signet.test',
        address,
        uri: 'https://signet.test',
        chainId: chain.chainId,
        nonce: 'gasbench1',
        version: '1',
        issuedAt: new Date('2025-01-01T00:00:00Z'),
      });
    const [a, b, c] = [newKey(), newKey(), newKey()];

    const cases: { name: string; make(): Promise<{ address: `0x${string}`; signature: Hex }> }[] = [
      {
        name: 'Safe 1.4.1, 2-of-3 owners (EIP-1271)',
        async make() {
          const safe = await wallets.safe.deploy([a.address, b.address, c.address], 2, 1n);
          return { address: safe, signature: await wallets.safe.sign(safe, text(safe), [a, c]) };
        },
      },
      {
        name: 'Safe 1.4.1 signed on chain (SignMessageLib, signature 0x)',
        async make() {
          const safe = await wallets.safe.deploy([a.address, b.address, c.address], 2, 2n);
          await wallets.safe.signOnChain(safe, text(safe), [a, b]);
          return { address: safe, signature: '0x' };
        },
      },
      {
        name: 'Safe owned by a Safe and an EOA, 2-of-2 (nested EIP-1271)',
        async make() {
          const inner = await wallets.safe.deploy([a.address], 1, 3n);
          const outer = await wallets.safe.deploy([inner, b.address], 2, 4n);
          return { address: outer, signature: await wallets.safe.signNested(outer, inner, text(outer), [a], [b]) };
        },
      },
      {
        name: 'OpenZeppelin 5.x account, ERC-7739 (EIP-1271)',
        async make() {
          const account = await wallets.openZeppelin.deploy(a.address);
          return { address: account, signature: await wallets.openZeppelin.sign(account, text(account), a) };
        },
      },
      {
        name: 'EOA delegated with EIP-7702 to the OpenZeppelin account (EIP-1271)',
        async make() {
          const eoa = newKey();
          await wallets.eip7702.delegate(eoa);
          return { address: eoa.address, signature: await wallets.eip7702.sign(eoa, text(eoa.address)) };
        },
      },
      {
        name: 'EOA with an EIP-7702 authorization not on chain yet (ERC-8010)',
        async make() {
          const eoa = newKey();
          return { address: eoa.address, signature: await wallets.eip7702.signWithAuthorization(eoa, text(eoa.address)) };
        },
      },
      {
        name: 'Safe 1.4.1 2-of-3 not deployed yet, deployed and checked (EIP-6492)',
        async make() {
          const cf = await wallets.safe.counterfactual([a.address, b.address, c.address], 2, 5n);
          const inner = await wallets.safe.sign(cf.address, text(cf.address), [a, b]);
          return { address: cf.address, signature: chain.wrap6492(inner, cf) };
        },
      },
    ];

    const rows: string[][] = [];
    let largest = 0n;
    for (const { name, make } of cases) {
      const { address, signature } = await make();
      const { method, calls, estimate } = await measureCheck(chain, client, text(address), signature);
      if (estimate > largest) largest = estimate;
      rows.push([
        name,
        method,
        `${calls}`,
        estimate.toLocaleString('en-US'),
        `${(Number(ETH_CALL_GAS_CAP) / Number(estimate)).toFixed(1)}×`,
      ]);
    }

    // A wallet whose check burns all its gas: refused (INVALID_SIGNATURE) once the cap is spent.
    const burner = await wallets.gasBurningWallet();
    const started = performance.now();
    let answer = 'accepted';
    try {
      await verifySiweSignature({ message: text(burner), signature: '0x1234', client });
    } catch (error) {
      answer = (error as { type?: string }).type ?? String(error);
    }
    const burnMs = performance.now() - started;
    rows.push([
      'hostile: burns all its gas',
      answer,
      '1',
      `${ETH_CALL_GAS_CAP.toLocaleString('en-US')} (the cap)`,
      `${burnMs.toFixed(0)} ms on this node`,
    ]);

    return {
      title: 'Wallet gas: what real wallets cost to check',
      table: {
        head: ['wallet (published contracts, local chain)', 'method', 'eth_calls', 'gas (eth_estimateGas)', 'cap ÷ gas'],
        rows,
      },
      checks: [
        {
          name: 'gas cap over the most a real wallet needed',
          value: Number(ETH_CALL_GAS_CAP) / Number(largest),
          display: `${(Number(ETH_CALL_GAS_CAP) / Number(largest)).toFixed(1)}×`,
          target: '≥ 4×',
          pass: ETH_CALL_GAS_CAP >= 4n * largest,
        },
      ],
      notes: [
        `Gas cap on every eth_call Signet makes: ${ETH_CALL_GAS_CAP.toLocaleString('en-US')} (ETH_CALL_GAS_CAP in @signet/siwe). ` +
          'The eth_calls column counts the eth_calls of one check (an ERC-8010 check also reads the account code first: one eth_getCode).',
      ],
    };
  } finally {
    await chain.stop();
  }
}
