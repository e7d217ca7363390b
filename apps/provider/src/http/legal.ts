/**
 * The privacy policy and terms of use under /legal/ (advertised as op_policy_uri and
 * op_tos_uri). Operators supply their own text with LEGAL_PRIVACY_FILE / LEGAL_TERMS_FILE
 * (.html files are used as HTML, anything else as plain text); the defaults describe what
 * Signet itself stores and for how long.
 */
import type Router from '@koa/router';
import type { Config, LegalText } from '../config.ts';
import { html, layout, raw } from './html.ts';

export const LEGAL_PATHS = { privacy: '/legal/privacy', terms: '/legal/terms' } as const;

const defaultPrivacy = (config: Config): LegalText => ({
  format: 'text',
  content: `This sign-in service at ${config.domain} is operated by ${config.legal.operator}.

When you sign in, the service receives the Ethereum address you sign with, the chain you sign on, the sign-in message and its signature. It looks up the ENS name of the address for that chain, and the name's avatar and e-mail records, if any; for a name kept off-chain, this asks the gateways the name's resolver names (they see which name is looked up).

It gives the websites you sign in to what they ask for and you approve by signing: your account identifier (chain and address, or a per-site identifier), your ENS name and avatar, and, if asked, the signed message.

It keeps your sign-in session for 24 hours, what a website was granted for 24 hours, and tokens for at most 24 hours. ENS lookups are cached for up to one hour. Logs record sign-in outcomes and account identifiers, never signatures or secrets.

No cookies are used other than those needed for the sign-in itself.`,
});

const defaultTerms = (config: Config): LegalText => ({
  format: 'text',
  content: `This sign-in service at ${config.domain} is operated by ${config.legal.operator}.

It lets you prove control of an Ethereum account to websites by signing a message. Signing a sign-in message is not a transaction: it moves no funds and costs no gas. Read each message before you sign it; it names the website, this service and a one-time code.

The service is provided as is, without warranty. Websites that use it are responsible for their own services and for how they use the identifiers they receive.`,
});

function render(title: string, text: LegalText) {
  const body =
    text.format === 'html'
      ? raw(text.content)
      : html`${text.content
          .split(/\n\s*\n/)
          .map((paragraph) => paragraph.trim())
          .filter(Boolean)
          .map((paragraph) => html`<p>${paragraph}</p>`)}`;
  return { title, body };
}

export function legalRoutes(router: Router, config: Config, stylesheets: string[]) {
  const pages = {
    [LEGAL_PATHS.privacy]: render('Privacy policy', config.legal.privacy ?? defaultPrivacy(config)),
    [LEGAL_PATHS.terms]: render('Terms of use', config.legal.terms ?? defaultTerms(config)),
  };
  for (const [path, page] of Object.entries(pages)) {
    const document = layout({
      title: page.title,
      stylesheets,
      body: html`<main class="card legal"><h1>${page.title}</h1>${page.body}</main>`,
    });
    router.get(path, (ctx) => {
      ctx.type = 'html';
      ctx.set('cache-control', 'public, max-age=3600');
      ctx.body = document;
    });
  }
}
