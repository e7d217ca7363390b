/**
 * Access conditions: a client may declare what an account must hold to sign in to it
 * (client metadata `access_conditions`). Checked on-chain after the signature verifies and
 * again whenever a refresh token is used, with one batched read per chain (Multicall3), under
 * the same gas cap as every eth_call Signet makes. A contract wallet's holdings count only on
 * the chain it signed in with: the same address on another chain may be someone else's.
 */
import { type ChainRegistry, classifyCallError, ETH_CALL_GAS_CAP } from '@signet/siwe';
import {
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  erc20Abi,
  formatEther,
  getAddress,
  type Hex,
  multicall3Abi,
  type PublicClient,
  parseAbi,
} from 'viem';
import { z } from 'zod';
import { clientFields } from '../clients/rules.ts';
import { HttpError } from '../errors.ts';
import type { SignInMethod } from '../records/sign-ins.ts';
import { parseAccountId } from '../wallets/ethereum.ts';

/** The most conditions one client may declare. */
export const MAX_ACCESS_CONDITIONS = 10;

/** Multicall3's address on mainnet and most chains. A chain without it is read call by call. */
export const MULTICALL3_ADDRESS: Address = '0xcA11bde05977b3631167028862bE2a173976CA11';

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address');
const amount = z.string().regex(/^(0|[1-9][0-9]{0,76})$/, 'must be a whole number as a decimal string');
const chainId = z.number().int().positive();

const conditionSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('erc20'), chainId, contract: address, minimum: amount }),
  z.strictObject({ type: z.literal('erc721'), chainId, contract: address, tokenId: amount.optional() }),
  z.strictObject({ type: z.literal('erc1155'), chainId, contract: address, tokenId: amount, minimum: amount }),
  z.strictObject({ type: z.literal('native'), chainId, minimum: amount }),
]);

const accessConditionsSchema = z.strictObject({
  match: z.enum(['all', 'any']),
  conditions: z.array(conditionSchema).min(1).max(MAX_ACCESS_CONDITIONS),
});

export type AccessCondition = z.infer<typeof conditionSchema>;
export type AccessConditions = z.infer<typeof accessConditionsSchema>;

/** What is wrong with a client's `access_conditions`, in words naming the field; undefined when fine. */
export function accessConditionsProblem(value: unknown, chainsWithRpc: readonly number[]): string | undefined {
  const parsed = accessConditionsSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = (issue?.path ?? []).map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
    return `access_conditions${path}: ${issue?.message ?? 'is invalid'}`;
  }
  for (const [index, condition] of parsed.data.conditions.entries()) {
    if (!chainsWithRpc.includes(condition.chainId)) {
      return `access_conditions.conditions[${index}].chainId: chain ${condition.chainId} has no RPC node configured (ETH_RPC_URL / RPC_URLS)`;
    }
  }
  return undefined;
}

/** The client's conditions, or undefined for an ungated client. */
export function accessConditionsOf(metadata: { access_conditions?: unknown }): AccessConditions | undefined {
  if (metadata.access_conditions === undefined) return undefined; // ungated: nothing to parse
  const parsed = accessConditionsSchema.safeParse(metadata.access_conditions);
  return parsed.success ? parsed.data : undefined;
}

/** One condition in plain words, for the wallet page and refusals. */
export function describeCondition(condition: AccessCondition): string {
  const on = `on chain ${condition.chainId}`;
  switch (condition.type) {
    case 'erc20':
      return `at least ${condition.minimum} base units of the ERC-20 token ${getAddress(condition.contract)} ${on}`;
    case 'erc721':
      return condition.tokenId === undefined
        ? `a token of the ERC-721 collection ${getAddress(condition.contract)} ${on}`
        : `token #${condition.tokenId} of the ERC-721 collection ${getAddress(condition.contract)} ${on}`;
    case 'erc1155':
      return `at least ${condition.minimum} of token #${condition.tokenId} of the ERC-1155 contract ${getAddress(condition.contract)} ${on}`;
    case 'native':
      return `at least ${formatEther(BigInt(condition.minimum))} of the native currency (${condition.minimum} wei) ${on}`;
  }
}

