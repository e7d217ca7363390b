#!/usr/bin/env node
/**
 * `npm start`: the provider (PROVIDER_PORT, default 3000) and the reference client (CLIENT_PORT,
 * default 3001) together, from the built JavaScript under plain node, with the embedded SQLite
 * storage, so a person can open http://localhost:3001 and sign in. Builds first if needed (tsc -b
 * is incremental). When SESSION_SECRET is not set, the client gets one generated once and kept
 * in ./data/client-session-secret (development only).
 *
 * SIGTERM / SIGINT are forwarded to both children; this process exits when they have exited
 * (0 when both stopped cleanly). If one child exits on its own, the other is stopped too.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const built = [
  join(root, 'apps/provider/dist/bin.js'),
  join(root, 'apps/client/dist/server.js'),
  join(root, 'apps/provider/web/dist/.vite/manifest.json'),
];
if (process.env.SIGNET_START_SKIP_BUILD !== '1' || !built.every((file) => existsSync(file))) {
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const env = { ...process.env };
const dataDir = env.SIGNET_DATA_DIR ?? join(root, 'data');
env.STORAGE_URL ??= `sqlite:${join(dataDir, 'signet.db')}`;
// Made here, before the provider and the client start, and for this user only: it holds the
// provider's keys and the client's registration (either child creating it first made it 0755).
mkdirSync(dataDir, { recursive: true, mode: 0o700 });
if (!env.SESSION_SECRET) {
  const file = join(dataDir, 'client-session-secret');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600 });
  env.SESSION_SECRET = readFileSync(file, 'utf8').trim();
  console.log(`start: SESSION_SECRET not set; the client uses the development secret in ${file}`);
}
const providerPort = env.PROVIDER_PORT ?? '3000';
const clientPort = env.CLIENT_PORT ?? '3001';
env.ISSUER ??= `http://localhost:${providerPort}`;

const children = [
  ['provider', [join(root, 'apps/provider/bin/signet.js'), 'provider'], { ...env, PORT: providerPort }],
  [
    'client',
    [join(root, 'apps/client/dist/server.js')],
    {
      ...env,
      PORT: clientPort,
      DATA_DIR: env.DATA_DIR ?? join(dataDir, 'client'),
      REDIRECT_URI: env.REDIRECT_URI ?? `http://localhost:${clientPort}/api/auth/callback`,
      CLIENT_URI: env.CLIENT_URI ?? `http://localhost:${clientPort}`,
      LOGO_URI: env.LOGO_URI ?? `http://localhost:${clientPort}/logo.svg`,
    },
  ],
].map(([name, args, childEnv]) => {
  const child = spawn(process.execPath, args, { cwd: root, env: childEnv, stdio: 'inherit' });
  child.name = name;
  child.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  child.exited.then(({ code, signal }) => {
    if (!stopping) {
      console.log(`start: ${name} exited (${signal ?? code}); stopping the other`);
      stop('SIGTERM', code === 0 ? 1 : (code ?? 1));
    }
  });
  return child;
});

let stopping = false;
async function stop(signal, failure = 0) {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  const results = await Promise.all(children.map((child) => child.exited));
  const clean = results.every(({ code, signal: by }) => code === 0 || by === 'SIGTERM' || by === 'SIGINT');
  process.exit(failure || (clean ? 0 : 1));
}
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
