/**
 * The production install and the container recipe, as far as this machine can run them: no
 * container engine runs here, so the Dockerfile's build step (scripts/runtime-tree.sh) runs in a
 * scratch directory, and the provider is started from the result exactly as the image's
 * ENTRYPOINT does, signed in against, and stopped with SIGTERM.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SETTING_NAMES } from '@signet/provider';
import {
  bitcoinKey,
  bitcoinSignIn,
  pkceAuthorization,
  registerPublicClient,
  solanaKeypair,
  solanaSignIn,
  walletSignIn,
} from '@signet/testkit';
import * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEMI_SPACE_MB } from '../apps/provider/src/runtime/heap.ts';
import { freePort } from './processes.ts';

const ROOT = join(import.meta.dirname, '..');
// Beside the checkout, so node_modules can be hard-linked (same filesystem) instead of copied.
const scratch = mkdtempSync(join(ROOT, '..', '.signet-runtime-'));
const tree = join(scratch, 'app');
let size = '';

beforeAll(() => {
  const out = execFileSync(join(ROOT, 'scripts', 'runtime-tree.sh'), [tree], { encoding: 'utf8', timeout: 120_000 });
  size = /runtime-tree: (\S+)/.exec(out)?.[1] ?? '';
  console.log(`production tree: ${size}`);
}, 150_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('production install (scripts/runtime-tree.sh)', () => {
  it('holds the built provider and production dependencies only', () => {
    const modules = readdirSync(join(tree, 'node_modules'));
    for (const testOnly of [
      '@nomicfoundation',
      'solc',
      '@ensdomains',
      'typescript',
      'vitest',
      'vite',
      'tsx',
      'playwright-core',
      'fast-check',
      '@biomejs',
    ]) {
      expect({ testOnly, present: modules.includes(testOnly) }).toEqual({ testOnly, present: false });
    }
    // openid-client: `@signet/provider/login` (signet login) is a client of the provider.
    for (const needed of [
      'oidc-provider',
      'viem',
      'better-sqlite3',
      'ioredis',
      'pg',
      'pino',
      'koa',
      '@noble',
      '@scure',
      'openid-client',
    ]) {
      expect({ needed, present: modules.includes(needed) }).toEqual({ needed, present: true });
    }
    expect(readdirSync(join(tree, 'node_modules', '@signet')).sort()).toEqual([
      'provider',
      'ratelimit',
      'settings',
      'siwb',
      'siwe',
      'siws',
    ]);
    // JavaScript only: no TypeScript sources, no tests.
    expect(existsSync(join(tree, 'apps', 'provider', 'src'))).toBe(false);
    expect(existsSync(join(tree, 'apps', 'provider', 'test'))).toBe(false);
    const files = execFileSync('find', [join(tree, 'apps'), join(tree, 'packages'), '-name', '*.test.*'], { encoding: 'utf8' });
    expect(files).toBe('');
    expect(existsSync(join(tree, 'apps', 'provider', 'web', 'dist'))).toBe(true);
    expect(size).toMatch(/^\d+(\.\d+)?M$/);
    expect(Number.parseFloat(size)).toBeLessThan(250);
  });

  it('starts as the image does, signs in over HTTP, and stops on SIGTERM with exit 0', async () => {
    const port = await freePort();
    const url = `http://localhost:${port}`;
    const child = spawn(process.execPath, ['apps/provider/bin/signet.js', 'provider'], {
      cwd: tree,
      env: {
        PATH: process.env.PATH ?? '',
        PORT: String(port),
        HOST: '127.0.0.1',
        ISSUER: url,
        STORAGE_URL: `sqlite:${join(scratch, 'data', 'signet.db')}`,
        LOG_LEVEL: 'warn',
        SOLANA_NETWORKS: 'mainnet',
        BITCOIN_NETWORKS: 'mainnet',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const deadline = Date.now() + 20_000;
      let healthy = false;
      while (!healthy && Date.now() < deadline) {
        healthy = await fetch(`${url}/health`).then(
          (r) => r.ok,
          () => false,
        );
        if (!healthy) await new Promise((r) => setTimeout(r, 100));
      }
      expect(healthy, stderr).toBe(true);
      // Where Node can replace a process (22.15+, 24), `signet provider` started itself again, in
      // the same process, with its young generation bounded (SQLite, the image's storage: 8 MB).
      const commandLine = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
      expect({ node: process.version, bounded: commandLine.includes(`--max-semi-space-size=${SEMI_SPACE_MB.sqlite}`) }).toEqual({
        node: process.version,
        bounded: typeof (process as { execve?: unknown }).execve === 'function',
      });
      const client = await registerPublicClient(url);
      const { url: authorizationUrl, verifier } = await pkceAuthorization(client, { scope: 'openid profile' });
      const signer = privateKeyToAccount(generatePrivateKey());
      const { callbackUrl } = await walletSignIn({ authorizationUrl, signer });
      const tokens = await oidc.authorizationCodeGrant(client, callbackUrl, { pkceCodeVerifier: verifier });
      expect(tokens.claims()?.preferred_username).toBe(signer.address);
      // Sign in with Solana from the built tree too (@signet/siws's JavaScript, Node's Ed25519).
      const keypair = solanaKeypair();
      const solana = await pkceAuthorization(client, { scope: 'openid' });
      const { callbackUrl: solanaCallback } = await solanaSignIn({ authorizationUrl: solana.url, keypair });
      const solanaTokens = await oidc.authorizationCodeGrant(client, solanaCallback, { pkceCodeVerifier: solana.verifier });
      expect(solanaTokens.claims()?.sub).toBe(`solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:${keypair.address}`);
      // And with Bitcoin (@signet/siwb's JavaScript, @scure/btc-signer and @noble/curves from the pruned tree).
      const bitcoin = await pkceAuthorization(client, { scope: 'openid' });
      const { callbackUrl: bitcoinCallback, address } = await bitcoinSignIn({
        authorizationUrl: bitcoin.url,
        key: bitcoinKey(),
        type: 'p2tr',
      });
      const bitcoinTokens = await oidc.authorizationCodeGrant(client, bitcoinCallback, { pkceCodeVerifier: bitcoin.verifier });
      expect(bitcoinTokens.claims()?.sub).toBe(`bip122:000000000019d6689c085ae165831e93:${address}`);
      const page = await (await fetch(`${url}/.well-known/openid-configuration`)).json();
      expect(page.issuer).toBe(url);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});

describe('deploy files', () => {
  it(".env.example and docs/configuration.md (README's settings page) list every setting the provider reads", () => {
    const example = readFileSync(join(ROOT, '.env.example'), 'utf8');
    const listed = [...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]);
    expect(new Set(listed)).toEqual(new Set(SETTING_NAMES));
    // The first cell of a row of the settings table (docs/configuration.md, linked from README) names it.
    const firstCells = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .map((line) => line.split('|')[1] ?? '');
    for (const name of SETTING_NAMES) {
      expect({ name, documented: firstCells.some((cell) => cell.includes(`\`${name}\``)) }).toEqual({ name, documented: true });
    }
  });

  it('the Dockerfile builds with the tested script and runs the server as PID 1, unprivileged, health-checked', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/scripts\/runtime-tree\.sh \/out/);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n?.*\/health/m);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["node", "apps\/provider\/bin\/signet\.js"\]$/m);
    // `signet provider` bounds the young generation itself: the image leaves NODE_OPTIONS to the operator.
    expect(dockerfile).not.toMatch(/^\s+NODE_OPTIONS=/m);
    const compose = readFileSync(join(ROOT, 'compose.yaml'), 'utf8');
    expect(compose).toMatch(/TRUST_PROXY: "true"/);
    expect(compose).toMatch(/STORAGE_URL: redis:\/\/redis:6379/);
    expect(compose).toMatch(/replicas: 2/);
  });
});
