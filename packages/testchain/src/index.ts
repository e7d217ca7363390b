/**
 * A real local chain for tests: an EDR node over HTTP, with the contracts Signet's
 * verification and ENS lookups meet on mainnet deployed on it.
 *
 *  - `OwnedWallet`: an EIP-1271 contract wallet whose owner key signs for it.
 *  - `WalletFactory`: CREATE2 factory, for EIP-6492 counterfactual (not yet deployed) wallets.
 *  - ENS (ens.ts): the real `ENSRegistry` and `PublicResolver` (ENS's npm artifacts), a Universal
 *    Resolver at mainnet's canonical address (ENSIP-10 wildcards, ENSIP-19 primary names per
 *    coin type, EIP-3668 through the caller's batch gateway) and the reverse resolvers of
 *    `addr.reverse`, `default.reverse` and an EVM chain's coin type, so viem's `getEnsName` /
 *    `getEnsText` work against this chain exactly as against mainnet; off-chain resolvers
 *    answered by a real gateway (gateway.ts) on demand.
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
  type PublicClient,
  pad,
  serializeErc6492Signature,
  toHex,
  type WalletClient,
} from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { type Artifact, compileContracts } from './compile.ts';
import { CANONICAL_UNIVERSAL_RESOLVER, deployEns, type Ens } from './ens.ts';
import { DEV_KEYS, startNode } from './node.ts';
import type { Testchain, TestchainOptions } from './types.ts';

export {
  CANONICAL_UNIVERSAL_RESOLVER,
  coinTypeOf,
  DEFAULT_COIN_TYPE,
  type EnsRecords,
} from './ens.ts';
export { dnsDecode, type EnsGateway, type GatewayRecord, startEnsGateway } from './gateway.ts';
export { DEV_KEYS, type RecordedRequest, type RunningNode, startNode } from './node.ts';
export { type RpcCall, type RpcProxy, type RpcProxyOptions, startRpcProxy } from './proxy.ts';
export type { CounterfactualWallet, Testchain, TestchainOptions, TestToken, TokenKind } from './types.ts';
export {
  ERC1271_ANSWER_SHAPES,
  type Erc1271AnswerShape,
  encodeSafeSignatures,
  type RealWallets,
  realWallets,
  type SafeSignaturePart,
} from './wallets.ts';

/** Multicall3's address on mainnet and most chains (and on this one). */
export const MULTICALL3_ADDRESS: Address = '0xcA11bde05977b3631167028862bE2a173976CA11';

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

/** A token contract of the kind asked, deployed, with mint and move helpers (the access-condition tests' fixtures). */
async function deployToken(
  kind: Parameters<Testchain['deployToken']>[0],
  artifacts: Record<string, Artifact>,
  deployArtifact: (artifact: Artifact) => Promise<Address>,
  send: (to: Address, data: Hex) => Promise<void>,
): ReturnType<Testchain['deployToken']> {
  const artifact = artifacts[{ erc20: 'TestERC20', erc721: 'TestERC721', erc1155: 'TestERC1155' }[kind]] as Artifact;
  const address = await deployArtifact(artifact);
  const call = (functionName: string, args: readonly unknown[]) =>
    send(address, encodeFunctionData({ abi: artifact.abi, functionName, args } as never));
  return {
    kind,
    address,
    mint: (to, { id = 0n, amount = 1n }) =>
      kind === 'erc20' ? call('mint', [to, amount]) : kind === 'erc721' ? call('mint', [to, id]) : call('mint', [to, id, amount]),
    move: (from, to, { id = 0n, amount = 1n }) =>
      kind === 'erc20'
        ? call('move', [from, to, amount])
        : kind === 'erc721'
          ? call('move', [to, id])
          : call('move', [from, to, id, amount]),
  };
}

/** ENS deployed on the chain: registry, resolvers, the universal resolver where mainnet has it. */
function ensOnChain(
  artifacts: Record<string, Artifact>,
  deployer: PrivateKeyAccount,
  chain: {
    walletClient: Parameters<typeof deploy>[0];
    publicClient: Parameters<typeof deploy>[1];
    send: (to: Address, data: Hex) => Promise<void>;
    placeAt: (target: Address, deployed: Address) => Promise<void>;
  },
): Promise<Ens> {
  return deployEns({
    artifacts,
    deployer,
    deploy: (artifact, args = []) => deploy(chain.walletClient, chain.publicClient, deployer, artifact, args),
    send: chain.send,
    placeAt: chain.placeAt,
  });
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

  const ens = withEns ? await ensOnChain(artifacts, deployer, { walletClient, publicClient, send, placeAt }) : undefined;
  if (ens) {
    Object.assign(contracts, {
      ensRegistry: ens.registry,
      publicResolver: ens.publicResolver,
      universalResolver: ens.universalResolver,
    });
    chain = defineChain({ ...baseChain, contracts: { ensUniversalResolver: { address: CANONICAL_UNIVERSAL_RESOLVER } } });
  }
  const requireEns = () => {
    if (!ens) throw new Error('this testchain was started without ENS');
    return ens;
  };

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
    deployToken: (kind) =>
      deployToken(kind, artifacts, (artifact) => deploy(walletClient, publicClient, deployer, artifact), send),
    async setBalance(address, wei) {
      await publicClient.request({ method: 'hardhat_setBalance' as never, params: [address, toHex(wei)] as never });
    },
    async setEnsName(address, name, records = {}) {
      const texts = { ...records.texts, ...(records.avatar === undefined ? {} : { avatar: records.avatar }) };
      await requireEns().setRecords(name, { address, texts });
      await requireEns().setPrimaryName(address, name);
    },
    setEnsRecords: (name, records) => requireEns().setRecords(name, records),
    setPrimaryName: (address, name, coinType) => requireEns().setPrimaryName(address, name, coinType),
    useOffchainResolver: (name, options) => requireEns().useOffchainResolver(name, options),
    stop: () => node.stop(),
  };
}
