#!/usr/bin/env node
/**
 * Run before `npm test`: makes sure the real parts the suite uses are here, so that a fresh
 * machine needs nothing but `npm install && npm test`.
 *
 *  - a Redis server answering at REDIS_URL (default redis://127.0.0.1:6379): started if the
 *    binary exists, installed from Debian first if it does not (root only);
 *  - redis-sentinel and redis-cli (the Sentinel failover and Redis Cluster tests start servers of
 *    their own on free ports): installed with apt;
 *  - Debian's Chromium at CHROMIUM_PATH (default /usr/bin/chromium): installed with apt (root only);
 *  - the openssl command (two tests make a throw-away https certificate): installed with apt;
 *  - a PostgreSQL server answering at POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test):
 *    Debian's cluster started with pg_ctlcluster if it is installed, installed from Debian first
 *    if not (root only); the fault tests also start throw-away clusters with its initdb;
 *  - the Debian relying parties some recipe tests run (oidc-agent, Go with go-oidc, Ruby with
 *    omniauth_openid_connect; scripts/debian-parts.mjs): installed with apt.
 *
 * Where it cannot install (not root, no apt), it stops at once with the exact command to run.
 * It never lets tests be skipped.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { DEBIAN_PARTS, hasPart } from './debian-parts.mjs';

const redisUrl = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const redisHost = redisUrl.hostname || '127.0.0.1';
const redisPort = Number(redisUrl.port || 6379);
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const isRoot = process.getuid?.() === 0;
const hasApt = existsSync('/usr/bin/apt-get');

function fail(message) {
  console.error(`\n✗ npm test needs: ${message}\n`);
  process.exit(1);
}

function which(binary) {
  return spawnSync('sh', ['-c', `command -v ${binary}`], { encoding: 'utf8' }).stdout.trim() || undefined;
}

let aptUpdated = false;
function aptInstall(packages, why) {
  if (!isRoot || !hasApt) {
    fail(`${why}. Install it with:\n    sudo apt-get update && sudo apt-get install -y ${packages.join(' ')}`);
  }
  console.log(`prerequisites: installing ${packages.join(' ')} from Debian (${why})`);
  const run = (args) => {
    const result = spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (result.status !== 0) fail(`apt-get ${args.join(' ')} failed; run it by hand and retry`);
  };
  if (!aptUpdated) run(['update']);
  aptUpdated = true;
  run(['install', '-y', '--no-install-recommends', ...packages]);
}

function answers(host, port) {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => {
      socket.write('PING\r\n');
      socket.once('data', (data) => done(data.toString().startsWith('+PONG') || data.toString().startsWith('-NOAUTH')));
    });
  });
}

async function ensureRedis() {
  if (await answers(redisHost, redisPort)) return;
  const local = ['127.0.0.1', 'localhost', '::1'].includes(redisHost);
  if (!local) fail(`a Redis server at ${redisUrl.href} (REDIS_URL), and none answers there`);
  if (!which('redis-server')) aptInstall(['redis-server'], 'a Redis server for the storage and nonce-store tests');
  console.log(`prerequisites: starting redis-server on port ${redisPort}`);
  execFileSync('redis-server', [
    '--daemonize',
    'yes',
    '--bind',
    '127.0.0.1',
    '--port',
    String(redisPort),
    '--save',
    '',
    '--appendonly',
    'no',
  ]);
  for (let i = 0; i < 50; i++) {
    if (await answers(redisHost, redisPort)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  fail(`redis-server was started but does not answer on ${redisHost}:${redisPort}`);
}

const postgresUrl = new URL(process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
const postgresHost = postgresUrl.hostname || '127.0.0.1';
const postgresPort = Number(postgresUrl.port || 5432);
const postgresDatabase = decodeURIComponent(postgresUrl.pathname.slice(1)) || 'test';

/** True when a PostgreSQL server answers an SSLRequest on host:port (it says 'S' or 'N'). */
function postgresAnswers(host, port) {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write(Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f])));
    socket.once('data', (data) => done(data[0] === 0x53 || data[0] === 0x4e));
  });
}

