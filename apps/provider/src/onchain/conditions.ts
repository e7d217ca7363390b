/**
 * Access conditions, what a client may declare an account must hold to sign in to it (client
 * metadata `access_conditions`): their schema, their words, and the errors of a check. The check
 * itself, on-chain, is holdings.ts, which loads viem; the gate (access.ts) loads it at the first
 * gated sign-in, so a provider whose clients are not gated never does.
 */

import { toChecksumAddress as getAddress } from '@signet/siwe/offline';
import { z } from 'zod';
import { HttpError } from '../errors.ts';

/** The most conditions one client may declare. */
export const MAX_ACCESS_CONDITIONS = 10;

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

/** Wei in ether, as viem's formatEther writes it (no trailing zeros): conditions.test.ts holds it to it. */
export function formatEther(wei: bigint): string {
  const digits = (wei < 0n ? -wei : wei).toString().padStart(19, '0');
  const fraction = digits.slice(-18).replace(/0+$/, '');
  return `${wei < 0n ? '-' : ''}${digits.slice(0, -18)}${fraction ? `.${fraction}` : ''}`;
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

export class AccessDeniedError extends HttpError {
  override readonly name = 'AccessDeniedError';
  constructor(
    message: string,
    readonly unmet: AccessCondition[],
  ) {
    super('ACCESS_CONDITION_NOT_MET', message);
  }
}
