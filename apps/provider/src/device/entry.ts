/**
 * In front of oidc-provider's code verification route (`/device`, every spelling of it): every
 * user code that arrives, typed (`POST`) or in a link (`GET ?user_code=`, RFC 8628's
 * verification_uri_complete), passes the limits first (limits.ts: the lockout, the `device`
 * budget per address, the tries per code); a confirmation or a cancellation then claims the code
 * atomically, so that of two at once, on this replica or another, exactly one goes on.
 *
 * oidc-provider marks a confirmed code `inFlight` itself, but it reads the code and writes the
 * mark apart (and the write waits for the end of the request): two confirmations read together
 * would both start a sign-in for one device. The claim (SET NX, `device:claim:<code>`) closes
 * that; the loser gets 400 "already used". A request that claimed but did not get the code
 * started (a stale form, an unknown code) releases its claim.
 *
 * A code in the link is taken out of the query before oidc-provider sees it (it would post it
 * back at once with an auto-submitting page): Signet's page shows it for confirmation instead
 * (flow.ts).
 */
import { createHash } from 'node:crypto';
import parseBody from 'co-body';
import type { Context, Middleware } from 'koa';
import type { Config } from '../config.ts';
import { TTL } from '../deployment/lifetimes.ts';
import type { ProfileDefinition } from '../deployment/profiles.ts';
import { type HttpError, sendError, toHttpError } from '../errors.ts';
import { bodyIs } from '../http/negotiation.ts';
import type { RateLimits } from '../http/rate-limits.ts';
import { routeKey, routeOf } from '../http/route-key.ts';
import { replaceBody } from '../relying-party/token-requests.ts';
import type { Store } from '../storage/index.ts';
import type { DeviceState } from './flow.ts';
import type { DeviceLimits } from './limits.ts';
import { problemWords, refusalPage } from './pages.ts';
import { normalizeUserCode } from './paths.ts';

/** oidc-provider's own limit on a request body. */
const BODY_LIMIT = 56 * 1024;

/**
 * oidc-provider's error page for `/device` and `/device/<uid>` writes a new CSRF token into the
 * provider session after its session middleware has finished; for a browser with no stored
 * session (no cookie, cookies blocked, a session expired) it then fails to save it, a 500. That
 * browser is told to start from the code page instead.
 */
const unsavedSession = (error: unknown) =>
  error instanceof TypeError && /persist can only be called on previously persisted Sessions/.test(error.message);

type EntryDependencies = {
  config: Pick<Config, 'domain'>;
  store: Store;
  /** The per-address `device` bucket. */
  limits: RateLimits;
  device: DeviceLimits;
  stylesheets: string[];
  /** The page's security headers (strict CSP). */
  pageHeaders(ctx: Context): void;
};

const claimKey = (normalized: string) =>
  `device:claim:${createHash('sha256').update(normalized).digest('base64url').slice(0, 22)}`;

/** A 400 page of the code entry's own (no-store), in place of what oidc-provider would answer. */
function answerWithPage(ctx: Context, deps: EntryDependencies, action: string, title: string, words: string) {
  ctx.status = 400;
  ctx.type = 'html';
  ctx.set('cache-control', 'no-store');
  ctx.body = refusalPage({ stylesheets: deps.stylesheets, domain: deps.config.domain, action, title, words });
  deps.pageHeaders(ctx);
}

/** A code entry the limits refused: OAuth's error for a program, a page for a person. */
function refuse(ctx: Context, deps: EntryDependencies, action: string, error: HttpError) {
  const locked = error.code === 'RATE_LIMITED';
  sendError(ctx, error, {
    wire: 'oauth',
    page: () =>
      refusalPage({
        stylesheets: deps.stylesheets,
        domain: deps.config.domain,
        action,
        title: locked ? 'Too many tries' : 'Try again in a moment',
        words: locked
          ? `${error.message[0]?.toUpperCase()}${error.message.slice(1)}.`
          : 'The sign-in service is having trouble. Try again in a moment.',
      }),
  });
  deps.pageHeaders(ctx);
}

