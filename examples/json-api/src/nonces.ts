/**
 * Application B's nonce store: one record per issued nonce ({ timestamp, used }), with the
 * spec's state table. Two implementations behind one interface: in memory (default) and Redis
 * (REDIS_URL), whose consume is one atomic Lua script so two instances sharing a Redis never
 * accept one nonce twice.
 */
import { generateNonce } from '@signet/siwe';
import { Redis } from 'ioredis';

/** A nonce is valid for 10 minutes after it was issued. */
export const NONCE_MAX_AGE_MS = 10 * 60_000;
/** Records older than the maximum age are removed every 5 minutes. */
export const NONCE_CLEANUP_INTERVAL_MS = 5 * 60_000;

export type ConsumeResult = 'ok' | 'expired' | 'used' | 'not-found';
export type NonceStats = { total: number; used: number; available: number; expired: number };

export interface NonceStore {
  /** Issues and records a fresh nonce at `now`. */
  create(now: number): Promise<string>;
  /** Validates and consumes: unused and ≤ 10 min → used ('ok'); too old → removed ('expired'). */
  consume(nonce: string, now: number): Promise<ConsumeResult>;
  /** Removes records older than the maximum age; returns how many. */
  cleanup(now: number): Promise<number>;
  stats(now: number): Promise<NonceStats>;
  close(): Promise<void>;
}

export function createMemoryNonceStore(): NonceStore {
  const records = new Map<string, { timestamp: number; used: boolean }>();
  return {
    async create(now) {
      const nonce = generateNonce();
      records.set(nonce, { timestamp: now, used: false });
      return nonce;
    },
    async consume(nonce, now) {
      const record = records.get(nonce);
      if (!record) return 'not-found';
      if (record.used) return 'used';
      if (now - record.timestamp > NONCE_MAX_AGE_MS) {
        records.delete(nonce);
        return 'expired';
      }
      record.used = true;
      return 'ok';
    },
    async cleanup(now) {
      let removed = 0;
      for (const [nonce, record] of records) {
        if (now - record.timestamp > NONCE_MAX_AGE_MS) {
          records.delete(nonce);
          removed += 1;
        }
      }
      return removed;
    },
    async stats(now) {
      let used = 0;
      let expired = 0;
      for (const record of records.values()) {
        if (record.used) used += 1;
        else if (now - record.timestamp > NONCE_MAX_AGE_MS) expired += 1;
      }
      return { total: records.size, used, expired, available: records.size - used - expired };
    },
    async close() {
      records.clear();
    },
  };
}

// KEYS[1] = the nonce's record; ARGV[1] = now (ms); ARGV[2] = max age (ms).
// The record is "<timestamp>:<0|1>"; it expires by itself a cleanup interval after its max age.
const CONSUME = `
local record = redis.call('GET', KEYS[1])
if not record then return 'not-found' end
local sep = string.find(record, ':')
local timestamp = tonumber(string.sub(record, 1, sep - 1))
if string.sub(record, sep + 1) == '1' then return 'used' end
if tonumber(ARGV[1]) - timestamp > tonumber(ARGV[2]) then
  redis.call('DEL', KEYS[1])
  return 'expired'
end
redis.call('SET', KEYS[1], timestamp .. ':1', 'KEEPTTL')
return 'ok'`;

export function createRedisNonceStore(url: string, options: { prefix?: string } = {}): NonceStore {
  const prefix = options.prefix ?? 'siwe-api:nonce:';
  const redis = new Redis(url, { maxRetriesPerRequest: 1, commandTimeout: 2000, connectTimeout: 2000 });
  redis.on('error', () => {});
  const ttlMs = NONCE_MAX_AGE_MS + NONCE_CLEANUP_INTERVAL_MS;
  const scan = async () => {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`, 'COUNT', 500);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
    return keys;
  };
  const readAll = async () => {
    const keys = await scan();
    const values = keys.length ? await redis.mget(keys) : [];
    return keys
      .map((key, i) => ({ key, value: values[i] }))
      .filter((r): r is { key: string; value: string } => typeof r.value === 'string');
  };
  return {
    async create(now) {
      const nonce = generateNonce();
      await redis.set(prefix + nonce, `${now}:0`, 'PX', ttlMs);
      return nonce;
    },
    async consume(nonce, now) {
      return (await redis.eval(CONSUME, 1, prefix + nonce, now, NONCE_MAX_AGE_MS)) as ConsumeResult;
    },
    async cleanup(now) {
      const stale = (await readAll())
        .filter(({ value }) => now - Number(value.split(':')[0]) > NONCE_MAX_AGE_MS)
        .map((r) => r.key);
      if (stale.length) await redis.del(...stale);
      return stale.length;
    },
    async stats(now) {
      const records = await readAll();
      let used = 0;
      let expired = 0;
      for (const { value } of records) {
        const [timestamp, flag] = value.split(':');
        if (flag === '1') used += 1;
        else if (now - Number(timestamp) > NONCE_MAX_AGE_MS) expired += 1;
      }
      return { total: records.length, used, expired, available: records.length - used - expired };
    },
    async close() {
      redis.disconnect();
    },
  };
}
