import type { Middleware } from 'koa';
import type { UnitOfWorkStore } from './unit-of-work.ts';

/**
 * Each request is one unit of storage work (storage/unit-of-work.ts): its writes are stored
 * together when the handlers are done and before Koa sends the answer, so a browser or client
 * that follows a redirect or uses a token always finds what the request stored. Mounted inside
 * the error boundary: a store that fails at that point answers 503, like any storage outage.
 */
export function unitOfWork(store: UnitOfWorkStore): Middleware {
  return (_ctx, next) => store.run(next);
}