/** The `requires` list of interaction details: one description per condition. */
export function requirementsOf(conditions: AccessConditions): string[] {
  return conditions.conditions.map(describeCondition);
}

/**
 * Why an account that is not an Ethereum account (a Solana or Bitcoin one: `kind`) cannot enter a
 * gated client.
 */
export function notEthereumReason(conditions: AccessConditions, kind = 'Solana'): string {
  const words = requirementsOf(conditions).join(conditions.match === 'all' ? '; and ' : '; or ');
  return `this site admits only holders of ${words}: holdings on Ethereum chains, which a ${kind} account cannot have; sign in with an Ethereum account`;
}

export class AccessRpcError extends HttpError {
  override readonly name = 'AccessRpcError';
  /** What could not be done, without the advice to retry (the token endpoint words its own). */
  readonly reason: string;
  constructor(
    readonly chainId: number,
    options: { cause: unknown },
  ) {
    const reason = `the RPC node for chain ${chainId} could not be asked about holdings`;
    super('RPC_UNAVAILABLE', `${reason}; try again shortly`, options);
    this.reason = reason;
  }
}

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

export class AccessDeniedError extends HttpError {
  override readonly name = 'AccessDeniedError';
  constructor(
    message: string,
    readonly unmet: AccessCondition[],
  ) {
    super('ACCESS_CONDITION_NOT_MET', message);
  }
}

export type AccessGate = {
  /**
   * Resolves when the client declares no conditions or the account meets them; throws
   * AccessDeniedError when it does not, AccessRpcError when a chain cannot be asked.
   * An ungated client costs nothing (no RPC call). `holder` is the account's address (undefined
   * for an account that is not an Ethereum one, which a gated client refuses unasked). `method`
   * is how the account signed in:
   * anything but `'eoa'` (a contract wallet, or unknown) counts holdings only on the chain of
   * `accountId`.
   */
  enforce(
    client: { clientId: string },
    accountId: string,
    holder: Address | undefined,
    method: SignInMethod | undefined,
  ): Promise<void>;
};

/**
 * The gate the interaction and the refresh grant share. A met check is remembered per account
 * and client for `cacheSeconds` (in this process), so a burst of refreshes costs one read.
 */
export function createAccessGate(options: { chains: ChainRegistry; timeoutMs: number; cacheSeconds: number }): AccessGate {
  const metUntil = new Map<string, number>();
  return {
    async enforce(client, accountId, holder, method) {
      const conditions = accessConditionsOf(clientFields(client));
      if (!conditions) return;
      // Conditions are holdings on Ethereum chains: any other account (Solana, Bitcoin) is refused unasked.
      const account = parseAccountId(accountId);
      if (!account) {
        const kind = accountId.startsWith('bip122:') ? 'Bitcoin' : 'Solana';
        throw new AccessDeniedError(notEthereumReason(conditions, kind), conditions.conditions);
      }
      const eoa = method === 'eoa';
      const key = `${client.clientId}\0${accountId}\0${eoa ? 'eoa' : 'contract'}`;
      const now = Date.now();
      if ((metUntil.get(key) ?? 0) > now) return;
      metUntil.delete(key);
      const onlyChainId = eoa ? undefined : account.chainId;
      const result = await checkAccess(options.chains, conditions, holder ?? account.address, options.timeoutMs, {
        onlyChainId,
      });
      if (!result.met) throw new AccessDeniedError(result.reason, result.unmet);
      if (options.cacheSeconds > 0) {
        if (metUntil.size >= 10_000) metUntil.clear();
        metUntil.set(key, now + options.cacheSeconds * 1000);
      }
    },
  };
}
