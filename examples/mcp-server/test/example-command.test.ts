/**
 * `npm run example:mcp`, exactly as README says, as a real process (the built JavaScript; npm test
 * builds first, a lone run of this file builds application C itself): it serves the metadata
 * document and whoami, stops on SIGTERM with exit code 0, and a bad setting stops the start naming
 * it. The testkit's stand-in issuer stands in for Signet (e2e/mcp.test.ts signs in through the
 * real provider).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type StandInIssuer, startStandInIssuer } from '@signet/testkit/issuer';
import { freePort } from '@signet/testkit/ports';
import { waitFor } from '@signet/testkit/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');
let issuer: StandInIssuer;

function start(env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn('npm', ['run', 'example:mcp'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

beforeAll(async () => {
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'examples/mcp-server/tsconfig.build.json'],
    {
      cwd: ROOT,
      stdio: 'pipe',
    },
  );
  issuer = await startStandInIssuer({ audience: 'set per test' });
}, 120_000);

afterAll(() => issuer?.stop());

describe('npm run example:mcp', () => {
  it('serves the metadata and whoami on PORT, fetches the issuer keys at start, and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const app = start({ PORT: String(port), ISSUER: issuer.issuer, PUBLIC_URL: resource });
    try {
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/health`)).ok, 'application C');
      await waitFor(async () => app.output().includes("Signet's keys fetched"), 'the keys fetched at start');
      const metadata = await (await fetch(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`)).json();
      expect(metadata).toMatchObject({ resource, authorization_servers: [issuer.issuer] });
      const client = new Client({ name: 'test-client', version: '1.0.0' });
      const token = await issuer.sign({ aud: resource });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(resource), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
      );
      const result = await client.callTool({ name: 'whoami' });
      expect(result.structuredContent).toMatchObject({ sub: 'eip155:1:0x00000000000000000000000000000000000000a1' });
      await client.close();
    } finally {
      app.child.kill('SIGTERM');
    }
    expect(await app.exited).toBe(0);
  });

  it('a bad setting stops the start, naming it (exit 78)', async () => {
    const app = start({ PORT: String(await freePort()), ISSUER: 'http://id.example.com' });
    expect(await app.exited).toBe(78);
    expect(app.output()).toMatch(/mcp-server: invalid setting: ISSUER: must be an https URL/);
  });
});
