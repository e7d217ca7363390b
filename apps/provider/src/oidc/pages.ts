/**
 * The pages oidc-provider renders itself, in Signet's layout: the sign-out confirmation, the
 * signed-out page (naming where a logout without an id_token_hint would lead) and error pages
 * (JSON for a program that asks for it).
 */
import type { Context } from 'koa';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import { html, layout, raw } from '../http/html.ts';
import { prefersJson } from '../http/negotiation.ts';
import type { Logger } from '../observability/logger.ts';
import { heldLogoutDestination } from '../redirects/logout.ts';

type Features = NonNullable<Configuration['features']>;

export function page(ctx: KoaContextWithOIDC, title: string, body: ReturnType<typeof html>, stylesheets: string[]) {
  ctx.type = 'html';
  ctx.body = layout({ title, body, stylesheets });
}

/** RP-initiated logout with Signet's two pages. */
export function logoutPages(options: {
  domain: string;
  endSessionPath: string;
  stylesheets: string[];
  pageHeaders(ctx: KoaContextWithOIDC, redirectUri?: string): void;
}): NonNullable<Features['rpInitiatedLogout']> {
  const { domain, endSessionPath, stylesheets, pageHeaders } = options;
  return {
    enabled: true,
    logoutSource: async (ctx, form) => {
      const client = ctx.oidc.client;
      // The confirmation form's redirect ends at the client's post_logout_redirect_uri.
      pageHeaders(ctx, ctx.oidc.params?.post_logout_redirect_uri as string | undefined);
      page(
        ctx,
        'Sign out',
        html`<main class="card narrow">
  <h1>Sign out of ${domain}?</h1>
  ${client ? html`<p>${client.clientName ?? client.clientId} asked to end your Signet session.</p>` : ''}
  ${raw(form)}
  <div class="actions">
    <button class="primary" type="submit" form="op.logoutForm" name="logout" value="yes" autofocus>Sign out</button>
    <button type="submit" form="op.logoutForm">Stay signed in</button>
  </div>
</main>`,
        stylesheets,
      );
    },
    postLogoutSuccessSource: async (ctx) => {
      // A logout request without an id_token_hint does not redirect: the page names where it would go.
      const destination = await heldLogoutDestination(ctx as unknown as Context, ctx.oidc.provider, endSessionPath);
      page(
        ctx,
        'Signed out',
        html`<main class="card narrow"><h1>You are signed out</h1>${
          destination
            ? html`<p>${destination.clientName ?? 'The site you came from'} asks to send you to <strong class="destination">${destination.host}</strong>. Continue only if you meant to sign out there.</p>
  <div class="actions"><a class="button primary" href="${destination.href}">Continue to ${destination.host}</a></div>`
            : html`<p>You can close this window.</p>`
        }</main>`,
        stylesheets,
      );
    },
  };
}

/** oidc-provider's error page: JSON for a program that reads the answer, Signet's page otherwise. */
export function errorPage(logger: Logger, stylesheets: string[]): NonNullable<Configuration['renderError']> {
  return async (ctx, out, error) => {
    logger.debug({ err: error, out }, 'rendered error page');
    // A program that reads the answer (Accept: application/json: `signet login`, a native app) gets it as JSON.
    if (prefersJson(ctx as unknown as Context)) {
      ctx.type = 'json';
      ctx.body = out;
      return;
    }
    const { error: code, error_description: description } = out as { error?: string; error_description?: string };
    page(
      ctx,
      'Sign-in error',
      html`<main class="card narrow" role="alert">
  <h1>Something went wrong</h1>
  <p>${description ?? 'The request could not be completed.'}</p>
  <p class="muted"><code>${code ?? 'server_error'}</code></p>
</main>`,
      stylesheets,
    );
  };
}
