/**
 * A sign-in against a distant RPC node: the provider's only node (contract wallets, holdings,
 * ENS) is a loopback proxy that answers each HTTP request after a fixed delay, in front of the
 * local chain. The wall time of the signed POST (signature → access check and name lookup →
 * grant) with that delay, less the same sign-in's wall time without it (the provider's and the
 * local chain's own work, measured in the same rounds), divided by the delay, is what a
 * sign-in costs in round trips to the node. Every sign-in is uncached (ENS_CACHE_TTL=0,
 * ACCESS_CACHE_SECONDS=0). Goal: a gated contract-wallet sign-in with a name in at most three
 * round trips (verification, then the holdings read beside the name and its records).
 */
import { startRpcProxy, startTestchain } from '@signet/testchain';
import {
  CookieJar,
  getDetails,
  messageFor,
  pkceAuthorization,
  postSignature,
  registerPublicClient,
  type Signer,
  startInteraction,
  startTestProvider,
} from '@signet/testkit';
import type * as oidc from 'openid-client';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Section } from './report.ts';
import { median } from './stats.ts';

const DELAY_MS = Number(process.env.BENCH_RPC_DELAY_MS ?? 100);
const ROUNDS = 4;
const PER_ROUND = 3;

export async function delayedRpcSignIn(): Promise<Section> {
  const chain = await startTestchain({ chainId: 1 });
  const proxy = await startRpcProxy(chain.url, { delayMs: DELAY_MS });
  const provider = await startTestProvider({
    ETH_RPC_URL: proxy.url,
    ENS_CACHE_TTL: '0',
    ACCESS_CACHE_SECONDS: '0',
    ENS_TIMEOUT_MS: String(20 * DELAY_MS),
    RPC_TIMEOUT_MS: String(20 * DELAY_MS),
    ALLOW_PRIVATE_FETCH: 'true',
  });
  try {
    const plain = privateKeyToAccount(generatePrivateKey());
    await chain.setEnsName(plain.address, 'plain.eth', {
      avatar: 'http://127.0.0.1:9/plain.png',
      texts: { email: 'plain@example.com' },
    });
    const owner = privateKeyToAccount(generatePrivateKey());
    const wallet = await chain.deployWallet(owner.address, 1n);
    const namedWallet = await chain.deployWallet(owner.address, 2n);
    await chain.setEnsName(namedWallet, 'wallet.eth', {
      avatar: 'http://127.0.0.1:9/wallet.png',
      texts: { email: 'wallet@example.com' },
    });
    const nft = await chain.deployToken('erc721');
    await nft.mint(namedWallet, { id: 1n });
    const ungated = await registerPublicClient(provider.url);
    const gated = await registerPublicClient(provider.url, {
      access_conditions: { match: 'all', conditions: [{ type: 'erc721', chainId: 1, contract: nft.address }] },
    } as never);

    const cases: {
      name: string;
      client: oidc.Configuration;
      signer: Signer;
      address: Address;
      wall: number[];
      local: number[];
      requests: number[];
    }[] = [
      { name: 'plain account with a name (uncached)', client: ungated, signer: plain, address: plain.address },
      { name: 'contract wallet (EIP-1271), no name', client: ungated, signer: owner, address: wallet },
      { name: 'gated contract wallet with a name (uncached)', client: gated, signer: owner, address: namedWallet },
    ].map((c) => ({ ...c, wall: [], local: [], requests: [] }));

    /** One sign-in; only the signed POST is timed (the steps before it make no RPC call). */
    const once = async (c: (typeof cases)[number]) => {
      const { url } = await pkceAuthorization(c.client, { scope: 'openid profile' });
      const jar = new CookieJar();
      const interactionUrl = await startInteraction(jar, url);
      const message = messageFor(await getDetails(jar, interactionUrl), c.address);
      const signature = await c.signer.signMessage({ message });
      const before = proxy.requests;
      const started = performance.now();
      const response = await postSignature(jar, interactionUrl, { message, signature });
      const wall = performance.now() - started;
      if (response.status !== 303) throw new Error(`${c.name}: sign-in refused (${response.status}) ${await response.text()}`);
      return { wall, requests: proxy.requests - before };
    };
    for (const c of cases) await once(c); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of cases) {
        proxy.delayMs = 0;
        for (let i = 0; i < PER_ROUND; i++) c.local.push((await once(c)).wall);
        proxy.delayMs = DELAY_MS;
        for (let i = 0; i < PER_ROUND; i++) {
          const { wall, requests } = await once(c);
          c.wall.push(wall);
          c.requests.push(requests);
        }
      }
    }
    const summary = cases.map((c) => {
      const wall = median(c.wall);
      const local = median(c.local);
      return { name: c.name, wall, local, roundTrips: (wall - local) / DELAY_MS, requests: median(c.requests) };
    });
    const gatedNamed = summary[2] as (typeof summary)[number];
    return {
      title: `Sign-in against a distant RPC node (${DELAY_MS} ms per request)`,
      table: {
        head: [
          'sign-in',
          `wall ms, node ${DELAY_MS} ms away (median)`,
          'wall ms, node on loopback (median)',
          'round trips of wall time',
          'HTTP requests to the node',
        ],
        rows: summary.map((s) => [s.name, s.wall.toFixed(0), s.local.toFixed(0), s.roundTrips.toFixed(2), String(s.requests)]),
      },
      checks: [
        {
          name: 'gated contract-wallet sign-in with an uncached name, in round trips of wall time',
          value: gatedNamed.roundTrips,
          display: gatedNamed.roundTrips.toFixed(2),
          target: '≤ 3',
          pass: Math.round(gatedNamed.roundTrips) <= 3,
        },
      ],
      notes: [
        `${ROUNDS * PER_ROUND} sign-ins per case and per delay in ${ROUNDS} interleaved rounds after one warm-up each; wall time of the signed POST \`/interaction/<uid>\` only. The provider's one RPC node (\`ETH_RPC_URL\`, also ENS) is a loopback proxy that forwards each HTTP request to the local chain after ${DELAY_MS} ms (\`BENCH_RPC_DELAY_MS\`), or at once for the loopback column; a JSON-RPC batch is one request. Round trips = (wall with the delay − wall without) ÷ delay. ENS_CACHE_TTL=0 and ACCESS_CACHE_SECONDS=0: nothing is cached. The names have avatar and e-mail records.`,
      ],
    };
  } finally {
    await provider.stop();
    await proxy.close();
    await chain.stop();
  }
}
