import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  ExecutionRevertedError,
  encodeDeployData,
  erc6492SignatureValidatorAbi,
  erc6492SignatureValidatorByteCode,
  type Hex,
  hashMessage,
  hexToBool,
  isErc6492Signature,
  isHex,
  type PublicClient,
  RpcRequestError,
} from 'viem';
import type { ChainRegistry } from './createChainRegistry.ts';
import { createSiweMessage } from './createSiweMessage.ts';
import { SiweError } from './errors.ts';
import { parseSiweMessage } from './parseSiweMessage.ts';
import { recoverPersonalSignAddress } from './recoverPersonalSignAddress.ts';
import type { SiweMessage } from './types.ts';

/** Where contract-wallet checks go: one client (for one chain) or a registry of chains. */
export type SiweVerificationClient = PublicClient | ChainRegistry;

export type VerifySiweSignatureParameters = {
  /** The message as signed (text), or parsed (it is formatted back to the same text). */
  message: string | SiweMessage;
  signature: string;
  /** Needed only for contract wallets (EIP-1271, EIP-6492); EOAs verify offline. */
  client?: SiweVerificationClient;
};

export type SiweVerificationMethod = 'eoa' | 'eip1271' | 'eip6492';

export type VerifySiweSignatureReturnType = {
  message: SiweMessage;
  address: Address;
  chainId: number;
  method: SiweVerificationMethod;
};

const isRegistry = (client: SiweVerificationClient): client is ChainRegistry =>
  typeof (client as ChainRegistry).get === 'function' && Array.isArray((client as ChainRegistry).chainIds);

const clientChainIds = new WeakMap<PublicClient, Promise<number>>();

/** The client for the message's chain, never another chain's (no cross-chain replay). */
async function clientFor(client: SiweVerificationClient | undefined, chainId: number): Promise<PublicClient | undefined> {
  if (!client) return undefined;
  if (isRegistry(client)) return client.get(chainId);
  if (client.chain) return client.chain.id === chainId ? client : undefined;
  let known = clientChainIds.get(client);
  if (!known) {
    known = client.getChainId();
    clientChainIds.set(client, known);
    known.catch(() => clientChainIds.delete(client));
  }
  try {
    return (await known) === chainId ? client : undefined;
  } catch (cause) {
    throw new SiweError('RPC_UNAVAILABLE', `the RPC node for chain ${chainId} did not answer`, { field: 'signature', cause });
  }
}

/** A revert means the validator ran and said no; anything else means we could not ask. */
function isRevert(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  return Boolean(
    error.walk(
      (e) =>
        e instanceof ExecutionRevertedError ||
        e instanceof ContractFunctionRevertedError ||
        (e instanceof RpcRequestError && e.code === 3),
    ),
  );
}

/**
 * The gas an EIP-1271 / EIP-6492 check may use (10 M: deploying a counterfactual wallet and
 * validating takes well under 1 M). Explicit, so a wallet contract that loops cannot make the
 * node spend its own default cap (often 50 M or more) on every sign-in attempt.
 */
export const CONTRACT_WALLET_GAS_CAP = 10_000_000n;

async function verifyOnChain(client: PublicClient, address: Address, text: string, signature: Hex, chainId: number) {
  // ERC-6492's universal validator, run as a deployless eth_call: it checks EIP-1271 for
  // deployed wallets and deploys-then-checks (without persisting) counterfactual ones.
  const data = encodeDeployData({
    abi: erc6492SignatureValidatorAbi,
    bytecode: erc6492SignatureValidatorByteCode,
    args: [address, hashMessage(text), signature],
  });
  try {
    const result = await client.call({ data, gas: CONTRACT_WALLET_GAS_CAP });
    return result.data !== undefined && hexToBool(result.data);
  } catch (cause) {
    if (isRevert(cause)) return false;
    throw new SiweError('RPC_UNAVAILABLE', `the RPC node for chain ${chainId} could not check the contract wallet's signature`, {
      field: 'signature',
      cause,
    });
  }
}

