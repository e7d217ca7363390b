/**
 * A Redis that may evict keys (maxmemory-policy other than noeviction) could drop clients,
 * sessions or a code's consumed marker: the provider refuses to start on one, names
 * maxmemory-policy and says why; STORAGE_ALLOW_EVICTION=true turns that into a warning; a Redis
 * that refuses CONFIG GET (as managed ones do) gets a warning. Real provider processes, each
 * against a redis-server of its own.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, type RedisServer, startRedis, startReplica } from './processes.ts';

const servers: RedisServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});

async function redisWith(args: string[]) {
  const server = await startRedis(args);
  servers.push(server);
  return server;
}

async function provider(storageUrl: string, extra: Record<string, string> = {}) {
  const port = await freePort();
  return startReplica(
    {
      ISSUER: `http://localhost:${port}`,
      STORAGE_URL: storageUrl,
      STORAGE_PREFIX: `signet-eviction:${randomUUID()}:`,
      SHUTDOWN_DRAIN_MS: '0',
      ...extra,
    },
    port,
  );
}

/** The provider's start, expected to fail: its exit code and what it printed. */
async function refusedStart(storageUrl: string, extra: Record<string, string> = {}) {
  try {
    const replica = await provider(storageUrl, extra);
    await replica.stop();
  } catch (error) {
    const found = /^provider exited \((\d+)\) before answering:\n([\s\S]*)$/.exec((error as Error).message);
    if (found) return { code: Number(found[1]), output: found[2] as string };
    throw error;
  }
  throw new Error('the provider started');
}

describe('maxmemory-policy at start', () => {
  it.each(['allkeys-lru', 'volatile-ttl'])(
    '%s: the start is refused (exit 78) with a message naming maxmemory-policy',
    async (policy) => {
      const redis = await redisWith(['--maxmemory-policy', policy]);
      const { code, output } = await refusedStart(redis.url);
      expect(code).toBe(78);
      expect(output).toContain(`STORAGE_URL: Redis maxmemory-policy is ${policy}: under memory pressure Redis would delete`);
      expect(output).toContain('usable once');
      expect(output).toContain('Set maxmemory-policy noeviction');
    },
  );

  it('STORAGE_ALLOW_EVICTION=true never accepts allkeys-*: accounts, clients and keys have no expiry', async () => {
    const redis = await redisWith(['--maxmemory-policy', 'allkeys-lru']);
    const { code, output } = await refusedStart(redis.url, { STORAGE_ALLOW_EVICTION: 'true' });
    expect(code).toBe(78);
    expect(output).toContain('and accounts, which never expire');
    expect(output).toContain('accepts a volatile-* policy only');
  });

  it('STORAGE_ALLOW_EVICTION=true: a volatile-* policy starts, with a warning that says why', async () => {
    const redis = await redisWith(['--maxmemory-policy', 'volatile-lru']);
    const replica = await provider(redis.url, { STORAGE_ALLOW_EVICTION: 'true' });
    try {
      expect((await fetch(`${replica.url}/health/ready`)).status).toBe(200);
      const warning = replica
        .output()
        .split('\n')
        .find((line) => line.includes('maxmemory-policy'));
      expect(JSON.parse(warning as string)).toMatchObject({
        level: 40,
        maxmemoryPolicy: ['volatile-lru'],
        msg: expect.stringMatching(/starting anyway because STORAGE_ALLOW_EVICTION=true$/),
      });
    } finally {
      await replica.stop();
    }
  });

  it('noeviction: starts without a word about it', async () => {
    const redis = await redisWith(['--maxmemory-policy', 'noeviction']);
    const replica = await provider(redis.url);
    try {
      expect((await fetch(`${replica.url}/health/ready`)).status).toBe(200);
      expect(replica.output()).not.toContain('maxmemory-policy');
    } finally {
      await replica.stop();
    }
  });

  it('CONFIG GET refused (a managed Redis): starts, with a warning to check the policy', async () => {
    const redis = await redisWith(['--maxmemory-policy', 'allkeys-lru', '--rename-command', 'CONFIG', '""']);
    const replica = await provider(redis.url);
    try {
      expect((await fetch(`${replica.url}/health/ready`)).status).toBe(200);
      expect(replica.output()).toMatch(
        /could not read Redis maxmemory-policy \(CONFIG GET refused\); make sure it is noeviction/,
      );
    } finally {
      await replica.stop();
    }
  });
});
