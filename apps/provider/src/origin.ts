/**
 * The provider's public origin is ISSUER, never what a request says. oidc-provider builds every
 * URL it publishes (discovery, registration_client_uri, redirects to the interaction) from
 * Koa's `ctx.href`, which Koa derives from the Host header, X-Forwarded-Host (with
 * TRUST_PROXY) or an absolute request target (`GET http://evil.example/… HTTP/1.1`). This
 * middleware, the first of all, pins `origin`, `host`, `hostname` and `href` to the issuer so
 * none of those can become a published URL, and so responses are safe to keep in shared caches.
 * (The protocol is left alone: with TRUST_PROXY it still tells whether the client used https.)
 */
import type { Middleware } from 'koa';

export function pinIssuerOrigin(baseUrl: string): Middleware {
  const issuer = new URL(baseUrl);
  return async (ctx, next) => {
    Object.defineProperties(ctx.request, {
      origin: { value: issuer.origin, configurable: true },
      host: { value: issuer.host, configurable: true },
      hostname: { value: issuer.hostname, configurable: true },
      href: { get: () => `${issuer.origin}${ctx.path}${ctx.search}`, configurable: true },
    });
    await next();
  };
}
