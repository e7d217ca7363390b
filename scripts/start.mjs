#!/usr/bin/env node
/**
 * `npm start`: the provider (:3000) and the reference client (:3001) together, with the
 * embedded SQLite storage, so a person can open http://localhost:3001 and sign in.
 * Builds the wallet page first if it was not built. When SESSION_SECRET is not set, the
 * client gets one generated once and kept in ./data/client-session-secret (development only).
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const manifest = join(root, 'apps/provider/web/dist/.vite/manifest.json');
if (!existsSync(manifest)) {
  console.log('start: building the wallet page');
  const build = spawnSync('npm', ['run', 'build', '-w', '@signet/provider'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const env = { ...process.env };
env.STORAGE_URL ??= `sqlite:${join(root, 'data', 'signet.db')}`;
if (!env.SESSION_SECRET) {
  const dir = join(root, 'data');
  const file = join(dir, 'client-session-secret');
  mkdirSync(dir, { recursive: true });
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600 });
  env.SESSION_SECRET = readFileSync(file, 'utf8').trim();
  console.log('start: SESSION_SECRET not set; the client uses the development secret in data/client-session-secret');
}

const children = [
  ['provider', ['run', 'provider'], { ...env, PORT: env.PROVIDER_PORT ?? '3000' }],
  [
    'client',
    ['run', 'client'],
    { ...env, PORT: env.CLIENT_PORT ?? '3001', DATA_DIR: env.DATA_DIR ?? join(root, 'data', 'client') },
  ],
].map(([name, args, childEnv]) => {
  const child = spawn('npm', args, { cwd: root, env: childEnv, stdio: 'inherit' });
  child.on('exit', (code, signal) => {
    console.log(`start: ${name} exited (${signal ?? code}); stopping`);
    shutdown(code ?? 1);
  });
  return child;
});

let stopping = false;
function shutdown(code) {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 500).unref();
}
process.on('SIGINT', () => shutdown(0));
process.on('SIGTERM', () => shutdown(0));
