/**
 * @signet/siws as a published package: `npm pack` it and @signet/siwe (which it imports the
 * shared grammar and checks from), install both tarballs into a scratch project (outside the
 * monorepo), then use it from plain Node (no TypeScript loader, no export conditions) and
 * type-check a consumer against the shipped declarations.
 */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const VIEM_VERSION = (await import('viem/package.json', { with: { type: 'json' } })).default.version as string;
const scratch = mkdtempSync(join(tmpdir(), 'signet-siws-pack-'));
const project = join(scratch, 'consumer');
let files: string[] = [];

const run = (command: string, args: string[], cwd: string, env: Record<string, string> = {}) =>
  execFileSync(command, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 120_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });

type Packed = { filename: string; files: { path: string }[] };
const pack = (workspace: string) =>
  (JSON.parse(run('npm', ['pack', '-w', workspace, '--json', '--pack-destination', scratch], ROOT)) as Packed[])[0] as Packed;

beforeAll(() => {
  // npm test builds first; a lone run of this file builds the packages itself.
  run(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'packages/siws/tsconfig.build.json'],
    ROOT,
  );
  const siwe = pack('@signet/siwe');
  const siws = pack('@signet/siws');
  files = siws.files.map((f) => f.path).sort();
  writeFileSync(join(scratch, 'package.json'), '{}');
  run('mkdir', ['-p', project], scratch);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  // viem is named so npm takes the version already in its cache (it is @signet/siwe's peer).
  run(
    'npm',
    [
      'install',
      join(scratch, siwe.filename),
      join(scratch, siws.filename),
      `viem@${VIEM_VERSION}`,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
    ],
    project,
  );
}, 180_000);

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

describe('npm pack -w @signet/siws', () => {
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
    const manifest = JSON.parse(readFileSync(join(project, 'node_modules', '@signet', 'siws', 'package.json'), 'utf8'));
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['@noble/curves', '@scure/base', '@signet/siwe']);
    expect(manifest.private).toBeUndefined();
  });

  it('works from plain Node: create, parse, validate and verify a signature made by Node’s own Ed25519', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    writeFileSync(
      join(project, 'use.mjs'),
      `
import { createPrivateKey, createPublicKey, sign } from 'node:crypto';
import { base58, base64urlnopad } from '@scure/base';
import { createSiwsMessage, parseSiwsMessage, SiwsError, SignInError, validateSiwsMessage, verifySiws } from '@signet/siws';
import { parseSiwsMessage as parseInBrowser } from '@signet/siws/message';
const key = createPrivateKey({ key: process.env.KEY, format: 'pem' });
const address = base58.encode(base64urlnopad.decode(createPublicKey(key).export({ format: 'jwk' }).x));
const fields = { domain: 'app.example', address, uri: 'https://app.example/login', version: '1', chainId: 'devnet', nonce: 'abcdefgh1234', issuedAt: new Date() };
const text = createSiwsMessage(fields);
const parsed = parseSiwsMessage(text);
validateSiwsMessage(parsed, { domain: 'app.example', nonce: 'abcdefgh1234', networks: ['devnet'] });
const signature = base58.encode(sign(null, Buffer.from(text), key));
const verified = verifySiws({ message: text, signature, expect: { domain: 'app.example', nonce: 'abcdefgh1234', networks: ['devnet'] } });
let refused;
try { verifySiws({ message: text, signature, expect: { networks: ['mainnet'] } }); } catch (error) { refused = error instanceof SiwsError && error instanceof SignInError ? error.type : String(error); }
console.log(JSON.stringify({ verified, sameInBrowser: parseInBrowser(text).address === address, refused }));
`,
    );
    const out = JSON.parse(
      run(process.execPath, ['use.mjs'], project, { KEY: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string }),
    );
    const address = out.verified.address as string;
    expect(publicKey.export({ format: 'jwk' }).x).toBe(Buffer.from(decodeBase58(address)).toString('base64url'));
    expect(out).toEqual({
      verified: expect.objectContaining({
        network: 'devnet',
        accountId: `solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1:${address}`,
        method: 'ed25519',
      }),
      sameInBrowser: true,
      refused: 'CHAIN_NOT_ALLOWED',
    });
  });

  it('type-checks a consumer against the shipped declarations', () => {
    writeFileSync(
      join(project, 'consumer.ts'),
      `
import { parseSiwsMessage, SiwsError, type SiwsErrorType, type SolanaNetwork, verifySiws } from '@signet/siws';
export function check(message: string, signature: string, networks: SolanaNetwork[]): string {
  const fields = parseSiwsMessage(message);
  const domain: string = fields.domain;
  try {
    const { address, accountId } = verifySiws({ message, signature, expect: { domain, networks } });
    return \`\${address} \${accountId ?? ''}\`;
  } catch (error) {
    const type: SiwsErrorType | undefined = error instanceof SiwsError ? error.type : undefined;
    return type ?? 'unknown';
  }
}
// @ts-expect-error verifySiws needs a signature
verifySiws({ message: '' });
// @ts-expect-error only mainnet, devnet and testnet are networks
check('', '', ['localnet']);
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

/** base58 → bytes, independent of the package under test. */
function decodeBase58(text: string): Uint8Array {
  const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  let value = 0n;
  for (const char of text) value = value * 58n + BigInt(alphabet.indexOf(char));
  const bytes: number[] = [];
  while (value > 0n) {
    bytes.unshift(Number(value & 0xffn));
    value >>= 8n;
  }
  const zeros = text.length - text.replace(/^1+/, '').length;
  return Uint8Array.from([...new Array(zeros).fill(0), ...bytes]);
}