/** The code page's and the device resume's answer when the browser has no provider session. */
async function sessionless(ctx: Context, deps: EntryDependencies, action: string, work: () => Promise<unknown>) {
  try {
    await work();
  } catch (error) {
    if (!unsavedSession(error)) throw error;
    answerWithPage(
      ctx,
      deps,
      action,
      'Start again',
      `${problemWords('form')} (This browser had no sign-in session with ${deps.config.domain}: cookies may be blocked.)`,
    );
  }
}

export function deviceEntry(profile: ProfileDefinition, deps: EntryDependencies): Middleware {
  const route = routeKey(profile.routes.code_verification);
  const action = profile.routes.code_verification;

  /** The limits for one entered code; false when the request was answered (refused). */
  async function admitted(ctx: Context, normalized: string): Promise<boolean> {
    try {
      await deps.device.admit(ctx, normalized);
      await deps.limits.check(ctx, 'device');
      return true;
    } catch (error) {
      const known = toHttpError(error);
      if (!known) throw error;
      refuse(ctx, deps, action, known);
      return false;
    }
  }

  /** After oidc-provider: a code that matched nothing counts toward the address's lockout. */
  async function countWrong(ctx: Context) {
    if ((ctx.state as DeviceState).deviceWrongCode) await deps.device.wrongCode(ctx);
  }

  async function fromLink(ctx: Context, next: () => Promise<unknown>, code: string) {
    if (!(await admitted(ctx, normalizeUserCode(code)))) return;
    const query = new URLSearchParams(ctx.querystring);
    query.delete('user_code');
    ctx.querystring = query.toString();
    (ctx.state as DeviceState).deviceLinkCode = code;
    await next();
    await countWrong(ctx);
  }

  async function entered(ctx: Context, next: () => Promise<unknown>) {
    let text: string;
    try {
      text = await parseBody.text(ctx, { limit: BODY_LIMIT });
    } catch (error) {
      ctx.status = (error as { status?: number }).status === 413 ? 413 : 400;
      ctx.body = { error: 'invalid_request', error_description: 'failed to parse the request body' };
      return;
    }
    replaceBody(ctx.req, text);
    const params = new URLSearchParams(text);
    const code = params.get('user_code');
    if (code === null) return next();
    const normalized = normalizeUserCode(code);
    if (!(await admitted(ctx, normalized))) return;
    const decides = params.has('confirm') || params.has('abort');
    const key = claimKey(normalized);
    if (decides && normalized) {
      if (!(await deps.store.setIfAbsent(key, '1', TTL.DeviceCode + 60))) {
        answerWithPage(ctx, deps, action, 'Code already used', problemWords('used'));
        return;
      }
    }
    let started = false;
    try {
      await next();
      // oidc-provider marked the code in flight (confirmed) or answered for the person (cancelled).
      const stored = (ctx as { oidc?: { entities?: { DeviceCode?: { inFlight?: boolean; error?: string } } } }).oidc?.entities
        ?.DeviceCode;
      started = stored?.inFlight === true || stored?.error !== undefined;
    } finally {
      if (decides && normalized && !started) await deps.store.delete(key).catch(() => {});
    }
    await countWrong(ctx);
  }

  const resume = `${route}/`;
  // Not an async function: a request to any other route passes straight on.
  return (ctx, next) => {
    const key = routeOf(ctx);
    if (key !== route) return key.startsWith(resume) && ctx.method === 'GET' ? sessionless(ctx, deps, action, next) : next();
    if (ctx.method === 'GET' || ctx.method === 'HEAD') {
      const code = ctx.query.user_code;
      const first = Array.isArray(code) ? code[0] : code;
      return typeof first === 'string'
        ? sessionless(ctx, deps, action, () => fromLink(ctx, next, first))
        : sessionless(ctx, deps, action, next);
    }
    if (ctx.method === 'POST' && bodyIs(ctx, 'application/x-www-form-urlencoded')) {
      return sessionless(ctx, deps, action, () => entered(ctx, next));
    }
    return sessionless(ctx, deps, action, next);
  };
}
