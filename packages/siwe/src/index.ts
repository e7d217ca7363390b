/**
 * `@signet/siwe`: everything. What needs no RPC node (parsing, validation, an EOA's signature,
 * keccak, addresses) is `@signet/siwe/offline` too, which loads no part of viem until a contract
 * wallet is checked; the chain registry and the contract-wallet helpers below load viem.
 */

export {
  CONTRACT_WALLET_GAS_CAP,
  type ContractWalletMethod,
  classifyCallError,
  ETH_CALL_GAS_CAP,
} from './contractWallets.ts';
export { type ChainRegistry, type ChainRegistryOptions, createChainRegistry } from './createChainRegistry.ts';
export * from './offline.ts';
