/**
 * The primary name of a signer, for the chain they signed on (ENSIP-19), in this order:
 *  1. the name for the chain's own coin type (ENSIP-11: 0x80000000 | chainId; 60 on mainnet),
 *     forward-verified for that coin type by the Universal Resolver;
 *  2. the default name (`default.reverse`), forward-verified for the chain's coin type (a
 *     resolver may answer it from its default EVM address). Mainnet's reverse resolvers already
 *     fall back to it in step 1 on the chains they serve; asking it here covers every chain;
 *  3. for plain accounts only, the mainnet name verified with coin type 60: a deliberate
 *     deviation from ENSIP-19's "no mainnet default", since a plain account's mainnet record
 *     was set by the same key. A contract wallet never falls back to mainnet: the same address
 *     on another chain may belong to someone else.
 * A name that exists but fails verification or normalization ends the lookup: the address.
 * Only a name equal to its ENSIP-15 normalization is used (no look-alikes: mixed scripts,
 * upper case, zero-width or bidi controls).
 */

import { BaseError, ContractFunctionRevertedError, type Hex, hexToBytes, type PublicClient, toCoinType } from 'viem';
import { isNormalized } from './normalized.ts';

/** What one reverse lookup found: a name (verified for the coin type asked, or not), or none. */
type Reverse = { kind: 'name'; name: string; verified: boolean } | { kind: 'none' };

/** ENSIP-19: the coin type of the default EVM name (`default.reverse`) and address. */
const DEFAULT_COIN_TYPE = 0x80000000n;
const NAME_SELECTOR = '0x691f3431'; // name(bytes32): the reverse record itself

/** "alice.eth" from DNS wire format (the Universal Resolver's error arguments). */
function dnsDecode(encoded: Hex): string {
  const bytes = hexToBytes(encoded);
  const labels: string[] = [];
  for (let offset = 0; offset < bytes.length && bytes[offset] !== 0; offset += 1 + (bytes[offset] as number)) {
    labels.push(new TextDecoder().decode(bytes.subarray(offset + 1, offset + 1 + (bytes[offset] as number))));
  }
  return labels.join('.');
}

/** The Universal Resolver's error, by name and arguments, or undefined for any other failure. */
function resolverError(error: unknown): { errorName?: string; args?: readonly unknown[] } | undefined {
  const reverted = error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : undefined;
  return reverted instanceof ContractFunctionRevertedError ? reverted.data : undefined;
}

/** No resolver for the name, or a resolver without the profile asked: the record does not exist. */
function missingRecord(data: { errorName?: string; args?: readonly unknown[] } | undefined): 'reverse' | 'forward' | undefined {
  switch (data?.errorName) {
    case 'ResolverNotFound':
    case 'ResolverNotContract': {
      const name = dnsDecode(data.args?.[0] as Hex);
      return name === 'reverse' || name.endsWith('.reverse') ? 'reverse' : 'forward';
    }
    case 'UnsupportedResolverProfile':
      return data.args?.[0] === NAME_SELECTOR ? 'reverse' : 'forward';
    default:
      return undefined;
  }
}

/**
 * The Universal Resolver's primary name for one coin type. Its errors say which step failed:
 * no reverse record is no name; a missing or wrong forward record is a name that fails
 * verification; anything else (a node or gateway failure) is thrown.
 */
async function reverse(client: PublicClient, address: Hex, coinType: bigint): Promise<Reverse> {
  try {
    const name = await client.getEnsName({ address, coinType, strict: true });
    return name ? { kind: 'name', name, verified: true } : { kind: 'none' };
  } catch (error) {
    const data = resolverError(error);
    if (data?.errorName === 'ReverseAddressMismatch') return { kind: 'name', name: String(data.args?.[0]), verified: false };
    const missing = missingRecord(data);
    if (missing === 'reverse') return { kind: 'none' };
    if (missing === 'forward') return { kind: 'name', name: dnsDecode(data?.args?.[0] as Hex), verified: false };
    throw error;
  }
}

/** Whether `name` resolves to `address` for a coin type (step 2's check). */
async function resolvesTo(client: PublicClient, name: string, coinType: bigint, address: Hex): Promise<boolean> {
  try {
    const resolved = await client.getEnsAddress(coinType === 60n ? { name, strict: true } : { name, coinType, strict: true });
    return resolved?.toLowerCase() === address.toLowerCase();
  } catch (error) {
    if (missingRecord(resolverError(error))) return false;
    throw error;
  }
}

export type PrimaryNameResult = { name?: string; refused?: { name?: string; reason: 'not verified' | 'not normalized' } };

/**
 * The primary name (above), or none. The sources are asked at once (one round trip on a
 * batching transport) and taken in order; a failure of a source that is reached is thrown.
 */
export async function primaryName(
  client: PublicClient,
  address: Hex,
  { chainId, contractWallet }: { chainId: number; contractWallet: boolean },
): Promise<PrimaryNameResult> {
  const coinType = toCoinType(chainId);
  const sources = [
    { step: 'chain', answer: reverse(client, address, coinType) },
    { step: 'default', answer: reverse(client, address, DEFAULT_COIN_TYPE) },
    ...(contractWallet || coinType === 60n ? [] : [{ step: 'mainnet', answer: reverse(client, address, 60n) }]),
  ];
  // A later source's failure matters only if it is reached.
  for (const { answer } of sources) answer.catch(() => {});
  for (const { step, answer } of sources) {
    const found = await answer;
    if (found.kind === 'none') continue;
    const { name } = found;
    if (!isNormalized(name)) return { refused: { name, reason: 'not normalized' } };
    // The default name was verified (if at all) for the default coin type: check the chain's.
    const verified = step === 'default' ? await resolvesTo(client, name, coinType, address) : found.verified;
    return verified ? { name } : { refused: { name, reason: 'not verified' } };
  }
  return {};
}
