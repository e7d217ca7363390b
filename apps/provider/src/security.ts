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

const originOf = (uri?: string) => {
  try {
    return uri ? new URL(uri).origin : undefined;
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
  options: { connectSources?: string[]; imageSources?: string[]; frameSources?: string[] } = {},
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

  return {
    middleware: async (ctx, next) => {
      await next();
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Referrer-Policy', 'no-referrer');
      if (ctx.response.is('html')) {
        ctx.set('X-Frame-Options', 'DENY');
        // oidc-provider's own auto-submitting pages set a CSP with their script's hash: keep it.
        if (!ctx.response.get('Content-Security-Policy')) ctx.set('Content-Security-Policy', csp([]));
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
