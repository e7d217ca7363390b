/**
 * Fixed-window rate limits per client address, counted in the provider's storage: in
 * memory or SQLite for one process, in Redis shared by every replica. When the counter
 * store cannot be reached the limiter fails closed (503) unless RATE_LIMIT_FAIL_OPEN is set.
 */
import type { Context } from 'koa';
import type { Config } from './config.ts';
import { InteractionError } from './interaction/errors.ts';
import type { Logger } from './logger.ts';
import type { Metrics } from './metrics.ts';
import { StorageUnavailableError, type Store } from './storage/index.ts';

export type LimitBucket = 'interaction' | 'registration' | 'token';

export type RateLimits = {
  /** Throws InteractionError RATE_LIMITED (429) or STORAGE_UNAVAILABLE (503) when the request may not proceed. */
  check(ctx: Context, bucket: LimitBucket): Promise<void>;
};

export function createRateLimits(store: Store, config: Config, logger: Logger, metrics: Metrics): RateLimits {
  const { windowSeconds, failOpen } = config.rateLimits;
  return {
    async check(ctx, bucket) {
      const limit = config.rateLimits[bucket];
      if (limit === 0) return;
      const window = Math.floor(Date.now() / 1000 / windowSeconds);
      let count: number;
      try {
        count = await store.increment(`rl:${bucket}:${ctx.ip}:${window}`, windowSeconds);
      } catch (error) {
        if (failOpen) {
          logger.warn({ err: error, bucket }, 'rate-limit store unavailable; failing open (RATE_LIMIT_FAIL_OPEN)');
          return;
        }
        throw new InteractionError('STORAGE_UNAVAILABLE', 'the rate-limit store is unavailable; try again shortly', {
          cause: error instanceof StorageUnavailableError ? error : new StorageUnavailableError(String(error)),
        });
      }
      const remaining = Math.max(0, limit - count);
      ctx.set('RateLimit-Limit', String(limit));
      ctx.set('RateLimit-Remaining', String(remaining));
      if (count > limit) {
        const retryAfter = windowSeconds - (Math.floor(Date.now() / 1000) % windowSeconds);
        ctx.set('Retry-After', String(retryAfter));
        metrics.rateLimited(bucket);
        throw new InteractionError('RATE_LIMITED', `too many requests from this address; retry in ${retryAfter} s`);
      }
    },
  };
}
