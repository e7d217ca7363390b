import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { createLogger } from '../observability/logger.ts';
import { createMetrics } from '../observability/metrics.ts';
import { createMemoryStore, StorageUnavailableError } from '../storage/index.ts';
import { createRateLimits } from './rate-limits.ts';

const ctx = () => ({ ip: '203.0.113.7', set: () => {} }) as unknown as Context;

describe('rate limits when their counters cannot be reached', () => {
  const broken = { ...createMemoryStore(), increment: async () => Promise.reject(new StorageUnavailableError('Redis: down')) };

  it('fail closed by default: STORAGE_UNAVAILABLE (503)', async () => {
    const limits = createRateLimits(broken, loadConfig({}), createLogger('silent'), createMetrics());
    await expect(limits.check(ctx(), 'token')).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE', status: 503 });
  });

  it('fail open with RATE_LIMIT_FAIL_OPEN', async () => {
    const limits = createRateLimits(
      broken,
      loadConfig({ RATE_LIMIT_FAIL_OPEN: 'true' }),
      createLogger('silent'),
      createMetrics(),
    );
    await expect(limits.check(ctx(), 'token')).resolves.toBeUndefined();
  });

  it('count per client address and bucket', async () => {
    const limits = createRateLimits(
      createMemoryStore(),
      loadConfig({ RATE_LIMIT_TOKEN: '1', RATE_LIMIT_REGISTRATION: '1' }),
      createLogger('silent'),
      createMetrics(),
    );
    await limits.check(ctx(), 'token');
    await limits.check(ctx(), 'registration');
    await expect(limits.check(ctx(), 'token')).rejects.toMatchObject({ code: 'RATE_LIMITED', status: 429 });
  });
});
