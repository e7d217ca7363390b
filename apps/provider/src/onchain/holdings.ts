/**
 * The on-chain check of access conditions (conditions.ts): one batched read per chain
 * (Multicall3), under the same gas cap as every eth_call Signet makes. Loaded by the gate
 * (access.ts) at the first check.
 */
import { type ChainRegistry, classifyCallError, ETH_CALL_GAS_CAP } from '@signet/siwe';
import {
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  multicall3Abi,
  type PublicClient,
  parseAbi,
} from 'viem';
import { type AccessCondition, type AccessConditions, AccessRpcError, describeCondition } from './conditions.ts';

/** Multicall3's address on mainnet and most chains. A chain without it is read call by call. */
export const MULTICALL3_ADDRESS: Address = '0xcA11bde05977b3631167028862bE2a173976CA11';

export type AccessResult = { met: true } | { met: false; unmet: AccessCondition[]; reason: string };

const ERC721_ABI = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function ownerOf(uint256) view returns (address)',
]);
const ERC1155_ABI = parseAbi(['function balanceOf(address, uint256) view returns (uint256)']);
const MULTICALL3_ABI = parseAbi(['function getEthBalance(address) view returns (uint256)']);

type Read = {
  address: Address;
  abi: typeof erc20Abi | typeof ERC721_ABI | typeof ERC1155_ABI | typeof MULTICALL3_ABI;
  functionName: string;
  args: readonly unknown[];
};

function readFor(condition: AccessCondition, holder: Address): Read {
  switch (condition.type) {
    case 'erc20':
      return { address: condition.contract as Address, abi: erc20Abi, functionName: 'balanceOf', args: [holder] };
    case 'erc721':
      return condition.tokenId === undefined
        ? { address: condition.contract as Address, abi: ERC721_ABI, functionName: 'balanceOf', args: [holder] }
        : { address: condition.contract as Address, abi: ERC721_ABI, functionName: 'ownerOf', args: [BigInt(condition.tokenId)] };
    case 'erc1155':
      return {
        address: condition.contract as Address,
        abi: ERC1155_ABI,
        functionName: 'balanceOf',
        args: [holder, BigInt(condition.tokenId)],
      };
    case 'native':
      return { address: MULTICALL3_ADDRESS, abi: MULTICALL3_ABI, functionName: 'getEthBalance', args: [holder] };
  }
}

/** Whether one read's answer meets its condition. A failed read (a revert: no such token, not a token contract) does not. */
function meets(condition: AccessCondition, holder: Address, answer: Answer): boolean {
  if (answer.status !== 'success') return false;
  const value = answer.result;
  switch (condition.type) {
    case 'erc721':
      if (condition.tokenId !== undefined) return typeof value === 'string' && value.toLowerCase() === holder.toLowerCase();
      return typeof value === 'bigint' && value > 0n;
    case 'native':
    case 'erc20':
    case 'erc1155':
      return typeof value === 'bigint' && value >= BigInt(condition.minimum);
  }
}

type Answer = { status: 'success' | 'failure'; result?: unknown };

/** One capped eth_call: its data, undefined when the chain answered "no" (a revert, or the cap spent), AccessRpcError when it could not be asked. */
async function capped(client: PublicClient, chainId: number, to: Address, data: Hex): Promise<Hex | undefined> {
  try {
    return (await client.call({ to, data, gas: ETH_CALL_GAS_CAP })).data ?? '0x';
  } catch (error) {
    if (classifyCallError(error).kind !== 'unasked') return undefined;
    throw new AccessRpcError(chainId, { cause: error });
  }
}

/** A read's answer; empty data (no contract there) or data that does not decode is a failure, "not held". */
function decoded(read: Read, data: Hex | undefined): Answer {
  if (data === undefined || data === '0x') return { status: 'failure' };
  try {
    return { status: 'success', result: decodeFunctionResult({ abi: read.abi, functionName: read.functionName, data } as never) };
  } catch {
    return { status: 'failure' };
  }
}

