/**
 * Error redirects from the authorization endpoint follow only where this browser has signed in
 * to the client (RFC 9700 §4.11.2). Anyone may register a client with a redirect URI of their
 * choosing; an authorization request for it that fails (prompt=none without a session, an
 * unknown scope, a missing parameter) or that the person cancels would otherwise send the
 * browser from the provider's origin straight to that URI, which makes the provider an open
 * redirector for phishing. A client "used" by someone elsewhere proves nothing: its registrant
 * can sign in to it once themselves. So the standard redirect is given when this browser's
 * provider session holds a grant for the client, and for the operator's own clients (CLIENTS_FILE,
 * `signet clients add`). Otherwise the provider shows the error itself, names the host the client
 * would receive it at, and leaves the choice to the person: a link (or, for form_post, a button)
 * that delivers the same error response there. A successful sign-in is never held back.
 */
import type { Context, Middleware } from 'koa';
import type { KoaContextWithOIDC, Provider } from 'oidc-provider';
import type { ClientUsage } from '../clients/usage.ts';
import type { ProfileDefinition } from '../deployment/profiles.ts';
import { type Html, html, layout } from '../http/html.ts';
import { routeKey, routeOf } from '../http/route-key.ts';
import { sessionHoldsGrant } from './browser-session.ts';

export type UnusedClientPageOptions = {
  usage: ClientUsage;
  stylesheets: string[];
  /** Sets a page's headers, allowing its form to post to `action`'s origin. */
  pageHeaders(ctx: Context, action?: string): void;
};

/** The answer oidc-provider gave: a redirect, or an auto-submitting form (response_mode=form_post). */
type Delivery = { kind: 'redirect'; location: string } | { kind: 'form'; action: string; fields: [string, string][] };

const decode = (value: string) =>
  value.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_m, e: string) =>
    e === 'amp' ? '&' : e === 'lt' ? '<' : e === 'gt' ? '>' : e === 'quot' ? '"' : "'",
  );

function deliveryOf(ctx: Context): Delivery | undefined {
  const location = ctx.response.get('location');
  if ((ctx.status === 302 || ctx.status === 303) && location) return { kind: 'redirect', location };
  if (!ctx.response.is('html') || typeof ctx.body !== 'string') return undefined;
  const form = /<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/.exec(ctx.body);
  if (!form) return undefined;
  const fields = [...(form[2] as string).matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)"\/>/g)].map(
    ([, name, value]) => [decode(name as string), decode(value as string)] as [string, string],
  );
  return { kind: 'form', action: decode(form[1] as string), fields };
}

/** Wraps the authorization endpoint and its resume path. One per oidc-provider instance. */
export function unusedClientErrors(profile: ProfileDefinition, provider: Provider, options: UnusedClientPageOptions): Middleware {
  const authorization = routeKey(profile.routes.authorization);
  const resume = `${authorization}/`;
  const failed = new WeakMap<object, { error?: string; error_description?: string }>();
  provider.on('authorization.error', (ctx: object, error: { error?: string; error_description?: string }) =>
    failed.set(ctx, error),
  );
  provider.on('server_error', (ctx: object, error: Error) =>
    failed.set(ctx, { error: 'server_error', error_description: error.message }),
  );
  return (ctx, next) => {
    const route = routeOf(ctx);
    if (route !== authorization && !route.startsWith(resume)) return next();
    return next().then(async () => {
      const error = failed.get(ctx);
      const client = (ctx as unknown as KoaContextWithOIDC).oidc?.client;
      if (!error || !client) return;
      const delivery = deliveryOf(ctx);
      if (!delivery) return;
      if ((await options.usage.isOperatorClient(client.clientId)) || (await sessionHoldsGrant(ctx, provider, client.clientId))) {
        return;
      }
      const target = new URL(delivery.kind === 'redirect' ? delivery.location : delivery.action);
      const name = client.clientName;
      const code = error.error ?? 'server_error';
      ctx.remove('location');
      ctx.status = 400;
      ctx.set('cache-control', 'no-store');
      ctx.type = 'html';
      ctx.body = layout({
        title: 'Sign-in error',
        stylesheets: options.stylesheets,
        body: html`<main class="card narrow" aria-labelledby="title">
  <h1 id="title">${code === 'access_denied' ? 'Sign-in cancelled' : 'This sign-in cannot continue'}</h1>
  <p role="alert">${error.error_description ?? 'The request could not be completed.'}</p>
  <p>It came from ${name ? html`<strong>${name}</strong>, ` : ''}an app you have not signed in to from this browser. It would receive this answer at <strong class="destination">${target.host}</strong>.</p>
  <p>Go there only if you know and trust that site.</p>
  <div class="actions">${continueControl(delivery, target.host)}</div>
  <p class="muted"><code>${code}</code></p>
</main>`,
      });
      options.pageHeaders(ctx, delivery.kind === 'form' ? delivery.action : undefined);
    });
  };
}

function continueControl(delivery: Delivery, host: string): Html {
  if (delivery.kind === 'redirect') return html`<a class="button" href="${delivery.location}">Continue to ${host}</a>`;
  return html`<form method="post" action="${delivery.action}">
    ${delivery.fields.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
    <button type="submit">Continue to ${host}</button>
  </form>`;
}
