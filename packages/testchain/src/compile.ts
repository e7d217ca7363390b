/**
 * Compiles the test contracts with solc-js (the `solc` npm package: the compiler as
 * WebAssembly, nothing downloaded). Output is cached on disk keyed by the sources and the
 * compiler version, so only the first run pays the ~3 s compile. Two units: the contracts
 * every chain deploys at start (`contracts/*.sol`), and the real third-party wallets, compiled
 * only when a test asks for them (`contracts/wallets/*.sol`, importing OpenZeppelin Contracts
 * from npm).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Abi, Hex } from 'viem';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const contractsDir = join(here, '..', 'contracts');
const cacheDir = join(here, '..', 'node_modules', '.cache', 'signet-testchain');

export type Artifact = { abi: Abi; bytecode: Hex };
export type Artifacts = Record<string, Artifact>;

type SolcOutput = {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
};

export function compileContracts(): Artifacts {
  // paris: runs on every node version and hardfork the tests use.
  return compile(contractsDir, 'paris');
}

/**
 * The wallet contracts: OpenZeppelin Contracts 5.x accounts (ERC-7739, EIP-7702), the ERC-6492
 * verifier a chain can have deployed, hostile contracts. Compiled for Prague (OpenZeppelin 5.x
 * uses Cancun opcodes), which is what the local node runs.
 */
export function compileWallets(): Artifacts {
  return compile(join(contractsDir, 'wallets'), 'prague');
}

/** Resolves `@openzeppelin/contracts/...` imports from this package's dependencies. */
function findImport(path: string): { contents: string } | { error: string } {
  try {
    return { contents: readFileSync(require.resolve(path), 'utf8') };
  } catch {
    return { error: `not found: ${path}` };
  }
}

function compile(dir: string, evmVersion: 'paris' | 'prague'): Artifacts {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.sol'))
    .sort();
  const sources = Object.fromEntries(files.map((file) => [file, { content: readFileSync(join(dir, file), 'utf8') }]));
  const solcVersion: string = require('solc/package.json').version;
  const ozVersion: string = evmVersion === 'paris' ? '' : require('@openzeppelin/contracts/package.json').version;
  const key = createHash('sha256')
    .update(solcVersion)
    .update(ozVersion)
    .update(evmVersion)
    .update(JSON.stringify(sources))
    .digest('hex')
    .slice(0, 16);
  const cacheFile = join(cacheDir, `${key}.json`);
  try {
    return JSON.parse(readFileSync(cacheFile, 'utf8')) as Artifacts;
  } catch {
    // not cached yet
  }

  const solc = require('solc') as {
    compile(input: string, options?: { import: (path: string) => { contents: string } | { error: string } }): string;
  };
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      evmVersion,
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport })) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  }
  const artifacts: Artifacts = {};
  for (const file of Object.values(output.contracts)) {
    for (const [name, contract] of Object.entries(file)) {
      artifacts[name] = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
    }
  }
  mkdirSync(cacheDir, { recursive: true });
  const tmp = `${cacheFile}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(artifacts));
  renameSync(tmp, cacheFile);
  return artifacts;
}

/** Prebuilt artifacts of the real ENS contracts, as published by ENS on npm. */
export function ensArtifacts(): { registry: Artifact; publicResolver: Artifact } {
  const load = (path: string): Artifact => {
    const json = require(path) as { abi: Abi; bytecode: Hex };
    return { abi: json.abi, bytecode: json.bytecode };
  };
  return {
    registry: load('@ensdomains/ens/build/contracts/ENSRegistry.json'),
    publicResolver: load('@ensdomains/resolver/build/contracts/PublicResolver.json'),
  };
}
