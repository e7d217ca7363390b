/**
 * Log formats of the built provider, started as operators start it: JSON when stdout is not a
 * terminal (a process manager, a container), readable coloured lines with LOG_FORMAT=pretty (what
 * LOG_FORMAT=auto picks on a terminal outside production).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from './processes.ts';

const SIGNET = join(import.meta.dirname, '..', 'node_modules', '.bin', 'signet');

async function runOnce(env: Record<string, string>): Promise<string> {
  return (await runWithStderr(env)).out;
}

async function runWithStderr(env: Record<string, string>): Promise<{ out: string; err: string }> {
  const port = await freePort();
  const child = spawn(SIGNET, ['provider'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port), ISSUER: `http://localhost:${port}`, STORAGE_URL: 'memory:', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr.on('data', (chunk) => {
    err += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + 20_000;
  while (!out.includes('listening') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await fetch(`http://127.0.0.1:${port}/.well-known/openid-configuration`);
  await new Promise((r) => setTimeout(r, 200));
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
  return { out, err };
}

describe('log format', () => {
  it('JSON lines when stdout is not a terminal (LOG_FORMAT=auto), with the access-log line', async () => {
    const out = await runOnce({});
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.find((l) => /listening/.test(l.msg))).toMatchObject({ level: 30, service: 'signet-provider' });
    expect(lines.find((l) => l.reqId)).toMatchObject({ method: 'GET', route: 'discovery', status: 200 });
  });

  it('readable, coloured lines with LOG_FORMAT=pretty', async () => {
    const out = await runOnce({ LOG_FORMAT: 'pretty' });
    expect(out).toMatch(/\u001b\[\d+mINFO\u001b\[\d+m/);
    expect(out).toMatch(/Signet listening/);
    expect(out).toMatch(/GET \/\.well-known\/openid-configuration 200 [\d.]+ ms/);
    expect(out.trimStart().startsWith('{')).toBe(false);
  });

  it("Node's end of life said once, in the provider's log and in its own words; oidc-provider's own line held back", async () => {
    const { out, err } = await runWithStderr({});
    const notices = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l) => /end of life/.test(l.msg));
    const endOfLife = Number(process.versions.node.split('.')[0]) < 22;
    expect(notices).toHaveLength(endOfLife ? 1 : 0);
    if (endOfLife)
      expect(notices[0]).toMatchObject({
        level: 40,
        node: process.versions.node,
        msg: expect.stringMatching(/Node\.js 22 or 24/),
      });
    expect(out + err).not.toContain('Unsupported runtime');
  });
});