async function readChain(client: PublicClient, chainId: number, reads: Read[]): Promise<Answer[]> {
  const multicall = client.chain?.contracts?.multicall3?.address ?? MULTICALL3_ADDRESS;
  const calls = reads.map((read) => ({
    target: read.address === MULTICALL3_ADDRESS ? multicall : read.address,
    allowFailure: true,
    callData: encodeFunctionData({ abi: read.abi, functionName: read.functionName, args: read.args } as never),
  }));
  const data = await capped(
    client,
    chainId,
    multicall,
    encodeFunctionData({ abi: multicall3Abi, functionName: 'aggregate3', args: [calls] }),
  );
  // The batch itself refused (it spent the gas cap: a hostile contract among the reads): nothing is held.
  if (data === undefined) return reads.map(() => ({ status: 'failure' }));
  if (data !== '0x') {
    const results = decodeFunctionResult({ abi: multicall3Abi, functionName: 'aggregate3', data });
    return reads.map((read, i) => (results[i]?.success ? decoded(read, results[i].returnData) : { status: 'failure' }));
  }
  // No Multicall3 on this chain: ask call by call (native balance with eth_getBalance).
  return Promise.all(
    reads.map(async (read, i): Promise<Answer> => {
      if (read.address === MULTICALL3_ADDRESS) {
        try {
          return { status: 'success', result: await client.getBalance({ address: read.args[0] as Address }) };
        } catch (error) {
          throw new AccessRpcError(chainId, { cause: error });
        }
      }
      return decoded(read, await capped(client, chainId, read.address, calls[i]?.callData as Hex));
    }),
  );
}

/**
 * Checks `holder` against the conditions: one batched read per chain, all chains at once,
 * bounded by `timeoutMs`. Throws AccessRpcError when a chain cannot be asked (never a pass).
 * With `onlyChainId` (a contract wallet, which signed in on that chain), conditions on any other
 * chain are not met and their chains are not asked.
 */
export async function checkAccess(
  chains: ChainRegistry,
  conditions: AccessConditions,
  holder: Address,
  timeoutMs: number,
  { onlyChainId }: { onlyChainId?: number } = {},
): Promise<AccessResult> {
  const byChain = new Map<number, AccessCondition[]>();
  const foreign: AccessCondition[] = [];
  for (const condition of conditions.conditions) {
    if (onlyChainId !== undefined && condition.chainId !== onlyChainId) {
      foreign.push(condition);
      continue;
    }
    byChain.set(condition.chainId, [...(byChain.get(condition.chainId) ?? []), condition]);
  }
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    if (byChain.size === 0) return;
    timer = setTimeout(
      () => reject(new AccessRpcError([...byChain.keys()][0] ?? 0, { cause: new Error(`no answer within ${timeoutMs} ms`) })),
      timeoutMs,
    );
  });
  try {
    const answers = await Promise.race([
      Promise.all(
        [...byChain].map(async ([chainId, list]) => {
          const client = chains.get(chainId);
          if (!client) throw new AccessRpcError(chainId, { cause: new Error('no RPC node configured') });
          const results = await readChain(
            client,
            chainId,
            list.map((c) => readFor(c, holder)),
          );
          return list.map((condition, i) => ({ condition, ok: meets(condition, holder, results[i] ?? { status: 'failure' }) }));
        }),
      ),
      deadline,
    ]);
    const all = [...answers.flat(), ...foreign.map((condition) => ({ condition, ok: false }))];
    const unmet = all.filter((a) => !a.ok).map((a) => a.condition);
    const met = conditions.match === 'all' ? unmet.length === 0 : unmet.length < all.length;
    if (met) return { met: true };
    const words = unmet.map(describeCondition);
    const base =
      conditions.match === 'all'
        ? `this site requires ${words.join('; and ')}, which this account does not hold`
        : `this site requires one of: ${words.join('; or ')}; this account holds none of them`;
    const reason =
      foreign.length === 0
        ? base
        : `${base} (a contract wallet's holdings count only on the chain it signed in with, chain ${onlyChainId}: the same address on another chain may belong to someone else)`;
    return { met: false, unmet, reason };
  } finally {
    clearTimeout(timer);
  }
}
