/**
 * A real local Ethereum node: Nomic Foundation's EDR (the engine inside Hardhat),
 * installed from npm, answering standard JSON-RPC over HTTP on 127.0.0.1.
 *
 * EDR is an in-process provider; this file is the thin HTTP front that turns it into
 * a node any client (viem, the provider under test, a browser wallet) reaches by URL.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ContractDecoder,
  EdrContext,
  GENERIC_CHAIN_TYPE,
  genericChainProviderFactory,
  MineOrdering,
  PRAGUE,
  type Provider,
} from '@nomicfoundation/edr';
import { hexToBytes } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/** Ten well-known development keys (the Hardhat/Anvil mnemonic): funded at genesis. */
export const DEV_KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
  '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e',
  '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356',
  '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97',
  '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6',
] as const satisfies readonly `0x${string}`[];

export type NodeOptions = {
  /** Chain id the node reports (default 31337). */
  chainId?: number;
  /** Port on 127.0.0.1 (default 0: any free port). */
  port?: number;
};

export type RunningNode = {
  url: string;
  port: number;
  chainId: number;
  /** Number of JSON-RPC calls answered so far (tests use it to prove "no network call"). */
  readonly requestCount: number;
  /** The last 1,000 calls received, oldest first (tests read what was asked, e.g. an eth_call's `to` and `gas`). */
  readonly requests: readonly RecordedRequest[];
  /** The calls received since the request count was `before` (read `requestCount` first, then act). */
  requestsSince(before: number): RecordedRequest[];
  /** Stop answering (requests fail as a dead node would) without losing state. */
  pause(): Promise<void>;
  /** Answer again on the same port after `pause()`. */
  resume(): Promise<void>;
  stop(): Promise<void>;
};

type JsonRpcRequest = { jsonrpc?: string; id?: unknown; method?: unknown; params?: unknown };

/** One JSON-RPC call as the node received it. */
export type RecordedRequest = { method: string; params: unknown[] };

// One context per process, shared by every chain. The promise (not the context) is kept, so
// chains started concurrently all wait for the provider factory to be registered.
let context: Promise<EdrContext> | undefined;
function edrContext(): Promise<EdrContext> {
  context ??= (async () => {
    const created = new EdrContext();
    await created.registerProviderFactory(GENERIC_CHAIN_TYPE, genericChainProviderFactory());
    return created;
  })();
  return context;
}

async function createEdrProvider(chainId: number): Promise<Provider> {
  const ctx = await edrContext();
  const wei = 10n ** 18n;
  return ctx.createProvider(
    GENERIC_CHAIN_TYPE,
    {
      allowBlocksWithSameTimestamp: false,
      allowUnlimitedContractSize: false,
      // Without these a reverting eth_call comes back as a success with empty data.
      bailOnCallFailure: true,
      bailOnTransactionFailure: true,
      chainId: BigInt(chainId),
      coinbase: hexToBytes('0xc014ba5ec014ba5ec014ba5ec014ba5ec014ba5e'),
      defaultTransactionGasLimit: 16_000_000n,
      genesisState: DEV_KEYS.map((key) => ({
        address: hexToBytes(privateKeyToAccount(key).address),
        balance: 10_000n * wei,
      })),
      hardfork: PRAGUE,
      initialBaseFeePerGas: 1_000_000_000n,
      minGasPrice: 0n,
      mining: { autoMine: true, memPool: { order: MineOrdering.Priority } },
      network: { genesisBlockGasLimit: 30_000_000n },
      networkId: BigInt(chainId),
      observability: {},
      ownedAccounts: [...DEV_KEYS],
      precompileOverrides: [],
    },
    { enable: false, decodeConsoleLogInputsCallback: () => [], printLineCallback: () => {} },
    { subscriptionCallback: () => {} },
    new ContractDecoder(),
  );
}

/** EDR answers `{result}` or `{error}`; clients expect a full JSON-RPC 2.0 envelope. */
function envelope(id: unknown, data: unknown): Record<string, unknown> {
  const body = (typeof data === 'string' ? JSON.parse(data) : data) as {
    result?: unknown;
    error?: { code: number; message: string; data?: unknown };
  };
  if (!body.error) return { jsonrpc: '2.0', id, result: body.result ?? null };
  const { code, message, data: errorData } = body.error;
  // A call that spent all its gas is not a revert: answer as geth does (-32000 "out of gas").
  if (/ran out of gas/i.test(message)) return { jsonrpc: '2.0', id, error: { code: -32000, message: 'out of gas' } };
  // Reverts carry `{ reason, data }`; viem decodes custom errors from `code: 3` + hex `data`.
  if (errorData && typeof errorData === 'object' && 'data' in errorData) {
    const revertData = (errorData as { data?: unknown }).data;
    return { jsonrpc: '2.0', id, error: { code: 3, message, data: revertData } };
  }
  return { jsonrpc: '2.0', id, error: { code, message, ...(errorData === undefined ? {} : { data: errorData }) } };
}

async function answer(provider: Provider, request: JsonRpcRequest): Promise<Record<string, unknown>> {
  const id = request.id ?? null;
  if (typeof request.method !== 'string') {
    return { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid request' } };
  }
  // EDR rejects requests without `params`; viem omits it for parameterless calls.
  const normalized = { jsonrpc: '2.0', id, method: request.method, params: request.params ?? [] };
  try {
    const response = await provider.handleRequest(JSON.stringify(normalized));
    return envelope(id, response.data);
  } catch (error) {
    return { jsonrpc: '2.0', id, error: { code: -32603, message: (error as Error).message } };
  }
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Starts a node; resolves once it answers on its port. */
export async function startNode(options: NodeOptions = {}): Promise<RunningNode> {
  const chainId = options.chainId ?? 31337;
  const provider = await createEdrProvider(chainId);
  let requestCount = 0;
  const recorded: RecordedRequest[] = [];

  const makeServer = () =>
    createServer(async (req, res) => {
      if (req.method !== 'POST') {
        res.writeHead(405, { allow: 'POST' }).end();
        return;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
        return;
      }
      const batch = Array.isArray(parsed);
      const requests = (batch ? parsed : [parsed]) as JsonRpcRequest[];
      requestCount += requests.length;
      for (const request of requests) {
        recorded.push({
          method: String(request.method),
          params: Array.isArray(request.params) ? request.params : [],
        });
      }
      if (recorded.length > 1000) recorded.splice(0, recorded.length - 1000);
      const responses = [];
      for (const request of requests) responses.push(await answer(provider, request));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(batch ? responses : responses[0]));
    });

  let server = makeServer();
  const port = await listen(server, options.port ?? 0);
  let running = true;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    chainId,
    get requestCount() {
      return requestCount;
    },
    get requests() {
      return recorded;
    },
    requestsSince(before) {
      const count = requestCount - before;
      return count <= 0 ? [] : recorded.slice(-count);
    },
    async pause() {
      if (!running) return;
      running = false;
      await close(server);
    },
    async resume() {
      if (running) return;
      server = makeServer();
      await listen(server, port);
      running = true;
    },
    async stop() {
      if (running) await close(server);
      running = false;
    },
  };
}
