/**
 * The route a request is for, as oidc-provider's router matches paths: every check in front of
 * oidc-provider (rate limits, the POST → GET rule, the redirect rules) compares these keys.
 */
/**
 * The route a path is served by, as oidc-provider's router matches it: ASCII case folded and
 * one trailing slash ignored (so /REG, /reg/ and /Reg/ are all the registration route). Route
 * checks in front of oidc-provider (rate limits, the POST → GET rule) compare these keys, so
 * no spelling of a path reaches a route while skipping its checks.
 */
export function routeKey(path: string): string {
  const folded = foldPath(path);
  return folded.length > 1 && folded.endsWith('/') ? folded.slice(0, -1) : folded;
}

const ASCII = /^[\x00-\x7f]*$/;

/** A path with its ASCII letters upper-cased, as oidc-provider's router compares paths. */
export const foldPath = (path: string) =>
  ASCII.test(path) ? path.toUpperCase() : path.replace(/[a-z]/g, (c) => c.toUpperCase());

/** routeKey of the request's current path, computed once per path per request. */
export function routeOf(ctx: { path: string; state: Record<string, unknown> }): string {
  const cached = ctx.state.routeKey as { path: string; key: string } | undefined;
  if (cached?.path === ctx.path) return cached.key;
  const key = routeKey(ctx.path);
  ctx.state.routeKey = { path: ctx.path, key };
  return key;
}
