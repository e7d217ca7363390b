/**
 * The provider's public origin is ISSUER, never what a request says. oidc-provider builds every
 * URL it publishes (discovery, registration_client_uri, redirects to the interaction) from
 * Koa's `ctx.href`, which Koa derives from the Host header, X-Forwarded-Host (with
 * TRUST_PROXY) or an absolute request target (`GET http://evil.example/… HTTP/1.1`). This
 * pins `origin`, `host`, `hostname` and `href` to the issuer on the app's request prototype so
 * none of those can become a published URL, and so responses are safe to keep in shared caches.
 * (The protocol is left alone: with TRUST_PROXY it still tells whether the client used https.)
 */
import type Koa from 'koa';

/**
 * Pins the app's request prototype, once: every request of `app` then reports the issuer's
 * origin, host, hostname and href whatever it says (no per-request work).
 */
export function pinIssuerOrigin(app: Koa, baseUrl: string): void {
  const issuer = new URL(baseUrl);
  Object.defineProperties(app.request, {
    origin: { value: issuer.origin, configurable: true },
    host: { value: issuer.host, configurable: true },
    hostname: { value: issuer.hostname, configurable: true },
    href: {
      get(this: Koa.Request) {
        return `${issuer.origin}${this.path}${this.search}`;
      },
      configurable: true,
    },
  });
}
