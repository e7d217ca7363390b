/**
 * oidc-provider's device flow (RFC 8628), configured with Signet's pages. oidc-provider keeps
 * the grant itself: the device authorization endpoint, the user code lookup at `/device` (with
 * its own CSRF token in the provider session), the device code's one `inFlight` step, the
 * interaction, the resume at `/device/<uid>` and the polling at the token endpoint. Signet gives
 * it the pages (pages.ts) and, in front of it, the limits and the atomic claim (entry.ts), the
 * polling pace (polling.ts) and the fresh-signature rule (policy.ts).
 *
 * User codes are oidc-provider's default: 8 characters of the base-20 alphabet
 * BCDFGHJKLMNPQRSTVWXZ (no vowels, no look-alikes), shown as `BCDF-GHJK`: 20^8 ≈ 2.6 × 10^10
 * codes, 34.6 bits. What that is worth against guessing, under the entry limits, is worked out
 * in docs/security.md ("Sign in from another device").
 */
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import { clientFields } from '../clients/rules.ts';
import type { Config } from '../config.ts';
import { type ClientView, cancelledPage, confirmPage, type EntryProblem, entryPage } from './pages.ts';
import { DEVICE_SUCCESS_PATH, normalizeUserCode } from './paths.ts';

/** The user-code alphabet and layout (oidc-provider's defaults, named here so they are decided). */
export const USER_CODE = { charset: 'base-20', mask: '****-****' } as const;

/** What the entry middleware (entry.ts) and the pages tell each other through `ctx.state`. */
export type DeviceState = {
  /** A user code that arrived in the URL (verification_uri_complete), taken out of the query. */
  deviceLinkCode?: string;
  /** This request entered a code that matches no device code (counted toward the lockout). */
  deviceWrongCode?: boolean;
};

type PageDependencies = {
  config: Pick<Config, 'domain'>;
  stylesheets: string[];
  /** The page's security headers (strict CSP). */
  pageHeaders(ctx: KoaContextWithOIDC): void;
};

/** A normalized code laid out as the device shows it (the mask's dashes back in). */
export function displayUserCode(normalized: string): string {
  const chars = [...normalized];
  const count = USER_CODE.mask.split('*').length - 1;
  if (chars.length !== count) return normalized;
  return [...USER_CODE.mask].map((c) => (c === '*' ? chars.shift() : c)).join('');
}

/** oidc-provider's re-render errors (helpers/re_render_errors.js) and its CSRF refusal, as problems for a person. */
function problemOf(err: (Error & { error?: string; error_description?: string }) | undefined): EntryProblem | undefined {
  if (!err) return undefined;
  switch (err.name) {
    case 'NotFoundError':
      return 'wrong';
    case 'ExpiredError':
      return 'expired';
    case 'AlreadyUsedError':
      return 'used';
    case 'NoCodeError':
      return 'missing';
    default:
      if (err.error === 'invalid_request' && /xsrf|device form/.test(err.error_description ?? '')) return 'form';
      return 'failed';
  }
}

const viewOf = (client: { clientId: string }): ClientView => {
  const fields = clientFields(client);
  return {
    client_id: client.clientId,
    ...(typeof fields.client_name === 'string' ? { client_name: fields.client_name } : {}),
    ...(typeof fields.client_uri === 'string' ? { client_uri: fields.client_uri } : {}),
  };
};

type DeviceInfo = { ip?: string; ua?: string };
const deviceInfoOf = (info: unknown): DeviceInfo => {
  const { ip, ua } = (info ?? {}) as Record<string, unknown>;
  return { ...(typeof ip === 'string' ? { ip } : {}), ...(typeof ua === 'string' && ua ? { ua } : {}) };
};

/**
 * oidc-provider's `expiresWithSession` (tokens without `offline_access` die with the provider
 * session that made them), except for a device sign-in: the session is the browser of the phone
 * or laptop the person signed on, not the device's, and signing out there (or another account
 * signing in there, which signs the first one out) must not sign the TV out.
 */
