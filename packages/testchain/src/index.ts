/**
 * A real local chain for tests: an EDR node over HTTP, with the contracts Signet's
 * verification and ENS lookups meet on mainnet deployed on it.
 *
 *  - `OwnedWallet`: an EIP-1271 contract wallet whose owner key signs for it.
 *  - `WalletFactory`: CREATE2 factory, for EIP-6492 counterfactual (not yet deployed) wallets.
 *  - ENS: the real `ENSRegistry` and `PublicResolver` (ENS's npm artifacts), plus a Universal
 *    Resolver placed at mainnet's canonical address, so viem's `getEnsName`/`getEnsAvatar`
 *    work against this chain exactly as against mainnet.
 *  - Multicall3 (its `aggregate3` and `getEthBalance`) at its canonical address, for batched reads.
 *  - On demand, ERC-20 / ERC-721 / ERC-1155 token fixtures the deployer can mint and move.
 */
import {
  type Account,
  type Address,
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  getAddress,
  type Hex,
  http,
  labelhash,
  namehash,
  type PublicClient,
  pad,
  serializeErc6492Signature,
  toHex,
  type WalletClient,
} from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { mainnet } from 'viem/chains';
import { type Artifact, compileContracts, ensArtifacts } from './compile.ts';
import { DEV_KEYS, type RunningNode, startNode } from './node.ts';

export { DEV_KEYS, type RunningNode, startNode } from './node.ts';

/** Multicall3's address on mainnet and most chains (and on this one). */
export const MULTICALL3_ADDRESS: Address = '0xcA11bde05977b3631167028862bE2a173976CA11';

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

/** Where viem looks for the ENS Universal Resolver on chain 1. */
export const CANONICAL_UNIVERSAL_RESOLVER = mainnet.contracts.ensUniversalResolver.address;

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
  /** Gives `address` a primary ENS name (forward + reverse record) and optional avatar and email text records. */
  setEnsName(address: Address, name: string, records?: { avatar?: string; email?: string }): Promise<void>;
  stop(): Promise<void>;
};

const ENS_REGISTRY_ABI = [
  {
    type: 'function',
    name: 'setSubnodeOwner',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'node', type: 'bytes32' },
      { name: 'label', type: 'bytes32' },
      { name: 'owner', type: 'address' },
    ],
    outputs: [{ type: 'bytes32' }],
  },
  {
    type: 'function',
    name: 'setResolver',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'node', type: 'bytes32' },
      { name: 'resolver', type: 'address' },
    ],
    outputs: [],
  },
] as const;

const PUBLIC_RESOLVER_ABI = [
  {
    type: 'function',
    name: 'setAddr',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'node', type: 'bytes32' },
      { name: 'a', type: 'address' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'setText',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'node', type: 'bytes32' },
      { name: 'key', type: 'string' },
      { name: 'value', type: 'string' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'setName',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'node', type: 'bytes32' },
      { name: 'name', type: 'string' },
    ],
    outputs: [],
  },
] as const;

const FACTORY_ABI = [
  {
    type: 'function',
    name: 'deploy',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'owner', type: 'address' },
      { name: 'salt', type: 'bytes32' },
    ],
    outputs: [{ name: 'wallet', type: 'address' }],
  },
  {
    type: 'function',
    name: 'addressOf',
    stateMutability: 'view',
    inputs: [
      { name: 'owner', type: 'address' },
      { name: 'salt', type: 'bytes32' },
    ],
    outputs: [{ type: 'address' }],
  },
] as const;

async function deploy(
  wallet: WalletClient,
  client: PublicClient,
  account: Account,
  artifact: Artifact,
  args: readonly unknown[] = [],
): Promise<Address> {
  const hash = await wallet.deployContract({
    abi: artifact.abi,
    bytecode: artifact.bytecode,
    args,
    account,
    chain: null,
  });
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  if (!receipt.contractAddress || receipt.status !== 'success') {
    throw new Error(`deployment failed (${receipt.status})`);
  }
  return getAddress(receipt.contractAddress);
}

