/**
 * Contract-wallet signatures, checked on the message's own chain with one bounded `eth_call`
 * (two for an ERC-8010 signature): what viem's `verifyHash` does, with the differences a sign-in
 * needs — a reason for every refusal, "the node could not be asked" kept apart from "the wallet
 * said no", and an explicit gas cap on every call.
 *
 *  - A plain signature (any length, `0x` included) is put to the address itself:
 *    `isValidSignature(hash, signature)` (ERC-1271). That is how a deployed wallet is asked, and
 *    an address with no code answers nothing (a plain account's signature was already checked
 *    offline). ERC-6492's universal validator is not used here: it reads the last 32 bytes of the
 *    signature and reverts on a shorter one, and refuses the empty signature a Safe that signed
 *    on chain answers to.
 *  - An EIP-6492 wrapped signature (a wallet not deployed yet) goes through the universal
 *    validator: as a deployless `eth_call`, or through the chain's deployed verifier where a
 *    deployless call cannot run (zkSync Era, Abstract).
 *  - An ERC-8010 signature (an EOA whose EIP-7702 authorization is not on chain yet) is checked
 *    as viem does: delegated already → ERC-1271 on the address; otherwise the authorization must
 *    be the address's own, and `isValidSignature` runs in an `eth_call` that carries it.
 */
import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  concatHex,
  decodeFunctionResult,
  ExecutionRevertedError,
  encodeDeployData,
  encodeFunctionData,
  erc6492SignatureValidatorAbi,
  erc6492SignatureValidatorByteCode,
  type Hex,
  hexToBool,
  isAddressEqual,
  isErc6492Signature,
  isErc8010Signature,
  multicall3Abi,
  type PublicClient,
  parseAbi,
  parseErc8010Signature,
  RpcRequestError,
} from 'viem';
import { recoverAuthorizationAddress } from 'viem/utils';
import { SiweError } from './errors.ts';
import { CHAINS_WITHOUT_DEPLOYLESS_CALLS } from './knownChains.ts';

/**
 * The gas every `eth_call` Signet makes may use: 2 M. Real wallets need far less (measured on the
 * local chain with their published contracts by `bench/wallet-gas.ts`: a Safe 1.4.1 2-of-3 about
 * 59 k, a Safe owned by a Safe about 83 k, an OpenZeppelin ERC-7739 account about 31 k, an
 * ERC-8010 check about 60 k, and the most, a counterfactual 2-of-3 Safe deployed and checked
 * through EIP-6492, about 403 k): five times the largest. Explicit, so a contract that loops
 * cannot make the node spend its own default (often 50 M or more) on every attempt; at this cap
 * a node answers within a second even when the contract burns it all, so a hostile wallet always
 * gets the same answer (INVALID_SIGNATURE), whatever the node's speed.
 */
export const ETH_CALL_GAS_CAP = 2_000_000n;

/** The same cap, by its earlier name. */
export const CONTRACT_WALLET_GAS_CAP = ETH_CALL_GAS_CAP;

/** Multicall3's address on mainnet and most chains (ERC-8010 checks run through its aggregate3). */
const MULTICALL3_ADDRESS: Address = '0xcA11bde05977b3631167028862bE2a173976CA11';

/** ERC-1271's magic value as the ABI word a `returns (bytes4)` sends: `0x1626ba7e`, then 28 zero bytes. */
const ERC1271_MAGIC_WORD = `0x1626ba7e${'0'.repeat(56)}`;
const erc1271Abi = parseAbi(['function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)']);

export type ContractWalletMethod = 'eip1271' | 'eip6492' | 'erc8010';

export type CallFailure = { kind: 'revert' } | { kind: 'out-of-gas' } | { kind: 'unasked'; cause: unknown };

/** What an `eth_call` error means: the contract said no (a revert, or it spent the gas cap), or the node could not be asked. */
export function classifyCallError(error: unknown): CallFailure {
  if (!(error instanceof BaseError)) return { kind: 'unasked', cause: error };
  const text = (error.walk((e) => e instanceof RpcRequestError) as RpcRequestError | undefined)?.details ?? error.details;
  // Nodes say it in their own words: geth and reth "out of gas", Nethermind "OutOfGas", Besu "Out of gas".
  if (/out\s*of\s*gas/i.test(`${text} ${error.message}`)) return { kind: 'out-of-gas' };
  const reverted = error.walk(
    (e) =>
      e instanceof ExecutionRevertedError ||
      e instanceof ContractFunctionRevertedError ||
      (e instanceof RpcRequestError && e.code === 3),
  );
  return reverted ? { kind: 'revert' } : { kind: 'unasked', cause: error };
}

