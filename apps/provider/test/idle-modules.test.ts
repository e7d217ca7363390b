/**
 * What `signet provider` loads with everything off, watched by a Node module hook: viem (and ox,
 * its encoders) only once an RPC node is configured, WebAuthn's library only once passkeys are
 * used, the Redis and PostgreSQL drivers only on their storage. An EOA's sign-in is checked
 * offline and loads none of them. Idle memory (docs/performance.md) follows from it: viem alone
 * is ~23 MB of RSS.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, pkceAuthorization, registerPublicClient, walletSignIn } from '@signet/testkit';
import * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'signet-idle-modules-'));
const hook = join(scratch, 'hook.mjs');
const register = join(scratch, 'register.mjs');
// The hook appends every module URL Node loads (ES modules, and the CommonJS ones imported from them).
writeFileSync(
  hook,
  `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.SIGNET_TEST_MODULES, url + '\\n');
  return next(url, context);
}
`,
);
writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${hook}`)});\n`);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Packages a deployment that has not turned them on must not load. */
const OFF = ['viem', 'ox', 'abitype', '@simplewebauthn/server', 'ioredis', 'pg', '@signet/siwb'];
const packagesIn = (urls: string[]) =>
  new Set(
    urls.flatMap((url) => {
      const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
      return match ? [match[1] as string] : [];
    }),
  );

/** Starts the built provider as `signet provider` does, with the hook; answers its URL and what it has loaded so far. */
async function startProvider(name: string, env: Record<string, string>) {
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const modules = join(scratch, `${name}.txt`);
  writeFileSync(modules, '');
  const child = spawn(process.execPath, ['--import', register, 'apps/provider/bin/signet.js', 'provider'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      ISSUER: url,
      STORAGE_URL: `sqlite:${join(scratch, `${name}.db`)}`,
      LOG_LEVEL: 'warn',
      SIGNET_TEST_MODULES: modules,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const deadline = Date.now() + 20_000;
  while (
    (await fetch(`${url}/health/ready`).then(
      (r) => r.status,
      () => 0,
    )) !== 200
  ) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the provider did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    loaded: () => packagesIn(readFileSync(modules, 'utf8').split('\n')),
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

describe('what the provider loads with everything off', () => {
  it('neither viem, WebAuthn nor another storage driver at start, nor at an EOA sign-in', async () => {
    const provider = await startProvider('off', {});
    try {
      // The hook works: the provider's own packages are seen.
      expect(provider.loaded().has('oidc-provider')).toBe(true);
      const before = [...provider.loaded()].filter((name) => OFF.includes(name));
      expect(before).toEqual([]);
      const client = await registerPublicClient(provider.url);
      const { url: authorizationUrl, verifier } = await pkceAuthorization(client, { scope: 'openid profile' });
      const signer = privateKeyToAccount(generatePrivateKey());
      const { callbackUrl } = await walletSignIn({ authorizationUrl, signer });
      const tokens = await oidc.authorizationCodeGrant(client, callbackUrl, { pkceCodeVerifier: verifier });
      expect(tokens.claims()?.preferred_username).toBe(signer.address);
      const after = [...provider.loaded()].filter((name) => OFF.includes(name));
      expect(after).toEqual([]);
    } finally {
      await provider.stop();
    }
  });

  it('loads viem once an RPC node is configured (the same hook sees it)', async () => {
    // Nothing listens on port 9: the node is never asked at start, only named.
    const provider = await startProvider('rpc', { ETH_RPC_URL: 'http://127.0.0.1:9' });
    try {
      expect(provider.loaded().has('viem')).toBe(true);
    } finally {
      await provider.stop();
    }
  });
});
