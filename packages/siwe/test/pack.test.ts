/**
 * @signet/siwe as a published package: `npm pack`, install the tarball with viem into a scratch
 * project (outside the monorepo), then use it from plain Node (no TypeScript loader, no export
 * conditions) and type-check a consumer against the shipped declarations.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestchain, type Testchain } from '@signet/testchain';
import { generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const VIEM_VERSION = (await import('viem/package.json', { with: { type: 'json' } })).default.version as string;
const scratch = mkdtempSync(join(tmpdir(), 'signet-siwe-pack-'));
const project = join(scratch, 'consumer');
let files: string[] = [];
let chain: Testchain;

const run = (command: string, args: string[], cwd: string, env: Record<string, string> = {}) =>
  execFileSync(command, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 120_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });

beforeAll(async () => {
  // npm test builds first; a lone run of this file builds the package itself.
  run(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'packages/siwe/tsconfig.build.json'],
    ROOT,
  );
  const [packed] = JSON.parse(run('npm', ['pack', '-w', '@signet/siwe', '--json', '--pack-destination', scratch], ROOT)) as {
    filename: string;
    files: { path: string }[];
  }[];
  files = (packed?.files ?? []).map((f) => f.path).sort();
  writeFileSync(join(scratch, 'package.json'), '{}');
  run('mkdir', ['-p', project], scratch);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  run(
    'npm',
    [
      'install',
      join(scratch, packed?.filename as string),
      `viem@${VIEM_VERSION}`,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
    ],
    project,
  );
  chain = await startTestchain({ chainId: 31337, ens: false });
}, 180_000);

afterAll(async () => {
  await chain?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('npm pack -w @signet/siwe', () => {
  it('ships built JavaScript, declarations, README and LICENSE; no tests, no sources', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/message-entry.js',
      ]),
    );
    expect(files.filter((f) => /\.test\.|^src\/|^test\/|\.tsbuildinfo$|\.map$/.test(f))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(project, 'node_modules', '@signet', 'siwe', 'package.json'), 'utf8'));
    expect(manifest.peerDependencies).toEqual({ viem: expect.any(String) });
    expect(manifest.dependencies).not.toHaveProperty('viem');
    expect(manifest.private).toBeUndefined();
  });

  it('works from plain Node: parse, validate, verify an EOA and an EIP-1271 signature on the local chain', async () => {
    const ownerKey = generatePrivateKey();
    const { privateKeyToAccount } = await import('viem/accounts');
    const wallet = await chain.deployWallet(privateKeyToAccount(ownerKey).address);
    writeFileSync(
      join(project, 'use.mjs'),
      `
import { createChainRegistry, createSiweMessage, generateNonce, parseSiweMessage, SiweError, validateSiweMessage, verifySiwe, verifySiweSignature } from '@signet/siwe';
import { parseSiweMessage as parseInBrowser } from '@signet/siwe/message';
import { privateKeyToAccount } from 'viem/accounts';
const owner = privateKeyToAccount(process.env.OWNER_KEY);
const nonce = generateNonce();
const fields = (address, chainId) => ({ domain: 'app.example', address, uri: 'https://app.example/login', version: '1', chainId, nonce, issuedAt: new Date() });
const eoaText = createSiweMessage(fields(owner.address, 1));
const parsed = parseSiweMessage(eoaText);
validateSiweMessage(parsed, { domain: 'app.example', nonce });
const eoa = await verifySiwe({ message: eoaText, signature: await owner.signMessage({ message: eoaText }), expect: { domain: 'app.example', nonce } });
const chains = createChainRegistry({ [Number(process.env.CHAIN_ID)]: process.env.RPC_URL }, { timeoutMs: 5000 });
const walletText = createSiweMessage(fields(process.env.WALLET, Number(process.env.CHAIN_ID)));
const contract = await verifySiweSignature({ message: walletText, signature: await owner.signMessage({ message: walletText }), client: chains });
let refused;
try { parseSiweMessage('not a message'); } catch (error) { refused = error instanceof SiweError ? error.type : String(error); }
console.log(JSON.stringify({ address: parsed.address, sameInBrowser: parseInBrowser(eoaText).nonce === nonce, eoa, contract, refused }));
`,
    );
    // Asynchronously: the chain answers from this process's event loop.
    const { stdout } = await promisify(execFile)(process.execPath, ['use.mjs'], {
      cwd: project,
      env: { ...process.env, OWNER_KEY: ownerKey, WALLET: wallet, CHAIN_ID: String(chain.chainId), RPC_URL: chain.url },
      timeout: 60_000,
    });
    const out = JSON.parse(stdout);
    const owner = privateKeyToAccount(ownerKey).address;
    expect(out).toEqual({
      address: owner,
      sameInBrowser: true,
      eoa: expect.objectContaining({ address: owner, chainId: 1, method: 'eoa' }),
      contract: expect.objectContaining({ address: wallet, chainId: chain.chainId, method: 'eip1271' }),
      refused: 'UNABLE_TO_PARSE',
    });
  });

  it('type-checks a consumer against the shipped declarations', () => {
    writeFileSync(
      join(project, 'consumer.ts'),
      `
import { parseSiweMessage, SiweError, type SiweErrorType, verifySiwe } from '@signet/siwe';
export async function check(message: string, signature: string): Promise<string> {
  const fields = parseSiweMessage(message);
  const domain: string = fields.domain;
  try {
    const { address, method } = await verifySiwe({ message, signature, expect: { domain } });
    return \`\${address} \${method}\`;
  } catch (error) {
    const type: SiweErrorType | undefined = error instanceof SiweError ? error.type : undefined;
    return type ?? 'unknown';
  }
}
// @ts-expect-error verifySiwe needs a signature
verifySiwe({ message: '' });
`,
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const args = [
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--skipLibCheck',
      'consumer.ts',
    ];
    expect(() => run(process.execPath, [tsc, ...args], project)).not.toThrow();
  });
});