/**
 * True when a wallet's answer to `isValidSignature` means "valid", read exactly as Solidity reads
 * it: `abi.decode(answer, (bytes4)) == 0x1626ba7e`, which is what OpenZeppelin's
 * `SignatureChecker` and the ERC-6492 validator do on chain. That is at least 32 bytes, whose first
 * word is the magic value then 28 zero bytes; anything after the first word is ignored (the
 * decoder reads one word). An answer shorter than a word, or with any non-zero byte after the
 * four, is not "valid" (the decoder reverts). viem's own `verifyErc1271` reads answers more
 * loosely (the first four bytes), so it is not the reference here.
 */
export function isErc1271Valid(answer: Hex): boolean {
  return (
    answer.length >= ERC1271_MAGIC_WORD.length && answer.slice(0, ERC1271_MAGIC_WORD.length).toLowerCase() === ERC1271_MAGIC_WORD
  );
}

type Check = { client: PublicClient; address: Address; hash: Hex; chainId: number };

const invalid = (message: string) => new SiweError('INVALID_SIGNATURE', message, { field: 'signature' });
const unasked = (chainId: number, cause: unknown, what = "could not check the contract wallet's signature") =>
  new SiweError('RPC_UNAVAILABLE', `the RPC node for chain ${chainId} ${what}`, { field: 'signature', cause });

/** One capped eth_call; a refusal by the contract comes back as a CallFailure, anything else throws RPC_UNAVAILABLE. */
async function call(
  check: Check,
  request: Parameters<PublicClient['call']>[0],
): Promise<{ data: Hex } | Exclude<CallFailure, { kind: 'unasked' }>> {
  try {
    const { data } = await check.client.call({ ...request, gas: ETH_CALL_GAS_CAP } as never);
    return { data: data ?? '0x' };
  } catch (error) {
    const failure = classifyCallError(error);
    if (failure.kind === 'unasked') throw unasked(check.chainId, failure.cause);
    return failure;
  }
}

const refusal = (check: Check, failure: Exclude<CallFailure, { kind: 'unasked' }>, what: string) =>
  invalid(
    failure.kind === 'out-of-gas'
      ? `${what} ran out of gas (the cap is ${ETH_CALL_GAS_CAP} per check) on chain ${check.chainId}: not accepted`
      : `${what} refused the signature (it reverted) on chain ${check.chainId}`,
  );

/** ERC-1271 on the address itself, whatever the signature's length. */
async function askWallet(check: Check, signature: Hex, method: ContractWalletMethod): Promise<ContractWalletMethod> {
  const { address, chainId } = check;
  const answer = await call(check, {
    to: address,
    data: encodeFunctionData({ abi: erc1271Abi, functionName: 'isValidSignature', args: [check.hash, signature] }),
  });
  if (!('data' in answer)) throw refusal(check, answer, `the contract wallet ${address}`);
  if (answer.data === '0x') {
    throw invalid(
      signature === '0x'
        ? `the signature is empty, which only a contract wallet can accept, and ${address} is not one on chain ${chainId} (no ERC-1271 answer)`
        : `signature was not made by ${address}: it is not that account's own signature, and ${address} is not a contract wallet on chain ${chainId} (no ERC-1271 answer)`,
    );
  }
  if (isErc1271Valid(answer.data)) return method;
  throw invalid(`signature was not made by ${address}: its contract wallet on chain ${chainId} answered that it is not valid`);
}

/** ERC-6492's universal validator: the chain's deployed verifier, or a deployless call where one can run. */
async function askUniversalValidator(check: Check, signature: Hex): Promise<ContractWalletMethod> {
  const { client, address, hash, chainId } = check;
  const verifier = client.chain?.contracts?.erc6492Verifier?.address;
  if (!verifier && CHAINS_WITHOUT_DEPLOYLESS_CALLS.includes(chainId)) {
    throw new SiweError(
      'RPC_UNAVAILABLE',
      `chain ${chainId} cannot run a deployless eth_call and no deployed ERC-6492 verifier is configured for it, so a wallet that is not deployed yet cannot be checked there`,
      { field: 'signature' },
    );
  }
  const answer = await call(
    check,
    verifier
      ? {
          to: verifier,
          data: encodeFunctionData({
            abi: erc6492SignatureValidatorAbi,
            functionName: 'isValidSig',
            args: [address, hash, signature],
          }),
        }
      : {
          data: encodeDeployData({
            abi: erc6492SignatureValidatorAbi,
            bytecode: erc6492SignatureValidatorByteCode,
            args: [address, hash, signature],
          }),
        },
  );
  if (!('data' in answer)) throw refusal(check, answer, `checking the not-yet-deployed wallet ${address}`);
  // The deployless validator answers one byte, a deployed verifier an ABI bool: anything else
  // means the chain did not run it (a chain where contract creation works otherwise).
  const bool = /^0x(0[01]|0{63}[01])$/.test(answer.data);
  if (!bool) {
    throw new SiweError(
      'RPC_UNAVAILABLE',
      `chain ${chainId} did not run the ERC-6492 ${verifier ? `verifier at ${verifier}` : 'deployless validator'} (it answered ${answer.data.slice(0, 20)}${answer.data.length > 20 ? '…' : ''}); a deployed verifier may be needed for this chain`,
      { field: 'signature' },
    );
  }
  if (hexToBool(answer.data)) return 'eip6492';
  throw invalid(`signature was not made by ${address} (checked through EIP-6492 on chain ${chainId})`);
}

