import type { Address, PublicClient } from 'viem';
import type { ContractWalletMethod } from './contractWallets.ts';
import type { ChainRegistry } from './createChainRegistry.ts';
import { createSiweMessage } from './createSiweMessage.ts';
import { SiweError } from './errors.ts';
import { type ParseSiweMessageOptions, parseSiweMessage } from './parseSiweMessage.ts';
import { personalSignHash, recoverPersonalSignAddress } from './recoverPersonalSignAddress.ts';
import type { SiweMessage } from './types.ts';

/** Where contract-wallet checks go: one client (for one chain) or a registry of chains. */
export type SiweVerificationClient = PublicClient | ChainRegistry;

export type VerifySiweSignatureParameters = {
  /** The message as signed (text), or parsed (it is formatted back to the same text). */
  message: string | SiweMessage;
  signature: string;
  /** Needed only for contract wallets (EIP-1271, EIP-6492); EOAs verify offline. */
  client?: SiweVerificationClient;
  /** How text is parsed (`acceptCaip2ChainId`: also `Chain ID: eip155:<id>`). */
  parse?: ParseSiweMessageOptions;
};

export type SiweVerificationMethod = 'eoa' | ContractWalletMethod;

export type VerifySiweSignatureReturnType = {
  message: SiweMessage;
  address: Address;
  chainId: number;
  method: SiweVerificationMethod;
};

/**
 * ERC-6492's magic suffix: a signature ending with it wraps a wallet not deployed yet. Checked
 * here rather than with viem's isErc6492Signature so that an EOA's sign-in, checked offline,
 * loads no part of viem: it, and the contract-wallet checks (contractWallets.ts), load at the
 * first contract wallet.
 */
const ERC6492_SUFFIX = '6492649264926492649264926492649264926492649264926492649264926492';
const isErc6492Signature = (signature: string) => signature.length >= 66 && signature.endsWith(ERC6492_SUFFIX);
/** 0x followed by hex digits (strict, as viem's isHex with strict: true). */
const HEX = /^0x[0-9a-fA-F]*$/;

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

/**
 * Verifies that `signature` over the message was made by the message's address.
 *
 * An EOA signature (65 bytes) is checked by public-key recovery, with no network call at all.
 * Otherwise (a contract wallet, or an EIP-6492 wrapped signature) the message's own chain is
 * asked through `client`. Throws `SiweError`: `INVALID_SIGNATURE` when the signature is
 * malformed or wrong, `RPC_UNAVAILABLE` when the chain could not be asked.
 */
export async function verifySiweSignature(parameters: VerifySiweSignatureParameters): Promise<VerifySiweSignatureReturnType> {
  const message =
    typeof parameters.message === 'string' ? parseSiweMessage(parameters.message, parameters.parse) : parameters.message;
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
  if (typeof signature !== 'string' || !HEX.test(signature) || signature.length % 2 !== 0) {
    throw new SiweError('INVALID_SIGNATURE', 'signature is not hex bytes (0x followed by an even number of hex digits)', {
      field: 'signature',
    });
  }
}

/**
 * The first step of verification, with no network call: whether `signature` is an EOA
 * signature over `text` by the message's address. False for anything else (a contract
 * wallet's signature, an EIP-6492 wrapper, another signer); throws INVALID_SIGNATURE for
 * something that is not hex bytes at all (an empty signature, `0x`, is hex bytes: a contract
 * wallet may accept it).
 */
export function isEoaSignatureOf(message: SiweMessage, text: string, signature: string): boolean {
  assertHexSignature(signature);
  if (isErc6492Signature(signature) || signature.length !== 132) return false;
  return recoverPersonalSignAddress(text, signature as `0x${string}`) === message.address.toLowerCase();
}

/**
 * The second step, for what is not an EOA signature, on the message's own chain: ERC-1271 on the
 * address for a plain signature of any length (`0x` included), ERC-6492's universal validator for
 * a wrapped one (a deployed verifier where the chain has one), ERC-8010 for one that carries an
 * EIP-7702 authorization. Resolves to the method that held; throws INVALID_SIGNATURE (refused, or
 * no RPC for that chain; the message says which) or RPC_UNAVAILABLE (the chain could not be asked,
 * or cannot run the check).
 */
export async function verifyContractWalletSignature(
  message: SiweMessage,
  text: string,
  signature: string,
  client: SiweVerificationClient | undefined,
): Promise<ContractWalletMethod> {
  assertHexSignature(signature);
  const { address, chainId } = message;
  const chainClient = await clientFor(client, chainId);
  if (!chainClient) {
    const noRpc = `no RPC is configured for chain ${chainId} to check a contract wallet`;
    throw new SiweError(
      'INVALID_SIGNATURE',
      signature === '0x'
        ? `the signature is empty, which only a contract wallet can accept, and ${noRpc}`
        : signature.length === 132 && !isErc6492Signature(signature)
          ? `signature was not made by ${address} (and ${noRpc})`
          : `signature is not an EOA signature and ${noRpc}`,
      { field: 'signature' },
    );
  }
  const { checkContractWallet } = await import('./contractWallets.ts');
  const hash = `0x${Buffer.from(personalSignHash(text)).toString('hex')}` as const;
  return checkContractWallet(chainClient, address, hash, signature as `0x${string}`, chainId);
}
