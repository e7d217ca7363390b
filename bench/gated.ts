/**
 * What access conditions cost: complete wallet sign-ins (authorize → details → signed POST →
 * redirects to the client) against an in-process provider and a local chain, for an ungated
 * client and for clients gated by one and by three conditions. Interleaved rounds; the chain
 * answers over loopback HTTP in microseconds, so the difference is Signet's own work plus one
 * local round trip (a hosted RPC node adds its network latency on top, once per chain).
 */
import { startTestchain } from '@signet/testchain';
import { pkceAuthorization, registerPublicClient, startTestProvider, walletSignIn } from '@signet/testkit';
import type * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Section } from './report.ts';
import { percentile } from './stats.ts';

const ROUNDS = 5;
const PER_ROUND = 40;

export async function gatedSignIn(): Promise<Section> {
  const [chain, ensChain] = await Promise.all([startTestchain({ chainId: 1, ens: false }), startTestchain({ chainId: 1 })]);
  const provider = await startTestProvider({
    ETH_RPC_URL: chain.url,
    ENS_RPC_URL: ensChain.url,
    ACCESS_CACHE_SECONDS: '0',
    RATE_LIMIT_INTERACTION: '0',
  });
  try {
    const holder = privateKeyToAccount(generatePrivateKey());
    const erc721 = await chain.deployToken('erc721');
    const erc20 = await chain.deployToken('erc20');
    const erc1155 = await chain.deployToken('erc1155');
    await erc721.mint(holder.address, { id: 1n });
    await erc20.mint(holder.address, { amount: 10n ** 18n });
    await erc1155.mint(holder.address, { id: 7n, amount: 1n });
    const nft = { type: 'erc721', chainId: 1, contract: erc721.address };
    const cases: { name: string; config: oidc.Configuration; samples: number[]; rpc: number }[] = [];
    for (const [name, access_conditions] of [
      ['ungated client', undefined],
      ['gated: one ERC-721 condition', { match: 'all', conditions: [nft] }],
      [
        'gated: ERC-721 + ERC-20 + ERC-1155 (one batched read)',
        {
          match: 'all',
          conditions: [
            nft,
            { type: 'erc20', chainId: 1, contract: erc20.address, minimum: '1' },
            { type: 'erc1155', chainId: 1, contract: erc1155.address, tokenId: '7', minimum: '1' },
          ],
        },
      ],
    ] as const) {
      const config = await registerPublicClient(provider.url, access_conditions ? ({ access_conditions } as never) : {});
      cases.push({ name, config, samples: [], rpc: 0 });
    }
    const once = async (config: oidc.Configuration) => {
      const { url } = await pkceAuthorization(config, { scope: 'openid profile' });
      const started = performance.now();
      await walletSignIn({ authorizationUrl: url, signer: holder });
      return performance.now() - started;
    };
    for (const c of cases) for (let i = 0; i < 10; i++) await once(c.config); // warm-up (and the ENS cache)
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of cases) {
        const before = chain.node.requestCount;
        for (let i = 0; i < PER_ROUND; i++) c.samples.push(await once(c.config));
        c.rpc += chain.node.requestCount - before;
      }
    }
    const flows = ROUNDS * PER_ROUND;
    const summary = cases.map((c) => {
      const sorted = [...c.samples].sort((a, b) => a - b);
      return { name: c.name, p50: percentile(sorted, 50), p99: percentile(sorted, 99), rpc: c.rpc / flows };
    });
    const base = summary[0] as (typeof summary)[number];
    const rows = summary.map((s) => [
      s.name,
      s.p50.toFixed(2),
      s.p99.toFixed(2),
      `+${(s.p50 - base.p50).toFixed(2)}`,
      `${(s.p50 / base.p50).toFixed(2)}×`,
      s.rpc.toFixed(2),
    ]);
    const one = summary[1] as (typeof summary)[number];
    const three = summary[2] as (typeof summary)[number];
    return {
      title: 'Gated sign-in: what access conditions add',
      table: { head: ['client', 'p50 ms', 'p99 ms', 'added ms (p50)', 'vs ungated', 'RPC calls / sign-in'], rows },
      checks: [
        {
          name: 'RPC calls for an ungated EOA sign-in',
          value: base.rpc,
          display: base.rpc.toFixed(2),
          target: '0',
          pass: base.rpc === 0,
        },
        {
          name: 'RPC calls for a sign-in gated by three conditions on one chain',
          value: three.rpc,
          display: three.rpc.toFixed(2),
          target: '1 (one batched read)',
          pass: three.rpc === 1,
        },
        {
          name: 'three conditions cost no more than one (p50 ratio)',
          value: three.p50 / one.p50,
          display: `${(three.p50 / one.p50).toFixed(2)}×`,
          target: '≤ 1.25×',
          pass: three.p50 / one.p50 <= 1.25,
        },
      ],
      notes: [
        `${flows} sign-ins per client in ${ROUNDS} interleaved rounds after 10 warm-up sign-ins each, one holder account, ACCESS_CACHE_SECONDS=0 (every sign-in reads the chain); the local node answers over loopback, so a hosted RPC node adds its own round-trip time once per chain.`,
      ],
    };
  } finally {
    await provider.stop();
    await chain.stop();
    await ensChain.stop();
  }
}
