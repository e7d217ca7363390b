/**
 * Koa's content negotiation (`ctx.is`, `ctx.accepts`) parses the request's header on every call:
 * a few microseconds each, several times a request. The spellings clients actually send are
 * looked up here first, with the answer Koa would give; anything else goes to Koa unchanged.
 */
import type { Context } from 'koa';

/** Content-Type headers as sent by fetch, curl, browsers and OIDC client libraries, by media type. */
const COMMON_CONTENT_TYPES = new Map([
  ['application/json', 'application/json'],
  ['application/json; charset=utf-8', 'application/json'],
  ['application/json;charset=utf-8', 'application/json'],
  ['application/json; charset=UTF-8', 'application/json'],
  ['application/json;charset=UTF-8', 'application/json'],
  ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
  ['application/x-www-form-urlencoded;charset=UTF-8', 'application/x-www-form-urlencoded'],
  ['application/x-www-form-urlencoded; charset=UTF-8', 'application/x-www-form-urlencoded'],
  ['application/x-www-form-urlencoded;charset=utf-8', 'application/x-www-form-urlencoded'],
  ['application/x-www-form-urlencoded; charset=utf-8', 'application/x-www-form-urlencoded'],
] as const);

/** type-is' rule: a request has a body when it names a transfer-encoding or a numeric content-length. */
const hasBody = (headers: Context['req']['headers']) =>
  headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(headers['content-length']));

/** Whether the request carries a body of this media type: `Boolean(ctx.is(type))`. */
export function bodyIs(ctx: Context, type: 'application/json' | 'application/x-www-form-urlencoded'): boolean {
  const header = ctx.req.headers['content-type'];
  if (header === undefined) return false;
  const known = COMMON_CONTENT_TYPES.get(header as never);
  if (known !== undefined) return known === type && hasBody(ctx.req.headers);
  return Boolean(ctx.is(type));
}

/** Whether the client prefers JSON to HTML: `ctx.accepts('html', 'json') === 'json'`. */
export function prefersJson(ctx: Context): boolean {
  const accept = ctx.req.headers.accept;
  // No Accept header: the first type offered (html). Exactly JSON: only json is acceptable.
  if (accept === undefined) return false;
  if (accept === 'application/json') return true;
  return ctx.accepts('html', 'json') === 'json';
}
