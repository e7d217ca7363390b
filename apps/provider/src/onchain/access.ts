/**
 * Access conditions: a client may declare what an account must hold to sign in to it
 * (client metadata `access_conditions`). Checked on-chain after the signature verifies and
 * again whenever a refresh token is used, with one batched read per chain (Multicall3).
 */
import type { ChainRegistry } from '@signet/siwe';
import {
  AbiDecodingZeroDataError,
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  ExecutionRevertedError,
  erc20Abi,
  formatEther,
  getAddress,
  type PublicClient,
  parseAbi,
  RpcRequestError,
} from 'viem';
import { z } from 'zod';
import { clientFields } from '../clients.ts';

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

export class AccessRpcError extends Error {
  override readonly name = 'AccessRpcError';
  constructor(
    readonly chainId: number,
    options: { cause: unknown },
  ) {
    super(`the RPC node for chain ${chainId} could not be asked about holdings`, options);
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

type Answer = { status: 'success' | 'failure'; result?: unknown; error?: unknown };

/** The chain answered "no" (a revert, e.g. ownerOf of a token that does not exist). */
const isRevert = (error: unknown) =>
  error instanceof BaseError &&
  Boolean(
    error.walk(
      (e) =>
        e instanceof ExecutionRevertedError ||
        e instanceof ContractFunctionRevertedError ||
        (e instanceof RpcRequestError && e.code === 3),
    ),
  );
/** The chain answered with nothing: no contract at that address. */
const isNoData = (error: unknown) =>
  error instanceof BaseError &&
  Boolean(error.walk((e) => e instanceof AbiDecodingZeroDataError || e instanceof ContractFunctionZeroDataError));

/** A failed read is "not held" when the chain answered; anything else (transport, timeout, node error) means we could not ask. */
function assertAnswered(chainId: number, answers: Answer[]): Answer[] {
  const unasked = answers.find((a) => a.status === 'failure' && !isRevert(a.error) && !isNoData(a.error));
  if (unasked) throw new AccessRpcError(chainId, { cause: unasked.error });
  return answers;
}

async function readChain(client: PublicClient, chainId: number, reads: Read[]): Promise<Answer[]> {
  let answers: Answer[];
  try {
    answers = (await client.multicall({
      contracts: reads as never,
      allowFailure: true,
      multicallAddress: MULTICALL3_ADDRESS,
    })) as Answer[];
  } catch (error) {
    throw new AccessRpcError(chainId, { cause: error });
  }
  // Every read empty: most likely this chain has no Multicall3. Ask once more, call by call
  // (native balance with eth_getBalance); a token contract that is simply absent stays "not held".
  if (!answers.every((a) => a.status === 'failure' && isNoData(a.error))) return assertAnswered(chainId, answers);
  const single = await Promise.all(
    reads.map(async (read): Promise<Answer> => {
      try {
        const result =
          read.address === MULTICALL3_ADDRESS
            ? await client.getBalance({ address: read.args[0] as Address })
            : await client.readContract(read as never);
        return { status: 'success', result };
      } catch (error) {
        return { status: 'failure', error };
      }
    }),
  );
  return assertAnswered(chainId, single);
}

/**
 * Checks `holder` against the conditions: one batched read per chain, all chains at once,
 * bounded by `timeoutMs`. Throws AccessRpcError when a chain cannot be asked (never a pass).
 */
export async function checkAccess(
  chains: ChainRegistry,
  conditions: AccessConditions,
  holder: Address,
  timeoutMs: number,
): Promise<AccessResult> {
  const byChain = new Map<number, AccessCondition[]>();
  for (const condition of conditions.conditions) {
    byChain.set(condition.chainId, [...(byChain.get(condition.chainId) ?? []), condition]);
  }
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
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
    const all = answers.flat();
    const unmet = all.filter((a) => !a.ok).map((a) => a.condition);
    const met = conditions.match === 'all' ? unmet.length === 0 : unmet.length < all.length;
    if (met) return { met: true };
    const words = unmet.map(describeCondition);
    const reason =
      conditions.match === 'all'
        ? `this site requires ${words.join('; and ')}, which this account does not hold`
        : `this site requires one of: ${words.join('; or ')}; this account holds none of them`;
    return { met: false, unmet, reason };
  } finally {
    clearTimeout(timer);
  }
}

export class AccessDeniedError extends Error {
  override readonly name = 'AccessDeniedError';
  constructor(
    message: string,
    readonly unmet: AccessCondition[],
  ) {
    super(message);
  }
}

export type AccessGate = {
  /**
   * Resolves when the client declares no conditions or the account meets them; throws
   * AccessDeniedError when it does not, AccessRpcError when a chain cannot be asked.
   * An ungated client costs nothing (no RPC call).
   */
  enforce(client: { clientId: string }, accountId: string, holder: Address): Promise<void>;
};

/**
 * The gate the interaction and the refresh grant share. A met check is remembered per account
 * and client for `cacheSeconds` (in this process), so a burst of refreshes costs one read.
 */
export function createAccessGate(options: { chains: ChainRegistry; timeoutMs: number; cacheSeconds: number }): AccessGate {
  const metUntil = new Map<string, number>();
  return {
    async enforce(client, accountId, holder) {
      const conditions = accessConditionsOf(clientFields(client));
      if (!conditions) return;
      const key = `${client.clientId}\0${accountId}`;
      const now = Date.now();
      if ((metUntil.get(key) ?? 0) > now) return;
      metUntil.delete(key);
      const result = await checkAccess(options.chains, conditions, holder, options.timeoutMs);
      if (!result.met) throw new AccessDeniedError(result.reason, result.unmet);
      if (options.cacheSeconds > 0) {
        if (metUntil.size >= 10_000) metUntil.clear();
        metUntil.set(key, now + options.cacheSeconds * 1000);
      }
    },
  };
}