export async function expiresWithSession(_ctx: unknown, source: { kind?: string; scopes: Set<string> }): Promise<boolean> {
  return source.kind !== 'DeviceCode' && !source.scopes.has('offline_access');
}

export function deviceFlowFeature(deps: PageDependencies): NonNullable<Configuration['features']>['deviceFlow'] {
  const { stylesheets } = deps;
  const domain = deps.config.domain;
  const send = (ctx: KoaContextWithOIDC, status: number, body: string) => {
    ctx.status = status;
    ctx.type = 'html';
    ctx.set('cache-control', 'no-store');
    ctx.body = body;
    deps.pageHeaders(ctx);
  };
  const action = (ctx: KoaContextWithOIDC) => ctx.oidc.urlFor('code_verification');
  const xsrf = (ctx: KoaContextWithOIDC) => String((ctx.oidc.session?.state as { secret?: string } | undefined)?.secret ?? '');

  /** A code from the link: shown for confirmation when it is live, refused in words otherwise. */
  async function linked(ctx: KoaContextWithOIDC, code: string) {
    const normalized = normalizeUserCode(code);
    const found = normalized
      ? await ctx.oidc.provider.DeviceCode.findByUserCode(normalized, { ignoreExpiration: true })
      : undefined;
    const stored = found as (typeof found & { error?: string; inFlight?: boolean; deviceInfo?: unknown }) | undefined;
    let problem: EntryProblem | undefined;
    if (!normalized) problem = 'missing';
    else if (!stored) problem = 'wrong';
    else if (stored.isExpired) problem = 'expired';
    else if (stored.error || stored.accountId || stored.inFlight) problem = 'used';
    const client = stored && !problem ? await ctx.oidc.provider.Client.find(String(stored.clientId)) : undefined;
    if (!stored || problem !== undefined || !client) {
      if (problem === 'wrong') (ctx.state as DeviceState).deviceWrongCode = true;
      send(
        ctx,
        400,
        entryPage({ stylesheets, domain, action: action(ctx), xsrf: xsrf(ctx), code, problem: problem ?? 'failed' }),
      );
      return;
    }
    send(
      ctx,
      200,
      confirmPage({
        stylesheets,
        domain,
        action: action(ctx),
        xsrf: xsrf(ctx),
        userCode: displayUserCode(normalized),
        client: viewOf(client),
        fromLink: true,
        device: deviceInfoOf(stored.deviceInfo),
      }),
    );
  }

  return {
    enabled: true,
    ...USER_CODE,
    async userCodeInputSource(ctx, _form, _out, err) {
      const state = ctx.state as DeviceState;
      if (!err && state.deviceLinkCode !== undefined) return linked(ctx, state.deviceLinkCode);
      if (err?.name === 'AbortedError') {
        send(ctx, 200, cancelledPage({ stylesheets, domain }));
        return;
      }
      const problem = problemOf(err as Error | undefined);
      if (problem === 'wrong') state.deviceWrongCode = true;
      const code = (err as { userCode?: string } | undefined)?.userCode;
      // A code that is wrong, expired or used, or a form that is stale: 400 with words. A fault
      // of the provider keeps its own status (oidc-provider set it from the error).
      const status = problem === undefined ? 200 : problem === 'failed' && ctx.status >= 500 ? ctx.status : 400;
      send(ctx, status, entryPage({ stylesheets, domain, action: action(ctx), xsrf: xsrf(ctx), code, problem }));
    },
    async userCodeConfirmSource(ctx, _form, client, deviceInfo, userCode) {
      send(
        ctx,
        200,
        confirmPage({
          stylesheets,
          domain,
          action: action(ctx),
          xsrf: xsrf(ctx),
          userCode,
          client: viewOf(client),
          fromLink: false,
          device: deviceInfoOf(deviceInfo),
        }),
      );
    },
    async successSource(ctx) {
      ctx.set('cache-control', 'no-store');
      ctx.status = 303;
      const client = ctx.oidc.client?.clientId;
      ctx.redirect(`${DEVICE_SUCCESS_PATH}${client ? `?client_id=${encodeURIComponent(client)}` : ''}`);
    },
  };
}
