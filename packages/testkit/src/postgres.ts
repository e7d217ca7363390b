/**
 * PostgreSQL for tests. Two kinds:
 *
 * - `postgresSchema()`: a schema of the test's own on the shared server (POSTGRES_URL, default
 *   postgres://postgres@127.0.0.1:5432/test), named in the URL it returns (`?schema=`), dropped
 *   by `drop()`. Tests that only store and read use this.
 * - `startPostgresCluster()`: a throw-away cluster of the test's own (Debian's initdb and
 *   postgres binaries, a temporary directory, a free loopback port), for what must never be done
 *   to the shared server: stopping it, killing it, making it read-only, turning TLS on. initdb
 *   refuses to run as root, so as root the cluster runs as the `postgres` system user.
 *
 * A missing binary fails with the command that installs it (scripts/prerequisites.mjs does it
 * for npm test).
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './ports.ts';

export const POSTGRES_URL = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The URL with `schema` (and any other parameters) set. */
export function withParameters(url: string, parameters: Record<string, string>): string {
  const parsed = new URL(url);
  for (const [key, value] of Object.entries(parameters)) parsed.searchParams.set(key, value);
  return parsed.href;
}

/** Runs statements on a fresh connection to `url` (as given: the schema parameter is not pg's). */
export async function sql<R extends pg.QueryResultRow = pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  const parsed = new URL(url);
  parsed.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: parsed.href.replace(/\?$/, '') });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

export type TestSchema = {
  /** STORAGE_URL for a store in this schema. */
  url: string;
  schema: string;
  drop(): Promise<void>;
};

/** A fresh schema name on the shared server (created by the store's migration), dropped by `drop()`. */
export function postgresSchema(base = POSTGRES_URL): TestSchema {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  return {
    url: withParameters(base, { schema, sslmode: new URL(base).searchParams.get('sslmode') ?? 'disable' }),
    schema,
    async drop() {
      await sql(base, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    },
  };
}

const BIN = () => {
  const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').sort() : [];
  const dir = versions.length ? join('/usr/lib/postgresql', versions[versions.length - 1] as string, 'bin') : undefined;
  if (!dir || !existsSync(join(dir, 'initdb'))) {
    throw new Error(
      'PostgreSQL server binaries are not installed: apt-get install -y postgresql (scripts/prerequisites.mjs does it)',
    );
  }
  return dir;
};

/** As root: the postgres system user's uid and gid (initdb refuses root). */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

export type PostgresCluster = {
  port: number;
  /** postgres://postgres@127.0.0.1:<port>/postgres?sslmode=disable */
  url: string;
  /** With `tls`: the CA certificate file that signed the server's (for sslrootcert). */
  caFile?: string;
  /** Starts it again (after stop or kill), with the same data. */
  start(): Promise<void>;
  /** A fast shutdown (SIGINT): sessions are ended, the server stops. */
  stop(): Promise<void>;
  /** SIGKILL of the postmaster: a crash. */
  kill(): Promise<void>;
  /** Runs statements as the superuser. */
  sql<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]>;
  /** Stops it and removes its files. */
  destroy(): Promise<void>;
};

/** A CA and a server certificate for 127.0.0.1 and localhost, made with openssl, in the data directory; the CA's file. */
function serverCertificate(root: string, data: string, owner: ReturnType<typeof runAs>): string {
  const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: 'pipe', cwd: root });
  try {
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    openssl(['req', '-x509', ...ec, '-days', '1', '-keyout', 'ca-key.pem', '-out', 'ca.pem', '-subj', '/CN=signet test CA']);
    openssl(['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost']);
    writeFileSync(join(root, 'san.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
    const ca = ['-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial'];
    openssl(['x509', '-req', '-in', 'server.csr', ...ca, '-days', '1', '-out', 'server.crt', '-extfile', 'san.cnf']);
  } catch (error) {
    throw new Error(`this test needs the openssl command (apt-get install -y openssl): ${(error as Error).message}`);
  }
  for (const file of ['server.key', 'server.crt']) {
    copyFileSync(join(root, file), join(data, file));
    chmodSync(join(data, file), 0o600);
    if (owner) chownSync(join(data, file), owner.uid, owner.gid);
  }
  return join(root, 'ca.pem');
}

/**
 * A throw-away cluster on a free loopback port, trust authentication. `tls`: a CA and a server
 * certificate for 127.0.0.1 and localhost made with openssl, ssl=on. `settings`: more `-c` options.
 */
export async function startPostgresCluster(
  options: { tls?: boolean; settings?: Record<string, string> } = {},
): Promise<PostgresCluster> {
  const bin = BIN();
  const owner = runAs();
  const root = mkdtempSync(join(tmpdir(), 'signet-pg-'));
  const data = join(root, 'data');
  if (owner) chownSync(root, owner.uid, owner.gid);
  const spawnOptions = owner ? { uid: owner.uid, gid: owner.gid } : {};
  const init = spawnSync(
    join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C'],
    {
      encoding: 'utf8',
      ...spawnOptions,
    },
  );
  if (init.status !== 0) throw new Error(`initdb failed:\n${init.stdout}\n${init.stderr}`);
  // Trust on the whole loopback range: a TLS test reaches the same server as 127.0.0.2, a name its certificate lacks.
  writeFileSync(join(data, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.0/8 trust\nhost all all ::1/128 trust\n');
  const port = await freePort();
  let caFile: string | undefined;
  const settings: Record<string, string> = {
    listen_addresses: options.tls ? '127.0.0.1,127.0.0.2' : '127.0.0.1',
    port: String(port),
    unix_socket_directories: root,
    fsync: 'off',
    max_connections: '40',
    ...options.settings,
  };
  if (options.tls) {
    caFile = serverCertificate(root, data, owner);
    Object.assign(settings, { ssl: 'on', ssl_cert_file: 'server.crt', ssl_key_file: 'server.key' });
  }
  const args = ['-D', data, ...Object.entries(settings).flatMap(([key, value]) => ['-c', `${key}=${value}`])];
  const url = `postgres://postgres@127.0.0.1:${port}/postgres?sslmode=disable`;
  let child: ChildProcess | undefined;
  let output = '';

  const answers = async () => {
    try {
      await sql(url, 'SELECT 1');
      return true;
    } catch {
      return false;
    }
  };
  const start = async () => {
    output = '';
    child = spawn(join(bin, 'postgres'), args, { stdio: ['ignore', 'pipe', 'pipe'], ...spawnOptions });
    const append = (chunk: Buffer) => {
      output = (output + chunk).slice(-4000);
    };
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    const started = child;
    const exited = new Promise<never>((_, reject) =>
      started.once('exit', (code) => reject(new Error(`postgres exited (${code}):\n${output}`))),
    );
    exited.catch(() => {});
    const deadline = Date.now() + 30_000;
    while (!(await Promise.race([answers(), exited]))) {
      if (Date.now() > deadline) throw new Error(`postgres on ${port} did not answer:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const halt = async (signal: NodeJS.Signals) => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill(signal);
    await exited;
    if (signal === 'SIGKILL') {
      // The postmaster's children outlive it briefly; a new postmaster waits for their shared memory.
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  };
  await start();
  return {
    port,
    url,
    ...(caFile ? { caFile } : {}),
    start,
    stop: () => halt('SIGINT'),
    kill: () => halt('SIGKILL'),
    sql: (text, values) => sql(url, text, values),
    async destroy() {
      await halt('SIGINT');
      rmSync(root, { recursive: true, force: true });
    },
  };
}
