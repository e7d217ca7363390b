/**
 * How `/account`'s routes (and the passkeys' on it: passkeys/account-routes.ts) answer: a change
 * comes from the provider's own origin (http/same-origin.ts) and counts in the interaction rate
 * limit; a read is rate-limited where it stores something; errors are `{ error, error_description }`.
 */
import type { Context } from 'koa';
import type { Provider } from 'oidc-provider';
import type { Config } from '../config.ts';
import { type HttpError, sendError, toHttpError } from '../errors.ts';
import type { RateLimits } from '../http/rate-limits.ts';
import { requireSameOrigin } from '../http/same-origin.ts';
import type { Logger } from '../observability/logger.ts';
import type { RevocationDeps } from '../relying-party/wallet-revocation.ts';
import type { Store } from '../storage/index.ts';
import type { SessionDeps } from './session.ts';

/** What was thrown, as an HttpError; anything else is a bug and propagates (a 500). */
export function httpErrorOf(error: unknown): HttpError {
  const known = toHttpError(error);
  if (!known) throw error;
  return known;
}

type Work = (ctx: Context) => Promise<void>;

export function accountHandlers(services: { config: { origin: string }; limits: RateLimits }) {
  /** Runs a change: same origin, rate limit, the work; errors as `{ error, error_description }`. */
  const change =
    (work: Work) =>
    async (ctx: Context): Promise<void> => {
      ctx.set('cache-control', 'no-store');
      try {
        requireSameOrigin(ctx, services.config.origin);
        await services.limits.check(ctx, 'interaction');
        await work(ctx);
      } catch (error) {
        sendError(ctx, httpErrorOf(error), { wire: 'code' });
      }
    };
  const read =
    (work: Work) =>
    async (ctx: Context): Promise<void> => {
      ctx.set('cache-control', 'no-store');
      try {
        await work(ctx);
      } catch (error) {
        sendError(ctx, httpErrorOf(error), { wire: 'code' });
      }
    };
  return { change, read };
}

type Deps = { config: Pick<Config, 'origin' | 'allowPrivateFetch'>; store: Store; logger: Logger; provider(): Provider };

/** What the account session needs (account-page/session.ts). */
export const sessionDepsOf = (services: Deps): SessionDeps => ({
  store: services.store,
  provider: services.provider,
  secure: services.config.origin.startsWith('https:'),
});

/** What ending a wallet's or passkey's sign-ins needs (relying-party/wallet-revocation.ts), with the current provider. */
export const revocationOf = (services: Deps): RevocationDeps => ({
  provider: services.provider(),
  store: services.store,
  logger: services.logger,
  allowPrivateFetch: services.config.allowPrivateFetch,
});