/**
 * Verifies that `signature` over the message was made by the message's address.
 *
 * An EOA signature (65 bytes) is checked by public-key recovery, with no network call at all.
 * Otherwise (a contract wallet, or an EIP-6492 wrapped signature) the message's own chain is
 * asked through `client`. Throws `SiweError`: `INVALID_SIGNATURE` when the signature is
 * malformed or wrong, `RPC_UNAVAILABLE` when the chain could not be asked.
 */
export async function verifySiweSignature(parameters: VerifySiweSignatureParameters): Promise<VerifySiweSignatureReturnType> {
  const message = typeof parameters.message === 'string' ? parseSiweMessage(parameters.message) : parameters.message;
  const text = typeof parameters.message === 'string' ? parameters.message : createSiweMessage(message);
  return verifyParsedSignature(message, text, parameters.signature, parameters.client);
}

/** verifySiweSignature for a message already parsed from `text` (no second parse). */
export async function verifyParsedSignature(
  message: SiweMessage,
  text: string,
  signature: string,
  client: SiweVerificationClient | undefined,
): Promise<VerifySiweSignatureReturnType> {
  const { address, chainId } = message;
  if (isEoaSignatureOf(message, text, signature)) return { message, address, chainId, method: 'eoa' };
  return { message, address, chainId, method: await verifyContractWalletSignature(message, text, signature, client) };
}

function assertHexSignature(signature: string) {
  if (
    typeof signature !== 'string' ||
    !isHex(signature, { strict: true }) ||
    signature.length < 4 ||
    signature.length % 2 !== 0
  ) {
    throw new SiweError('INVALID_SIGNATURE', 'signature must be 0x-prefixed hex bytes', { field: 'signature' });
  }
}

/**
 * The first step of verification, with no network call: whether `signature` is an EOA
 * signature over `text` by the message's address. False for anything else (a contract
 * wallet's signature, an EIP-6492 wrapper, another signer); throws INVALID_SIGNATURE for
 * something that is not hex bytes at all.
 */
export function isEoaSignatureOf(message: SiweMessage, text: string, signature: string): boolean {
  assertHexSignature(signature);
  if (isErc6492Signature(signature as `0x${string}`) || signature.length !== 132) return false;
  return recoverPersonalSignAddress(text, signature as `0x${string}`) === message.address.toLowerCase();
}

/**
 * The second step, for what is not an EOA signature: EIP-1271 / EIP-6492 through ERC-6492's
 * universal validator on the message's own chain. Resolves to the method that held; throws
 * INVALID_SIGNATURE (wrong, or no RPC for that chain) or RPC_UNAVAILABLE (the chain could not be asked).
 */
export async function verifyContractWalletSignature(
  message: SiweMessage,
  text: string,
  signature: string,
  client: SiweVerificationClient | undefined,
): Promise<'eip1271' | 'eip6492'> {
  assertHexSignature(signature);
  const { address, chainId } = message;
  const wrapped = isErc6492Signature(signature as `0x${string}`);
  const chainClient = await clientFor(client, chainId);
  if (!chainClient) {
    throw new SiweError(
      'INVALID_SIGNATURE',
      wrapped || signature.length !== 132
        ? `signature is not an EOA signature and no RPC is configured for chain ${chainId} to check a contract wallet`
        : `signature was not made by ${address} (and no RPC is configured for chain ${chainId} to check a contract wallet)`,
      { field: 'signature' },
    );
  }
  if (await verifyOnChain(chainClient, address, text, signature as `0x${string}`, chainId))
    return wrapped ? 'eip6492' : 'eip1271';
  throw new SiweError('INVALID_SIGNATURE', `signature was not made by ${address} (checked on chain ${chainId})`, {
    field: 'signature',
  });
}
