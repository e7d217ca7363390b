/**
 * @signet/siwb as a published package: `npm pack` it and @signet/siwe (which it imports the
 * shared grammar and checks from), install both tarballs into a scratch project (outside the
 * monorepo), then use it from plain Node (no TypeScript loader, no export conditions) and
 * type-check a consumer against the shipped declarations.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const VIEM_VERSION = (await import('viem/package.json', { with: { type: 'json' } })).default.version as string;
const scratch = mkdtempSync(join(tmpdir(), 'signet-siwb-pack-'));
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
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'packages/siwb/tsconfig.build.json'],
    ROOT,
  );
  const siwe = pack('@signet/siwe');
  const siwb = pack('@signet/siwb');
  files = siwb.files.map((f) => f.path).sort();
  writeFileSync(join(scratch, 'package.json'), '{}');
  run('mkdir', ['-p', project], scratch);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  // viem is named so npm takes the version already in its cache (it is @signet/siwe's peer).
  run(
    'npm',
    [
      'install',
      join(scratch, siwe.filename),
      join(scratch, siwb.filename),
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

describe('npm pack -w @signet/siwb', () => {
  it('ships built JavaScript, declarations, README and LICENSE; no tests, no test signer, no sources', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/message-entry.js',
        'dist/message-entry.d.ts',
        'dist/verifyBitcoinSignature.js',
      ]),
    );
    expect(files.filter((f) => /\.test\.|testkit|^src\/|^test\/|\.tsbuildinfo$|\.map$/.test(f))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(project, 'node_modules', '@signet', 'siwb', 'package.json'), 'utf8'));
    expect(Object.keys(manifest.dependencies).sort()).toEqual([
      '@noble/curves',
      '@noble/hashes',
      '@scure/base',
      '@scure/btc-signer',
      '@signet/siwe',
    ]);
    expect(manifest.private).toBeUndefined();
  });

  it('works from plain Node: create, parse, validate, verify BIP-137 and BIP-322 (the BIP’s own vector), refuse with a type', () => {
    writeFileSync(
      join(project, 'use.mjs'),
      `
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { p2pkh, WIF } from '@scure/btc-signer';
import { base64 } from '@scure/base';
import { bip137MessageHash, createSiwbMessage, parseSiwbMessage, SiwbError, SignInError, verifyBitcoinSignature, verifySiwb } from '@signet/siwb';
import { parseSiwbMessage as parseInBrowser, BITCOIN_CHAIN_REFERENCES } from '@signet/siwb/message';
const key = WIF().decode('L3VFeEujGtevx9w18HD1fhRbCH67Az2dpCymeRE1SoPK6XQtaN2k');
const address = p2pkh(secp256k1.getPublicKey(key, true)).address;
const text = createSiwbMessage({ domain: 'app.example', address, uri: 'https://app.example/login', chainId: BITCOIN_CHAIN_REFERENCES.mainnet, nonce: 'abcdefgh1234', issuedAt: new Date() });
const recovered = secp256k1.sign(bip137MessageHash(text), key, { prehash: false, format: 'recovered' });
const signature = base64.encode(Uint8Array.from([31 + recovered[0], ...recovered.subarray(1)]));
const verified = verifySiwb({ message: text, signature, expect: { domain: 'app.example', nonce: 'abcdefgh1234', networks: ['mainnet'] } });
const vector = verifyBitcoinSignature('bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l', 'Hello World', 'AkcwRAIgZRfIY3p7/DoVTty6YZbWS71bc5Vct9p9Fia83eRmw2QCICK/ENGfwLtptFluMGs2KsqoNSk89pO7F29zJLUx9a/sASECx/EgAxlkQpQ9hYjgGu6EBCPMVPwVIVJqO4XCsMvViHI=');
let refused;
try { verifySiwb({ message: text, signature, expect: { networks: ['signet'] } }); } catch (error) { refused = error instanceof SiwbError && error instanceof SignInError ? error.type : String(error); }
console.log(JSON.stringify({ verified, vector, sameInBrowser: parseInBrowser(text).address === parseSiwbMessage(text).address, refused }));
`,
    );
    const out = JSON.parse(run(process.execPath, ['use.mjs'], project));
    expect(out).toEqual({
      verified: expect.objectContaining({
        address: '14vV3aCHBeStb5bkenkNHbe2YAFinYdXgc',
        network: 'mainnet',
        accountId: 'bip122:000000000019d6689c085ae165831e93:14vV3aCHBeStb5bkenkNHbe2YAFinYdXgc',
        addressType: 'p2pkh',
        method: 'bip137',
      }),
      vector: { addressType: 'p2wpkh', method: 'bip322-simple' },
      sameInBrowser: true,
      refused: 'CHAIN_NOT_ALLOWED',
    });
  });

  it('type-checks a consumer against the shipped declarations', () => {
    writeFileSync(
      join(project, 'consumer.ts'),
      `
import { type BitcoinNetwork, parseSiwbMessage, SiwbError, type SiwbErrorType, verifySiwb } from '@signet/siwb';
import { createSiwbMessage } from '@signet/siwb/message';
export function check(message: string, signature: string, networks: BitcoinNetwork[]): string {
  const fields = parseSiwbMessage(message);
  const domain: string = fields.domain;
  try {
    const { address, accountId, addressType } = verifySiwb({ message, signature, expect: { domain, networks } });
    return \`\${address} \${accountId} \${addressType}\`;
  } catch (error) {
    const type: SiwbErrorType | undefined = error instanceof SiwbError ? error.type : undefined;
    return type ?? 'unknown';
  }
}
export const text: string = createSiwbMessage(parseSiwbMessage(''));
// @ts-expect-error verifySiwb needs a signature
verifySiwb({ message: '' });
// @ts-expect-error only mainnet, testnet, testnet4 and signet are networks
check('', '', ['regtest']);
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
