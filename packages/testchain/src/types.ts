/** The test chain's public types (index.ts starts one; wallets.ts deploys on one). */
import type { Address, Chain, Hex, PublicClient } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { Ens } from './ens.ts';
import type { RunningNode } from './node.ts';

export type TokenKind = 'erc20' | 'erc721' | 'erc1155';

/** A deployed token fixture; only the chain's deployer (accounts[0]) may mint and move. */
export type TestToken = {
  kind: TokenKind;
  address: Address;
  /** ERC-20: `amount` units. ERC-721: token `id`. ERC-1155: `amount` of token `id`. */
  mint(to: Address, args: { id?: bigint; amount?: bigint }): Promise<void>;
  /** Moves holdings from `from` to `to` as a transfer by the holder would. */
  move(from: Address, to: Address, args: { id?: bigint; amount?: bigint }): Promise<void>;
};

export type TestchainOptions = {
  chainId?: number;
  port?: number;
  /** Deploy the ENS fixtures (default true). */
  ens?: boolean;
};

export type CounterfactualWallet = {
  address: Address;
  factory: Address;
  factoryData: Hex;
};

export type Testchain = {
  url: string;
  chainId: number;
  /** A viem chain for this node, with `contracts.ensUniversalResolver` set when ENS is deployed. */
  chain: Chain;
  node: RunningNode;
  publicClient: PublicClient;
  /** Funded development accounts; [0] is the deployer and ENS root owner. */
  accounts: PrivateKeyAccount[];
  contracts: {
    walletFactory: Address;
    multicall3: Address;
    ensRegistry?: Address;
    publicResolver?: Address;
    universalResolver?: Address;
  };
  /** Deploys an EIP-1271 wallet owned by `owner`; returns its address. */
  deployWallet(owner: Address, salt?: bigint): Promise<Address>;
  /** The address and deploy calldata of a wallet that is not deployed (EIP-6492). */
  counterfactualWallet(owner: Address, salt?: bigint): Promise<CounterfactualWallet>;
  /** Wraps an owner's signature for a counterfactual wallet as EIP-6492 requires. */
  wrap6492(signature: Hex, wallet: CounterfactualWallet): Hex;
  /** Deploys a token fixture of that kind (transactions come from the deployer: one at a time). */
  deployToken(kind: TokenKind): Promise<TestToken>;
  /** Sets an account's native balance (wei). */
  setBalance(address: Address, wei: bigint): Promise<void>;
  /** Gives `address` a primary ENS name (forward + reverse record, coin type 60) and optional text records. */
  setEnsName(address: Address, name: string, records?: { avatar?: string; texts?: Record<string, string> }): Promise<void>;
  /** Forward records of `name` (addresses per coin type, text records) on the public resolver. */
  setEnsRecords: Ens['setRecords'];
  /** A reverse record only (ENSIP-19): coin type 60 (default), DEFAULT_COIN_TYPE, or an EVM chain's (`coinTypeOf`). */
  setPrimaryName: Ens['setPrimaryName'];
  /** An EIP-3668 off-chain resolver for `name` and its subnames, answered by gateway URLs (startEnsGateway). */
  useOffchainResolver: Ens['useOffchainResolver'];
  stop(): Promise<void>;
};
