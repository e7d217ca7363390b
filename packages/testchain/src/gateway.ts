/**
 * An EIP-3668 (CCIP-read) gateway for the local chain's OffchainResolver: a real HTTP server
 * answering `POST {sender, data}` (and `GET …/{sender}/{data}.json`) with `{ data }`, the
 * resolver's answer signed by the gateway's key, exactly as ENS's offchain gateways answer
 * mainnet names. Records are kept by name in memory; the test edits them.
 */
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import {
  type Address,
  decodeFunctionData,
  encodeAbiParameters,
  encodeFunctionResult,
  encodePacked,
  type Hex,
  hexToBytes,
  isHex,
  keccak256,
  parseAbi,
  serializeSignature,
  zeroAddress,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount, sign } from 'viem/accounts';
import { DEFAULT_COIN_TYPE } from './ens.ts';

export type GatewayRecord = {
  /** `name()`: for reverse names (`[addr].<coin>.reverse`). */
  name?: string;
  /** `addr(node)`: the coin type 60 address. */
  address?: Address;
  /** `addr(node, coinType)`; an EVM coin type without a record answers the default EVM address (ENSIP-19). */
  addresses?: Record<number, Address>;
  texts?: Record<string, string>;
};

export type EnsGateway = {
  /** The URL to give the OffchainResolver (POST). */
  url: string;
  /** The same gateway in EIP-3668's GET form (`{sender}`, `{data}` replaced by the client). */
  getUrl: string;
  /** Records by name (lowercase, dotted); edit freely. */
  records: Map<string, GatewayRecord>;
  /** Requests answered so far. */
  readonly requests: number;
  /** The address whose signatures the OffchainResolver must accept. */
  signer: Address;
  close(): Promise<void>;
};

const RESOLVE_ABI = parseAbi(['function resolve(bytes name, bytes data) view returns (bytes)']);
const PROFILE_ABI = parseAbi([
  'function name(bytes32 node) view returns (string)',
  'function addr(bytes32 node) view returns (address)',
  'function addr(bytes32 node, uint256 coinType) view returns (bytes)',
  'function text(bytes32 node, string key) view returns (string)',
]);

/** DNS wire format → "alice.eth". */
export function dnsDecode(encoded: Hex): string {
  const bytes = hexToBytes(encoded);
  const labels: string[] = [];
  for (let offset = 0; offset < bytes.length && bytes[offset] !== 0; ) {
    const length = bytes[offset] as number;
    labels.push(Buffer.from(bytes.subarray(offset + 1, offset + 1 + length)).toString('utf8'));
    offset += 1 + length;
  }
  return labels.join('.');
}

/** The answer to one `resolve(name, data)` from the records, or undefined when the profile is unknown. */
function answer(records: Map<string, GatewayRecord>, callData: Hex): Hex | undefined {
  const { args } = decodeFunctionData({ abi: RESOLVE_ABI, data: callData });
  const [encodedName, data] = args;
  const record = records.get(dnsDecode(encodedName)) ?? {};
  const inner = decodeFunctionData({ abi: PROFILE_ABI, data });
  switch (inner.functionName) {
    case 'name':
      return encodeFunctionResult({ abi: PROFILE_ABI, functionName: 'name', result: record.name ?? '' });
    case 'text':
      return encodeFunctionResult({ abi: PROFILE_ABI, functionName: 'text', result: record.texts?.[inner.args[1]] ?? '' });
    case 'addr': {
      if (inner.args.length === 1) {
        return encodeFunctionResult({ abi: PROFILE_ABI, functionName: 'addr', result: record.address ?? zeroAddress } as never);
      }
      const coinType = Number(inner.args[1]);
      const evm = coinType >= DEFAULT_COIN_TYPE;
      const address =
        record.addresses?.[coinType] ??
        (coinType === 60 ? record.address : undefined) ??
        (evm ? record.addresses?.[DEFAULT_COIN_TYPE] : undefined);
      return encodeAbiParameters([{ type: 'bytes' }], [address ?? '0x']);
    }
    default:
      return undefined;
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Starts a gateway on a free loopback port, signing with `privateKey` (a fresh key by default);
 * `tls` serves it over https with that key and certificate.
 */
export async function startEnsGateway(
  options: { privateKey?: Hex; records?: Record<string, GatewayRecord>; tls?: { key: string; cert: string } } = {},
): Promise<EnsGateway> {
  const privateKey = options.privateKey ?? generatePrivateKey();
  const records = new Map(Object.entries(options.records ?? {}));
  let requests = 0;
  const listener: RequestListener = async (request, response) => {
    requests++;
    const reply = (status: number, body: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    try {
      let sender: string | undefined;
      let callData: string | undefined;
      if (request.method === 'POST') {
        ({ sender, data: callData } = JSON.parse(await readBody(request)) as { sender?: string; data?: string });
      } else {
        const match = /\/(0x[0-9a-fA-F]{40})\/(0x[0-9a-fA-F]*)\.json$/.exec(request.url ?? '');
        [, sender, callData] = match ?? [];
      }
      if (!sender || !isHex(sender) || !callData || !isHex(callData)) return reply(400, { message: 'sender and data required' });
      const result = answer(records, callData);
      if (result === undefined) return reply(404, { message: 'unsupported profile' });
      const expires = BigInt(Math.floor(Date.now() / 1000) + 300);
      const hash = keccak256(
        encodePacked(
          ['bytes2', 'address', 'uint64', 'bytes32', 'bytes32'],
          ['0x1900', sender as Address, expires, keccak256(callData), keccak256(result)],
        ),
      );
      const signature = serializeSignature(await sign({ hash, privateKey }));
      const data = encodeAbiParameters([{ type: 'bytes' }, { type: 'uint64' }, { type: 'bytes' }], [result, expires, signature]);
      return reply(200, { data });
    } catch (error) {
      return reply(500, { message: (error as Error).message });
    }
  };
  const server: Server = options.tls ? createHttpsServer(options.tls, listener) : createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `${options.tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/lookup`,
    getUrl: `${origin}/lookup/{sender}/{data}.json`,
    records,
    get requests() {
      return requests;
    },
    signer: privateKeyToAccount(privateKey).address,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