async function ensurePostgres() {
  const clusters = () => (existsSync('/etc/postgresql') ? readdirSync('/etc/postgresql') : []);
  const start = `pg_ctlcluster --skip-systemctl-redirect ${clusters()[0] ?? '<version>'} main start`;
  if (!existsSync('/usr/lib/postgresql') || clusters().length === 0) {
    aptInstall(['postgresql'], 'a PostgreSQL server for the PostgreSQL storage tests');
  }
  if (!(await postgresAnswers(postgresHost, postgresPort))) {
    const local = ['127.0.0.1', 'localhost', '::1'].includes(postgresHost);
    if (!local) fail(`a PostgreSQL server at ${postgresHost}:${postgresPort} (POSTGRES_URL), and none answers there`);
    if (!isRoot) fail(`a PostgreSQL server on ${postgresHost}:${postgresPort}. Start it with:\n    sudo ${start}`);
    const version = clusters()[0];
    console.log(`prerequisites: starting PostgreSQL ${version} (${start})`);
    const started = spawnSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start'], { stdio: 'inherit' });
    for (let i = 0; i < 100 && !(await postgresAnswers(postgresHost, postgresPort)); i++)
      await new Promise((r) => setTimeout(r, 100));
    if (!(await postgresAnswers(postgresHost, postgresPort)))
      fail(`PostgreSQL on ${postgresHost}:${postgresPort} (${start} exited ${started.status}); run it by hand and retry`);
  }
  // The tests' database, and trust for the postgres user over TCP, as POSTGRES_URL's default expects.
  if (isRoot && ['127.0.0.1', 'localhost', '::1'].includes(postgresHost)) {
    const psql = (args) =>
      spawnSync('su', ['postgres', '-c', `psql -p ${postgresPort} -Atq ${args}`], { encoding: 'utf8', cwd: '/' });
    const exists = psql(`-c "SELECT 1 FROM pg_database WHERE datname = '${postgresDatabase.replace(/'/g, "''")}'"`);
    if (exists.status === 0 && exists.stdout.trim() !== '1') {
      console.log(`prerequisites: creating the PostgreSQL database ${postgresDatabase}`);
      psql(`-c 'CREATE DATABASE "${postgresDatabase.replace(/"/g, '""')}"'`);
    }
  }
}

function ensureChromium() {
  if (existsSync(chromium)) return;
  if (process.env.CHROMIUM_PATH) fail(`Chromium at CHROMIUM_PATH=${chromium}, which does not exist`);
  aptInstall(['chromium'], "Debian's Chromium for the browser tests");
  if (!existsSync(chromium)) fail(`Chromium at ${chromium} after installing it`);
}

function ensureOpenssl() {
  if (!which('openssl'))
    aptInstall(
      ['openssl'],
      'the openssl command (throw-away https certificates in e2e/conformance-sector.test.ts and e2e/ens-gateway-tls.test.ts)',
    );
}

function ensureDebianParts() {
  const missing = DEBIAN_PARTS.filter((part) => !hasPart(part));
  if (missing.length === 0) return;
  aptInstall(
    missing.flatMap((part) => part.packages),
    missing.map((part) => part.why).join('; '),
  );
  const still = missing.filter((part) => !hasPart(part));
  if (still.length > 0) fail(`${still.map((part) => part.why).join('; ')} after installing them`);
}

function ensureRedisTools() {
  if (!which('redis-server') || !which('redis-cli'))
    aptInstall(['redis-server'], 'redis-server and redis-cli for the Redis Cluster tests');
  if (!which('redis-sentinel')) aptInstall(['redis-sentinel'], 'redis-sentinel for the Sentinel failover tests');
}

await ensureRedis();
ensureRedisTools();
await ensurePostgres();
ensureChromium();
ensureOpenssl();
ensureDebianParts();
console.log(
  `prerequisites: redis at ${redisHost}:${redisPort}, postgres at ${postgresHost}:${postgresPort}, chromium at ${chromium}`,
);
