/**
 * Fixed-window rate limits per client address (@signet/ratelimit), counted in the provider's
 * storage: in memory or SQLite for one process, in Redis shared by every replica. When the
 * counters cannot be reached the limiter fails closed (503) unless RATE_LIMIT_FAIL_OPEN is set.
 * The client address is the socket's, or X-Forwarded-For's only with TRUST_PROXY (Koa's ctx.ip);
 * budgets are per IPv4 address and per IPv6 /64.
 */
import { createRateLimiter, type RateLimiter, rateLimitKey } from '@signet/ratelimit';
import type { Context } from 'koa';
import type { Config } from '../config.ts';
import { HttpError } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import { StorageUnavailableError, type Store } from '../storage/index.ts';

export type LimitBucket = 'authorization' | 'interaction' | 'registration' | 'token' | 'device';

export type RateLimits = {
  /** Throws HttpError RATE_LIMITED (429) or STORAGE_UNAVAILABLE (503) when the request may not proceed. */
  check(ctx: Context, bucket: LimitBucket): Promise<void>;
};

export function createRateLimits(store: Store, config: Config, logger: Logger, metrics: Metrics): RateLimits {
  const { windowSeconds, failOpen } = config.rateLimits;
  const limiters = new Map<LimitBucket, RateLimiter>();
  for (const bucket of ['authorization', 'interaction', 'registration', 'token', 'device'] as const) {
    const limit = config.rateLimits[bucket];
    if (limit > 0) limiters.set(bucket, createRateLimiter({ limit, windowSeconds, store, prefix: `rl:${bucket}:` }));
  }
  return {
    async check(ctx, bucket) {
      const limiter = limiters.get(bucket);
      if (!limiter) return;
      let result: Awaited<ReturnType<RateLimiter>>;
      try {
        result = await limiter(rateLimitKey(ctx.ip));
      } catch (error) {
        if (failOpen) {
          logger.warn({ err: error, bucket }, 'rate-limit store unavailable; failing open (RATE_LIMIT_FAIL_OPEN)');
          return;
        }
        throw new HttpError('STORAGE_UNAVAILABLE', 'the rate-limit store is unavailable; try again shortly', {
          cause: error instanceof StorageUnavailableError ? error : new StorageUnavailableError(String(error)),
          retryAfter: 5,
        });
      }
      ctx.set('RateLimit-Limit', String(result.limit));
      ctx.set('RateLimit-Remaining', String(result.remaining));
      if (!result.allowed) {
        metrics.rateLimited(bucket);
        throw new HttpError('RATE_LIMITED', `too many requests from this address; retry in ${result.retryAfter} s`, {
          retryAfter: result.retryAfter,
        });
      }
    },
  };
}