/** ERC-8010: a signature that carries the EIP-7702 authorization it needs. */
async function askWithAuthorization(check: Check, signature: Hex): Promise<ContractWalletMethod> {
  const { client, address, hash, chainId } = check;
  let parsed: ReturnType<typeof parseErc8010Signature>;
  try {
    parsed = parseErc8010Signature(signature);
  } catch {
    throw invalid('signature ends like an ERC-8010 signature but its authorization cannot be read');
  }
  if (!parsed.authorization) throw invalid('signature ends like an ERC-8010 signature but carries no authorization');
  const { authorization, data: initData, address: initTarget } = parsed;
  let code: Hex | undefined;
  try {
    code = await client.getCode({ address });
  } catch (error) {
    throw unasked(chainId, error, 'could not read the account');
  }
  // Delegated already (the authorization is on chain): the account answers for itself.
  if (code?.toLowerCase() === concatHex(['0xef0100', authorization.address]).toLowerCase()) {
    return askWallet(check, parsed.signature, 'erc8010');
  }
  if (authorization.chainId !== 0 && authorization.chainId !== chainId) {
    throw invalid(`the EIP-7702 authorization in the signature is for chain ${authorization.chainId}, not chain ${chainId}`);
  }
  let signer: Address;
  try {
    signer = await recoverAuthorizationAddress({ authorization });
  } catch {
    throw invalid('the EIP-7702 authorization in the signature is not validly signed');
  }
  if (!isAddressEqual(signer, address)) {
    throw invalid(`the EIP-7702 authorization in the signature was signed by ${signer}, not by ${address}`);
  }
  const multicall = client.chain?.contracts?.multicall3?.address ?? MULTICALL3_ADDRESS;
  const calls = [
    ...(initData ? [{ target: initTarget ?? address, allowFailure: true, callData: initData }] : []),
    {
      target: address,
      allowFailure: true,
      callData: encodeFunctionData({ abi: erc1271Abi, functionName: 'isValidSignature', args: [hash, parsed.signature] }),
    },
  ];
  const answer = await call(check, {
    to: multicall,
    data: encodeFunctionData({ abi: multicall3Abi, functionName: 'aggregate3', args: [calls] }),
    authorizationList: [authorization],
    blockTag: 'pending',
  } as never);
  if (!('data' in answer)) throw refusal(check, answer, `the account ${address}, with its EIP-7702 authorization,`);
  let results: readonly { success: boolean; returnData: Hex }[];
  try {
    results = decodeFunctionResult({ abi: multicall3Abi, functionName: 'aggregate3', data: answer.data });
  } catch (cause) {
    throw unasked(chainId, cause, `did not answer through Multicall3 at ${multicall}`);
  }
  const last = results[results.length - 1];
  if (last?.success && isErc1271Valid(last.returnData)) return 'erc8010';
  throw invalid(`signature was not made by ${address} (checked with its EIP-7702 authorization on chain ${chainId})`);
}

/**
 * Checks a signature that is not the address's own EOA signature on the message's chain.
 * Resolves to the method that held; throws INVALID_SIGNATURE (refused, with the reason) or
 * RPC_UNAVAILABLE (the chain could not be asked, or cannot run the check).
 */
export function checkContractWallet(
  client: PublicClient,
  address: Address,
  hash: Hex,
  signature: Hex,
  chainId: number,
): Promise<ContractWalletMethod> {
  const check = { client, address, hash, chainId };
  if (isErc6492Signature(signature)) return askUniversalValidator(check, signature);
  if (isErc8010Signature(signature)) return askWithAuthorization(check, signature);
  return askWallet(check, signature, 'eip1271');
}
