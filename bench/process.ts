/**
 * The provider as a process: start-up time (spawn → /health answers), RSS when idle after
 * start and peak RSS (VmHWM) after complete sign-ins, for the built JavaScript that operators
 * run against the TypeScript sources under tsx; and the size of the production tree.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pkceAuthorization, registerPublicClient, walletSignIn } from '@signet/testkit';
import { freePort } from '@signet/testkit/ports';
import * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Section } from './report.ts';
import { median } from './stats.ts';

const ROOT = join(import.meta.dirname, '..');
const RUNS = 3;
const FLOWS = 200;
const CONCURRENCY = 8;

const modes: { name: string; args: string[] }[] = [
  { name: 'built (node apps/provider/bin/signet.js provider)', args: ['apps/provider/bin/signet.js', 'provider'] },
  {
    name: 'sources under tsx (before the build existed)',
    args: ['--conditions=@signet/source', '--import', 'tsx', 'apps/provider/src/server.ts'],
  },
];

const memoryKb = (pid: number, field: 'VmRSS' | 'VmHWM') =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN);

async function once(args: string[]) {
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      ISSUER: url,
      STORAGE_URL: 'memory:',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_AUTHORIZATION: '0',
      RATE_LIMIT_INTERACTION: '0',
      RATE_LIMIT_REGISTRATION: '0',
      RATE_LIMIT_TOKEN: '0',
    },
    stdio: 'ignore',
  });
  try {
    for (;;) {
      if (
        await fetch(`${url}/health`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      if (performance.now() - started > 30_000) throw new Error(`${args.join(' ')} did not start`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const startupMs = performance.now() - started;
    await new Promise((r) => setTimeout(r, 1000));
    const idle = memoryKb(child.pid as number, 'VmRSS');
    const client = await registerPublicClient(url);
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next++ < FLOWS) {
          const { url: authorizationUrl, verifier } = await pkceAuthorization(client, { scope: 'openid profile' });
          const { callbackUrl } = await walletSignIn({ authorizationUrl, signer: privateKeyToAccount(generatePrivateKey()) });
          await oidc.authorizationCodeGrant(client, callbackUrl, { pkceCodeVerifier: verifier });
        }
      }),
    );
    return { startupMs, idleMb: idle / 1024, peakMb: memoryKb(child.pid as number, 'VmHWM') / 1024 };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

const spread = (xs: number[]) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`;

export async function processFootprint(): Promise<Section> {
  const results: { name: string; startup: number[]; idle: number[]; peak: number[] }[] = [];
  for (const mode of modes) {
    const r = { name: mode.name, startup: [] as number[], idle: [] as number[], peak: [] as number[] };
    for (let i = 0; i < RUNS; i++) {
      const m = await once(mode.args);
      r.startup.push(m.startupMs);
      r.idle.push(m.idleMb);
      r.peak.push(m.peakMb);
    }
    results.push(r);
  }
  const scratch = mkdtempSync(join(ROOT, '..', '.signet-bench-runtime-'));
  let size = 'unknown';
  try {
    const out = execFileSync(join(ROOT, 'scripts', 'runtime-tree.sh'), [join(scratch, 'app')], { encoding: 'utf8' });
    size = /runtime-tree: (\S+)/.exec(out)?.[1] ?? size;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const [built, tsx] = results as [(typeof results)[0], (typeof results)[0]];
  const ratio = median(built.idle) / median(tsx.idle);
  return {
    title: 'Provider process: start-up, memory, production size',
    table: {
      head: ['how it runs', 'start-up ms (median, range)', 'idle RSS MB', `peak RSS MB after ${FLOWS} sign-ins`],
      rows: results.map((r) => [
        r.name,
        `${median(r.startup).toFixed(0)} (${spread(r.startup)})`,
        `${median(r.idle).toFixed(0)} (${spread(r.idle)})`,
        `${median(r.peak).toFixed(0)} (${spread(r.peak)})`,
      ]),
    },
    checks: [
      {
        name: 'idle RSS, built / tsx',
        value: ratio,
        display: `${(ratio * 100).toFixed(0)} %`,
        target: '< 100 %',
        pass: ratio < 1,
      },
    ],
    notes: [
      `${RUNS} runs each, memory storage, ${FLOWS} complete sign-ins (authorize → wallet → token) at concurrency ${CONCURRENCY} driven from the bench process.`,
      `Production tree (scripts/runtime-tree.sh, on ${process.version}): ${size}.`,
    ],
  };
}
