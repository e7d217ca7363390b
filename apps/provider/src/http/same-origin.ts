/**
 * A change that must come from the provider's own pages (the person's account): a request whose
 * `Origin` is another origin (`null` included: a sandboxed frame, a redirect, a file) is refused
 * with 403 CROSS_ORIGIN_REQUEST; without `Origin`, the browser's `Sec-Fetch-Site: same-origin` is
 * required; a request with neither (a form from an old browser, a script outside a browser) is
 * refused too. No CORS headers are ever sent for these routes, so no other origin can read them.
 */
import type { Context } from 'koa';
import { HttpError } from '../errors.ts';

export function requireSameOrigin(ctx: Context, origin: string): void {
  const sent = ctx.get('origin');
  if (sent !== '') {
    if (sent !== origin) throw new HttpError('CROSS_ORIGIN_REQUEST', `a change to your account must come from ${origin} itself`);
    return;
  }
  if (ctx.get('sec-fetch-site') !== 'same-origin') {
    throw new HttpError('CROSS_ORIGIN_REQUEST', 'a change to your account must come from the provider’s own page');
  }
}
