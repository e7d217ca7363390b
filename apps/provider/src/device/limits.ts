/**
 * The limits on entering user codes (RFC 8628 §5.1, §5.2), beyond the per-address budget of the
 * `device` rate-limit bucket (RATE_LIMIT_DEVICE, http/rate-limits.ts):
 *
 * - lockout: an address (an IPv4 address, an IPv6 /64) that enters WRONG_CODES codes matching no
 *   device code within LOCKOUT_SECONDS is refused every code for LOCKOUT_SECONDS (429 with
 *   Retry-After): whoever guesses gets at most about ten guesses in a code's ten-minute life;
 * - per code: one code may be entered TRIES_PER_CODE times in its life (the entry, its
 *   confirmation, a reload): a code someone spreads cannot be hammered.
 *
 * Counted in the provider's storage (shared by replicas); an unreachable store fails closed
 * (503) unless RATE_LIMIT_FAIL_OPEN.
 */
import { createHash } from 'node:crypto';
import { createRateLimiter, type RateLimiter, rateLimitKey } from '@signet/ratelimit';
import type { Context } from 'koa';
import { TTL } from '../deployment/lifetimes.ts';
import { HttpError } from '../errors.ts';
import { StorageUnavailableError, type Store } from '../storage/index.ts';

export const DEVICE_LIMITS = {
  /** Wrong codes from one address before it is locked out. */
  wrongCodes: 5,
  /** How long the wrong codes are remembered, and how long the lockout lasts. */
  lockoutSeconds: 15 * 60,
  /** Entries of one user code in its life. */
  triesPerCode: 10,
} as const;

export type DeviceLimits = {
  /**
   * Throws HttpError RATE_LIMITED (429, with retryAfter) when this address is locked out or
   * this code was entered too often (the try is counted), STORAGE_UNAVAILABLE when the counters
   * cannot be read.
   */
  admit(ctx: Context, normalizedCode: string): Promise<void>;
  /** Counts a code that matched no device code against the address; the last allowed one locks it. */
  wrongCode(ctx: Context): Promise<void>;
};

const digest = (value: string) => createHash('sha256').update(value).digest('base64url').slice(0, 22);

export function createDeviceLimits(store: Store, options: { failOpen: boolean; now?: () => number }): DeviceLimits {
  const now = options.now ?? Date.now;
  const perCode: RateLimiter = createRateLimiter({
    limit: DEVICE_LIMITS.triesPerCode,
    windowSeconds: TTL.DeviceCode,
    store,
    prefix: 'rl:device-code:',
    now,
  });
  const lockKey = (ctx: Context) => `rl:device-lock:${rateLimitKey(ctx.ip)}`;
  const wrongKey = (ctx: Context) => `rl:device-wrong:${rateLimitKey(ctx.ip)}`;

  /** Runs a counter operation; an unreachable store refuses (503) unless RATE_LIMIT_FAIL_OPEN. */
  async function counted<T>(operation: () => Promise<T>): Promise<T | undefined> {
    try {
      return await operation();
    } catch (error) {
      if (options.failOpen) return undefined;
      throw new HttpError('STORAGE_UNAVAILABLE', 'the rate-limit store is unavailable; try again shortly', {
        cause: error instanceof StorageUnavailableError ? error : new StorageUnavailableError(String(error)),
        retryAfter: 5,
      });
    }
  }

  return {
    async admit(ctx, normalizedCode) {
      const until = Number(await counted(() => store.get(lockKey(ctx))));
      const left = Math.ceil((until - now()) / 1000);
      if (left > 0) {
        throw new HttpError('RATE_LIMITED', `too many wrong codes from this network; try again in ${Math.ceil(left / 60)} min`, {
          retryAfter: left,
        });
      }
      if (!normalizedCode) return;
      const tried = await counted(() => perCode(digest(normalizedCode)));
      if (tried && !tried.allowed) {
        throw new HttpError('RATE_LIMITED', 'this code was entered too many times; start again on your device', {
          retryAfter: tried.retryAfter,
        });
      }
    },
    async wrongCode(ctx) {
      const count = await counted(() => store.increment(wrongKey(ctx), DEVICE_LIMITS.lockoutSeconds));
      if (count !== undefined && count >= DEVICE_LIMITS.wrongCodes) {
        const until = now() + DEVICE_LIMITS.lockoutSeconds * 1000;
        await counted(async () => {
          await store.set(lockKey(ctx), String(until), DEVICE_LIMITS.lockoutSeconds);
          await store.delete(wrongKey(ctx));
        });
      }
    },
  };
}
