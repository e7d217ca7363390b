/**
 * The Redis shapes STORAGE_URL can name:
 *   redis://…  rediss://…                                          one server (ioredis' own URL form)
 *   redis+sentinel://[user:password@]host:port[,host:port…]/<primary name>   a Sentinel group
 *   redis+cluster://[user:password@]host:port[,host:port…]                   a Redis Cluster
 * and the `rediss+…` forms for TLS. The credentials are those of the Redis servers (the primary
 * and its replicas, or the Cluster's nodes); sentinels that need their own are given
 * `?sentinel_username=…&sentinel_password=…`. Errors never repeat a password.
 */

export type RedisNode = { host: string; port: number };

export type RedisTarget =
  | { shape: 'single'; url: string }
  | {
      shape: 'sentinel';
      tls: boolean;
      sentinels: RedisNode[];
      /** The primary's name, as the sentinels monitor it. */
      name: string;
      username?: string;
      password?: string;
      sentinelUsername?: string;
      sentinelPassword?: string;
    }
  | { shape: 'cluster'; tls: boolean; nodes: RedisNode[]; username?: string; password?: string };

export class RedisUrlError extends Error {}

const SHAPED = /^(rediss?)\+(sentinel|cluster):\/\/(?:([^@/?#]*)@)?([^/?#]*)(\/[^?#]*)?(?:\?([^#]*))?$/;
const NODE = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)(?::(\d{1,5}))?$/;

const decode = (value: string, what: string) => {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new RedisUrlError(`its ${what} is not valid percent-encoding`);
  }
};

function nodesOf(list: string, defaultPort: number): RedisNode[] {
  const entries = list.split(',').map((entry) => entry.trim());
  if (entries.length === 0 || entries.some((entry) => entry === '')) {
    throw new RedisUrlError('needs host:port[,host:port…] after //');
  }
  return entries.map((entry, index) => {
    const match = NODE.exec(entry);
    const port = match?.[2] === undefined ? defaultPort : Number(match[2]);
    // Not quoted: a password holding `/` ends the user part early and lands here.
    if (!match?.[1] || port < 1 || port > 65535) {
      throw new RedisUrlError(
        `has a bad host:port (entry ${index + 1} of ${entries.length}; a password holding / ? # or @ must be percent-encoded)`,
      );
    }
    return { host: match[1].replace(/^\[(.*)\]$/, '$1'), port };
  });
}

/** Parses a STORAGE_URL that names Redis; throws RedisUrlError (words without the password). */
export function parseRedisUrl(raw: string): RedisTarget {
  if (raw.startsWith('redis://') || raw.startsWith('rediss://')) {
    try {
      new URL(raw);
    } catch {
      throw new RedisUrlError('is not a valid redis:// URL');
    }
    return { shape: 'single', url: raw };
  }
  const match = SHAPED.exec(raw);
  if (!match) {
    throw new RedisUrlError(
      'must be redis://…, rediss://…, redis+sentinel://host:port[,host:port…]/<primary name> or redis+cluster://host:port[,host:port…]',
    );
  }
  const [, scheme, shape, userinfo, hosts = '', path = '', query = ''] = match;
  const tls = scheme === 'rediss';
  const [user, ...secret] = userinfo === undefined ? [] : userinfo.split(':');
  const credentials = {
    ...(user ? { username: decode(user, 'user name') } : {}),
    ...(secret.length > 0 ? { password: decode(secret.join(':'), 'password') } : {}),
  };
  const params = new URLSearchParams(query);
  if (shape === 'cluster') {
    if (path !== '' && path !== '/') throw new RedisUrlError('redis+cluster:// takes no path (a Cluster has one database)');
    if ([...params.keys()].length > 0) throw new RedisUrlError('redis+cluster:// takes no query parameters');
    return { shape: 'cluster', tls, nodes: nodesOf(hosts, 6379), ...credentials };
  }
  const name = decode(path.replace(/^\//, ''), 'primary name');
  if (name === '' || name.includes('/')) {
    throw new RedisUrlError('redis+sentinel:// needs the primary name as its path: redis+sentinel://host:port,…/<primary name>');
  }
  for (const key of params.keys()) {
    if (key !== 'sentinel_username' && key !== 'sentinel_password') {
      throw new RedisUrlError(`redis+sentinel:// takes only sentinel_username and sentinel_password as parameters, not ${key}`);
    }
  }
  const sentinelUsername = params.get('sentinel_username') ?? undefined;
  const sentinelPassword = params.get('sentinel_password') ?? undefined;
  return {
    shape: 'sentinel',
    tls,
    sentinels: nodesOf(hosts, 26379),
    name,
    ...credentials,
    ...(sentinelUsername ? { sentinelUsername } : {}),
    ...(sentinelPassword ? { sentinelPassword } : {}),
  };
}
