/**
 * Response headers for a login server. Pages get a strict Content-Security-Policy: scripts
 * and styles only from this origin (no inline code, no eval), no framing, forms only to
 * this origin and to the redirect URI's origin (browsers apply form-action to the redirects
 * that follow a form post, and the sign-in ends at the client).
 */
import type { Context, Middleware } from 'koa';

export type Security = {
  /** Baseline headers on every response. */
  middleware: Middleware;
  /** The CSP of a page whose form flow may end at `redirectUri`. */
  pageHeaders(ctx: Context, redirectUri?: string): void;
};

/** What the security middleware reads of oidc-provider's request context. */
type OidcContextView = {
  client?: { redirectUris?: string[]; postLogoutRedirectUris?: string[] };
  entities?: { Interaction?: { params?: { redirect_uri?: string } } };
};

const originOf = (uri?: unknown) => {
  if (typeof uri !== 'string') return undefined;
  try {
    return new URL(uri).origin;
  } catch {
    return undefined;
  }
};

/** What WalletConnect's relay, RPC and verify service need, allowed only when it is configured. */
export const WALLETCONNECT_SOURCES = {
  connect: [
    'wss://relay.walletconnect.com',
    'wss://relay.walletconnect.org',
    'https://rpc.walletconnect.com',
    'https://rpc.walletconnect.org',
    'https://pulse.walletconnect.org',
  ],
  frame: ['https://verify.walletconnect.com', 'https://verify.walletconnect.org'],
};

export function createSecurity(
  options: {
    connectSources?: string[];
    imageSources?: string[];
    frameSources?: string[];
    /** Send Strict-Transport-Security (the issuer is https). */
    hsts?: boolean;
  } = {},
): Security {
  const csp = (formTargets: string[]) =>
    [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      `img-src 'self' data: ${(options.imageSources ?? []).join(' ')}`.trim(),
      `connect-src 'self' ${(options.connectSources ?? []).join(' ')}`.trim(),
      `form-action 'self' ${formTargets.join(' ')}`.trim(),
      ...(options.frameSources?.length ? [`frame-src ${options.frameSources.join(' ')}`] : []),
      "frame-ancestors 'none'",
      "base-uri 'none'",
      "object-src 'none'",
    ].join('; ');

  const baseHeaders: Record<string, string> = {
    'Content-Security-Policy': csp([]),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    ...(options.hsts ? { 'Strict-Transport-Security': 'max-age=31536000; includeSubDomains' } : {}),
  };

  return {
    middleware: async (ctx, next) => {
      // Set before the route runs, so refusals thrown on the way (a rate limit, an outage) carry
      // them too; and oidc-provider adds the hash of its auto-submitting pages' script
      // (form_post, the logout before an account switch) to an existing policy only.
      ctx.set(baseHeaders);
      await next();
      // The header read directly from Node's response: type-is's parse of it (ctx.response.is)
      // cost ~4 µs a request, and Koa's ctx.response.get copies every header first.
      if (
        String(ctx.res.getHeader('content-type') ?? '')
          .toLowerCase()
          .startsWith('text/html')
      ) {
        ctx.set('X-Frame-Options', 'DENY');
        const policy = ctx.response.get('Content-Security-Policy');
        if (policy.includes("'sha256-")) {
          // Such a page posts (or is redirected) to the client: allow its registered origins.
          const oidc = (ctx as unknown as { oidc?: OidcContextView }).oidc;
          const targets = [
            ...(oidc?.client?.redirectUris ?? []),
            ...(oidc?.client?.postLogoutRedirectUris ?? []),
            oidc?.entities?.Interaction?.params?.redirect_uri,
          ];
          const origins = [...new Set(targets.map(originOf).filter(Boolean))];
          ctx.set(
            'Content-Security-Policy',
            policy.replace(/form-action 'self'[^;]*/, `form-action 'self' ${origins.join(' ')}`.trim()),
          );
        }
      }
    },
    pageHeaders(ctx, redirectUri) {
      const origin = originOf(redirectUri);
      ctx.set('Content-Security-Policy', csp(origin ? [origin] : []));
      ctx.set('X-Frame-Options', 'DENY');
      ctx.set('Cross-Origin-Opener-Policy', 'same-origin-allow-popups');
    },
  };
}