export async function startTestchain(options: TestchainOptions = {}): Promise<Testchain> {
  const chainId = options.chainId ?? 31337;
  const withEns = options.ens ?? true;
  const artifacts = compileContracts();
  const node = await startNode({ chainId, port: options.port });
  const accounts = DEV_KEYS.map((key) => privateKeyToAccount(key));
  const deployer = accounts[0] as PrivateKeyAccount;
  const baseChain = defineChain({
    id: chainId,
    name: `Signet testchain ${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [node.url] } },
  });
  const publicClient = createPublicClient({ chain: baseChain, transport: http(node.url) }) as PublicClient;
  const walletClient = createWalletClient({ chain: baseChain, transport: http(node.url), account: deployer });

  const send = async (to: Address, data: Hex) => {
    const hash = await walletClient.sendTransaction({ to, data, account: deployer, chain: null });
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    if (receipt.status !== 'success') throw new Error(`transaction to ${to} reverted`);
  };
  /** Copies a deployed contract's code to a well-known address (where mainnet has it). */
  const placeAt = async (target: Address, deployed: Address) => {
    const code = await publicClient.getCode({ address: deployed });
    await publicClient.request({ method: 'hardhat_setCode' as never, params: [target, code] as never });
  };

  const walletFactory = await deploy(walletClient, publicClient, deployer, artifacts.WalletFactory as Artifact);
  await placeAt(MULTICALL3_ADDRESS, await deploy(walletClient, publicClient, deployer, artifacts.Multicall3 as Artifact));

  const contracts: Testchain['contracts'] = { walletFactory, multicall3: MULTICALL3_ADDRESS };
  let chain: Chain = baseChain;

  if (withEns) {
    const ens = ensArtifacts();
    const ensRegistry = await deploy(walletClient, publicClient, deployer, ens.registry);
    const publicResolver = await deploy(walletClient, publicClient, deployer, ens.publicResolver, [ensRegistry]);
    const deployedResolver = await deploy(walletClient, publicClient, deployer, artifacts.UniversalResolver as Artifact, [
      ensRegistry,
    ]);
    // Place the Universal Resolver where viem expects it on mainnet, so a provider configured
    // with nothing but this node's URL resolves names exactly as in production.
    await placeAt(CANONICAL_UNIVERSAL_RESOLVER, deployedResolver);
    const registryCall = (functionName: 'setSubnodeOwner' | 'setResolver', args: readonly unknown[]) =>
      send(ensRegistry, encodeFunctionData({ abi: ENS_REGISTRY_ABI, functionName, args } as never));
    await registryCall('setSubnodeOwner', [pad('0x0'), labelhash('eth'), deployer.address]);
    await registryCall('setSubnodeOwner', [pad('0x0'), labelhash('reverse'), deployer.address]);
    await registryCall('setSubnodeOwner', [namehash('reverse'), labelhash('addr'), deployer.address]);
    Object.assign(contracts, { ensRegistry, publicResolver, universalResolver: CANONICAL_UNIVERSAL_RESOLVER });
    chain = defineChain({
      ...baseChain,
      contracts: { ensUniversalResolver: { address: CANONICAL_UNIVERSAL_RESOLVER } },
    });
  }

  const saltOf = (salt: bigint) => pad(toHex(salt), { size: 32 });

  return {
    url: node.url,
    chainId,
    chain,
    node,
    publicClient,
    accounts,
    contracts,
    async deployWallet(owner, salt = 0n) {
      await send(walletFactory, encodeFunctionData({ abi: FACTORY_ABI, functionName: 'deploy', args: [owner, saltOf(salt)] }));
      return publicClient.readContract({
        address: walletFactory,
        abi: FACTORY_ABI,
        functionName: 'addressOf',
        args: [owner, saltOf(salt)],
      });
    },
    async counterfactualWallet(owner, salt = 0n) {
      const address = await publicClient.readContract({
        address: walletFactory,
        abi: FACTORY_ABI,
        functionName: 'addressOf',
        args: [owner, saltOf(salt)],
      });
      const factoryData = encodeFunctionData({ abi: FACTORY_ABI, functionName: 'deploy', args: [owner, saltOf(salt)] });
      return { address, factory: walletFactory, factoryData };
    },
    wrap6492(signature, wallet) {
      return serializeErc6492Signature({ address: wallet.factory, data: wallet.factoryData, signature });
    },
    async deployToken(kind) {
      const artifact = artifacts[{ erc20: 'TestERC20', erc721: 'TestERC721', erc1155: 'TestERC1155' }[kind]] as Artifact;
      const address = await deploy(walletClient, publicClient, deployer, artifact);
      const call = (functionName: string, args: readonly unknown[]) =>
        send(address, encodeFunctionData({ abi: artifact.abi, functionName, args } as never));
      return {
        kind,
        address,
        mint: (to, { id = 0n, amount = 1n }) =>
          kind === 'erc20'
            ? call('mint', [to, amount])
            : kind === 'erc721'
              ? call('mint', [to, id])
              : call('mint', [to, id, amount]),
        move: (from, to, { id = 0n, amount = 1n }) =>
          kind === 'erc20'
            ? call('move', [from, to, amount])
            : kind === 'erc721'
              ? call('move', [to, id])
              : call('move', [from, to, id, amount]),
      };
    },
    async setBalance(address, wei) {
      await publicClient.request({ method: 'hardhat_setBalance' as never, params: [address, toHex(wei)] as never });
    },
    async setEnsName(address, name, records = {}) {
      const { ensRegistry, publicResolver } = contracts;
      if (!ensRegistry || !publicResolver) throw new Error('this testchain was started without ENS');
      const dot = name.indexOf('.');
      const label = name.slice(0, dot);
      const parent = name.slice(dot + 1);
      const node = namehash(name);
      const reverseLabel = address.toLowerCase().slice(2);
      const reverseNode = namehash(`${reverseLabel}.addr.reverse`);
      const registry = (functionName: 'setSubnodeOwner' | 'setResolver', args: readonly unknown[]) =>
        send(ensRegistry, encodeFunctionData({ abi: ENS_REGISTRY_ABI, functionName, args } as never));
      const resolver = (functionName: 'setAddr' | 'setText' | 'setName', args: readonly unknown[]) =>
        send(publicResolver, encodeFunctionData({ abi: PUBLIC_RESOLVER_ABI, functionName, args } as never));
      await registry('setSubnodeOwner', [namehash(parent), labelhash(label), deployer.address]);
      await registry('setResolver', [node, publicResolver]);
      await resolver('setAddr', [node, address]);
      if (records.avatar !== undefined) await resolver('setText', [node, 'avatar', records.avatar]);
      if (records.email !== undefined) await resolver('setText', [node, 'email', records.email]);
      await registry('setSubnodeOwner', [namehash('addr.reverse'), labelhash(reverseLabel), deployer.address]);
      await registry('setResolver', [reverseNode, publicResolver]);
      await resolver('setName', [reverseNode, name]);
    },
    stop: () => node.stop(),
  };
}
