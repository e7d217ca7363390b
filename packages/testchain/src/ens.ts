/**
 * ENS on the local chain, laid out as on mainnet: the real `ENSRegistry` and `PublicResolver`
 * (ENS's npm artifacts), a Universal Resolver at mainnet's canonical address, and the reverse
 * resolvers of ENSIP-19 — `addr.reverse` (coin type 60) and `default.reverse` (the default
 * name of every EVM chain), plus one per EVM chain's coin type on demand — each falling back
 * to the default name, as mainnet's do. Off-chain (EIP-3668) resolvers for names answered by a
 * gateway (see gateway.ts) are deployed on demand.
 */
import { type Account, type Address, encodeFunctionData, type Hex, labelhash, namehash, pad } from 'viem';
import { mainnet } from 'viem/chains';
import { type Artifact, type Artifacts, ensArtifacts } from './compile.ts';

/** Where viem looks for the ENS Universal Resolver on chain 1. */
export const CANONICAL_UNIVERSAL_RESOLVER = mainnet.contracts.ensUniversalResolver.address;

/** ENSIP-11: the coin type of an EVM chain (60 for Ethereum mainnet). */
export const coinTypeOf = (chainId: number): number => (chainId === 1 ? 60 : (0x80000000 | chainId) >>> 0);

/** ENSIP-19: the coin type of the default EVM name and address (`default.reverse`). */
export const DEFAULT_COIN_TYPE = 0x80000000;

export type EnsRecords = {
  /** `addr(node)`: the Ethereum (coin type 60) address. */
  address?: Address;
  /** `addr(node, coinType)` for other coin types: an EVM chain's, or DEFAULT_COIN_TYPE. */
  addresses?: Record<number, Address>;
  /** Text records (`avatar`, `email`, …). */
  texts?: Record<string, string>;
};

export type Ens = {
  registry: Address;
  publicResolver: Address;
  universalResolver: Address;
  /** Forward records for `name` on the public resolver (the name and its parents are created). */
  setRecords(name: string, records: EnsRecords): Promise<void>;
  /**
   * The reverse record of `address` for a coin type: 60 (default) is `[addr].addr.reverse` in
   * the registry, as a mainnet primary name; DEFAULT_COIN_TYPE the default name of every EVM
   * chain; an EVM chain's coin type the name for that chain only. Forward records are separate.
   */
  setPrimaryName(address: Address, name: string, coinType?: number): Promise<void>;
  /** Makes an off-chain (EIP-3668) resolver answer `name` and its subnames through `urls`. */
  useOffchainResolver(name: string, options: { urls: string[]; signer: Address; endless?: boolean }): Promise<Address>;
};

const REGISTRY_ABI = [
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
      { name: 'coinType', type: 'uint256' },
      { name: 'a', type: 'bytes' },
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

const REVERSE_RESOLVER_ABI = [
  {
    type: 'function',
    name: 'setNameForAddr',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'account', type: 'address' },
      { name: 'name', type: 'string' },
    ],
    outputs: [],
  },
] as const;

export type EnsDeployContext = {
  artifacts: Artifacts;
  deployer: Account;
  deploy(artifact: Artifact, args?: readonly unknown[]): Promise<Address>;
  send(to: Address, data: Hex): Promise<void>;
  /** Copies a deployed contract's code to a well-known address. */
  placeAt(target: Address, deployed: Address): Promise<void>;
};

export async function deployEns(ctx: EnsDeployContext): Promise<Ens> {
  const { artifacts, deployer, deploy, send } = ctx;
  const ens = ensArtifacts();
  const registry = await deploy(ens.registry);
  const publicResolver = await deploy(ens.publicResolver, [registry]);
  // The Universal Resolver sits where viem expects it on mainnet, so a provider configured
  // with nothing but this node's URL resolves names exactly as in production.
  await ctx.placeAt(CANONICAL_UNIVERSAL_RESOLVER, await deploy(artifacts.UniversalResolver as Artifact, [registry]));

  const registryCall = (functionName: 'setSubnodeOwner' | 'setResolver', args: readonly unknown[]) =>
    send(registry, encodeFunctionData({ abi: REGISTRY_ABI, functionName, args } as never));
  const resolverCall = (functionName: 'setAddr' | 'setText' | 'setName', args: readonly unknown[]) =>
    send(publicResolver, encodeFunctionData({ abi: PUBLIC_RESOLVER_ABI, functionName, args } as never));

  /** Creates `name` and its parents in the registry (all owned by the deployer). */
  const created = new Set<string>(['']);
  const ensureNode = async (name: string) => {
    if (created.has(name)) return;
    const dot = name.indexOf('.');
    const label = dot === -1 ? name : name.slice(0, dot);
    const parent = dot === -1 ? '' : name.slice(dot + 1);
    await ensureNode(parent);
    await registryCall('setSubnodeOwner', [parent === '' ? pad('0x0') : namehash(parent), labelhash(label), deployer.address]);
    created.add(name);
  };
  const setResolver = async (name: string, resolver: Address) => {
    await ensureNode(name);
    await registryCall('setResolver', [namehash(name), resolver]);
  };

  // ENSIP-19's reverse resolvers: default.reverse, and addr.reverse falling back to it (an
  // address's own `[addr].addr.reverse` record, set by setPrimaryName, is found first).
  const reverseArtifact = artifacts.ReverseResolver as Artifact;
  const defaultNames = await deploy(reverseArtifact, [BigInt(DEFAULT_COIN_TYPE), '0x0000000000000000000000000000000000000000']);
  await setResolver('default.reverse', defaultNames);
  const reverseResolvers = new Map<number, Address>([[DEFAULT_COIN_TYPE, defaultNames]]);
  const reverseResolverFor = async (coinType: number) => {
    let resolver = reverseResolvers.get(coinType);
    if (!resolver) {
      resolver = await deploy(reverseArtifact, [BigInt(coinType), defaultNames]);
      await setResolver(coinType === 60 ? 'addr.reverse' : `${coinType.toString(16)}.reverse`, resolver);
      reverseResolvers.set(coinType, resolver);
    }
    return resolver;
  };
  await reverseResolverFor(60);

  return {
    registry,
    publicResolver,
    universalResolver: CANONICAL_UNIVERSAL_RESOLVER,
    async setRecords(name, records) {
      await setResolver(name, publicResolver);
      const node = namehash(name);
      if (records.address) await resolverCall('setAddr', [node, 60n, records.address]);
      for (const [coinType, address] of Object.entries(records.addresses ?? {})) {
        await resolverCall('setAddr', [node, BigInt(coinType), address]);
      }
      for (const [key, value] of Object.entries(records.texts ?? {})) await resolverCall('setText', [node, key, value]);
    },
    async setPrimaryName(address, name, coinType = 60) {
      if (coinType === 60) {
        const reverseName = `${address.toLowerCase().slice(2)}.addr.reverse`;
        await setResolver(reverseName, publicResolver);
        await resolverCall('setName', [namehash(reverseName), name]);
        return;
      }
      const resolver = await reverseResolverFor(coinType);
      await send(
        resolver,
        encodeFunctionData({ abi: REVERSE_RESOLVER_ABI, functionName: 'setNameForAddr', args: [address, name] }),
      );
    },
    async useOffchainResolver(name, { urls, signer, endless = false }) {
      const resolver = await deploy(artifacts.OffchainResolver as Artifact, [urls, signer, endless]);
      await setResolver(name, resolver);
      return resolver;
    },
  };
}
