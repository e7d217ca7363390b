/**
 * STORAGE_URL for PostgreSQL: `postgres://[user[:password]@]host[:port]/database[?parameters]`
 * (or `postgresql://`), read as libpq reads a connection URI, with these parameters:
 *
 *   sslmode       disable | allow | prefer (the default, as in libpq) | require | verify-ca | verify-full
 *   sslrootcert   a PEM file of the CAs to trust (verify-ca, verify-full; with require it means verify-ca, as in libpq)
 *   sslcert, sslkey  a client certificate and its key (PEM files)
 *   schema        the schema Signet's tables live in (default "signet"); the `options=-c search_path=…`
 *                 form names it too (its first entry) when `schema` is not given
 *   application_name, options, connect_timeout (seconds)   as in libpq
 *   host          a host or a Unix socket directory (`postgres:///db?host=/var/run/postgresql`)
 *
 * The `pg` driver reads sslmode=require as "verify" by default; here each mode means what libpq
 * says, and the driver is handed an explicit `ssl` object (postgres.ts). Unknown parameters are
 * refused (a typo in sslmode= must not quietly mean "no TLS"). Errors never repeat the password.
 */
import { readFileSync } from 'node:fs';

export const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

export type PostgresTarget = {
  host: string;
  port: number;
  database: string;
  user?: string;
  password?: string;
  sslMode: SslMode;
  /** File paths, read when the store connects. */
  sslRootCert?: string;
  sslCert?: string;
  sslKey?: string;
  schema: string;
  applicationName?: string;
  /** Passed to the server at connection start (`-c name=value …`). */
  options?: string;
  connectTimeoutSeconds?: number;
};

export class PostgresUrlError extends Error {}

const PARAMETERS = new Set([
  'sslmode',
  'sslrootcert',
  'sslcert',
  'sslkey',
  'schema',
  'application_name',
  'options',
  'connect_timeout',
  'host',
  'port',
  'user',
  'password',
  'dbname',
]);

/** An identifier Signet creates and names in SQL: letters, digits and underscores, as PostgreSQL folds nothing of it. */
const SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/;

const decode = (value: string, what: string) => {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new PostgresUrlError(`its ${what} is not valid percent-encoding`);
  }
};

/** `scheme://host:port/database`: what errors and logs may say of a PostgreSQL URL (never the user or password). */
export function describePostgres(target: Pick<PostgresTarget, 'host' | 'port' | 'database'>): string {
  const host = target.host.includes(':') && !target.host.startsWith('/') ? `[${target.host}]` : target.host;
  return `postgres://${host}:${target.port}/${target.database}`;
}

/** The first schema of `-c search_path=…` in libpq's `options`, if any. */
function searchPathOf(options: string | undefined): string | undefined {
  const match = /(?:^|\s)(?:-c\s*|--)search_path=([^\s,]+)/.exec(options ?? '');
  return match?.[1]?.replace(/^"(.*)"$/, '$1');
}

