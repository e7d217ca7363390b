/**
 * Chains where a deployless `eth_call` (contract code run without being deployed, as ERC-6492's
 * universal validator is) cannot run — zkSync Era and Abstract, which have native account
 * abstraction and a bytecode format of their own — with the ERC-6492 verifier each has deployed
 * and Multicall3, which is not at its usual address there. The values are viem's chain
 * definitions (`contracts.erc6492Verifier`, `contracts.multicall3`); a test keeps them equal, so
 * that no process has to load viem's whole chain list at start.
 */
import type { Address } from 'viem';

type KnownChain = { verifier: Address; multicall3: Address };

export const KNOWN_CHAINS: Readonly<Record<number, KnownChain>> = {
  // zkSync Era
  324: { verifier: '0xfB688330379976DA81eB64Fe4BF50d7401763B9C', multicall3: '0xF9cda624FBC7e059355ce98a31693d299FACd963' },
  // zkSync Sepolia testnet
  300: { verifier: '0xfB688330379976DA81eB64Fe4BF50d7401763B9C', multicall3: '0xF9cda624FBC7e059355ce98a31693d299FACd963' },
  // Abstract
  2741: { verifier: '0xfB688330379976DA81eB64Fe4BF50d7401763B9C', multicall3: '0xAa4De41dba0Ca5dCBb288b7cC6b708F3aaC759E7' },
  // Abstract testnet
  11124: { verifier: '0xfB688330379976DA81eB64Fe4BF50d7401763B9C', multicall3: '0xF9cda624FBC7e059355ce98a31693d299FACd963' },
};

/** Chain id → the ERC-6492 verifier deployed there. */
export const KNOWN_SIGNATURE_VERIFIERS: Readonly<Record<number, Address>> = Object.fromEntries(
  Object.entries(KNOWN_CHAINS).map(([id, chain]) => [id, chain.verifier]),
);

/** Chains on which ERC-6492 checks need a deployed verifier (a deployless call cannot run there). */
export const CHAINS_WITHOUT_DEPLOYLESS_CALLS: readonly number[] = Object.keys(KNOWN_CHAINS).map(Number);