/** Parses a STORAGE_URL that names PostgreSQL; throws PostgresUrlError (words without the password). */
export function parsePostgresUrl(raw: string): PostgresTarget {
  if (!/^postgres(ql)?:\/\//.test(raw)) throw new PostgresUrlError('must start with postgres:// or postgresql://');
  let url: URL;
  try {
    // WHATWG URL reads only "special" schemes' hosts loosely; read it as http to get host and port.
    // An empty authority (postgres:///db?host=/socket/dir) gets a placeholder, read as no host.
    url = new URL(raw.replace(/^postgres(ql)?:\/\/(?=\/)/, 'http://none.invalid').replace(/^postgres(ql)?:/, 'http:'));
  } catch {
    throw new PostgresUrlError('is not a valid postgres:// URL (postgres://user:password@host:5432/database)');
  }
  const params = url.searchParams;
  for (const key of params.keys()) {
    if (!PARAMETERS.has(key)) {
      throw new PostgresUrlError(`has an unknown parameter ${key} (known: ${[...PARAMETERS].join(', ')})`);
    }
  }
  const param = (key: string) => params.get(key) ?? undefined;
  const given = url.hostname === 'none.invalid' ? '' : url.hostname.replace(/^\[(.*)\]$/, '$1');
  const host = param('host') ?? (given === '' ? 'localhost' : given);
  const portText = param('port') ?? (url.port === '' ? '5432' : url.port);
  const port = Number(portText);
  if (!/^\d{1,5}$/.test(portText) || port < 1 || port > 65535) throw new PostgresUrlError(`has a bad port (${portText})`);
  const database = param('dbname') ?? decode(url.pathname.replace(/^\//, ''), 'database name');
  if (database === '' || database.includes('/')) {
    throw new PostgresUrlError('needs a database name as its path: postgres://user:password@host:5432/<database>');
  }
  const sslMode = (param('sslmode') ?? 'prefer') as SslMode;
  if (!SSL_MODES.includes(sslMode)) {
    throw new PostgresUrlError(`sslmode must be one of ${SSL_MODES.join(', ')}, not ${param('sslmode')}`);
  }
  const options = param('options');
  const schema = param('schema') ?? searchPathOf(options) ?? 'signet';
  if (!SCHEMA.test(schema)) {
    throw new PostgresUrlError(`schema must be a lower-case name of letters, digits and underscores (not ${schema})`);
  }
  const timeout = param('connect_timeout');
  if (timeout !== undefined && !/^\d{1,4}$/.test(timeout)) throw new PostgresUrlError('connect_timeout must be whole seconds');
  const user = param('user') ?? (url.username === '' ? undefined : decode(url.username, 'user name'));
  const password = param('password') ?? (url.password === '' ? undefined : decode(url.password, 'password'));
  const target: PostgresTarget = {
    host,
    port,
    database,
    ...(user === undefined ? {} : { user }),
    ...(password === undefined ? {} : { password }),
    sslMode,
    schema,
    ...(param('sslrootcert') ? { sslRootCert: param('sslrootcert') } : {}),
    ...(param('sslcert') ? { sslCert: param('sslcert') } : {}),
    ...(param('sslkey') ? { sslKey: param('sslkey') } : {}),
    ...(param('application_name') ? { applicationName: param('application_name') } : {}),
    ...(options ? { options } : {}),
    ...(timeout === undefined || timeout === '0' ? {} : { connectTimeoutSeconds: Number(timeout) }),
  };
  if ((target.sslCert === undefined) !== (target.sslKey === undefined)) {
    throw new PostgresUrlError('sslcert and sslkey go together (a client certificate and its key)');
  }
  return target;
}

/**
 * What Node's TLS is told for a mode that encrypts (undefined: no TLS), as libpq means each:
 * require encrypts and verifies nothing (unless sslrootcert is given: then it is verify-ca);
 * verify-ca checks the chain against sslrootcert (or Node's CAs) but not the name; verify-full
 * checks the chain and that the certificate names the host. Files are read here: a missing one
 * is a setting error, not a connection failure later.
 */
export function tlsOptions(target: PostgresTarget, mode: 'require' | 'verify-ca' | 'verify-full') {
  const read = (path: string | undefined, what: string) => {
    if (path === undefined) return undefined;
    try {
      return readFileSync(path, 'utf8');
    } catch (error) {
      throw new PostgresUrlError(`cannot read ${what} ${path} (${(error as NodeJS.ErrnoException).code ?? error})`);
    }
  };
  const ca = read(target.sslRootCert, 'sslrootcert');
  const client = { cert: read(target.sslCert, 'sslcert'), key: read(target.sslKey, 'sslkey') };
  const effective = mode === 'require' && ca !== undefined ? 'verify-ca' : mode;
  const base = { ...(ca === undefined ? {} : { ca }), ...(client.cert ? client : {}) };
  if (effective === 'require') return { ...base, rejectUnauthorized: false };
  if (effective === 'verify-ca') return { ...base, rejectUnauthorized: true, checkServerIdentity: () => undefined };
  // verify-full: Node checks the name against the host pg connects to (pg sets SNI for names, not addresses).
  return { ...base, rejectUnauthorized: true };
}
