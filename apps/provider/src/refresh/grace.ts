/**
 * Refresh-token rotation that survives a lost response (REFRESH_REUSE_GRACE_SECONDS).
 *
 * oidc-provider rotates a public client's refresh token on every use (and any client's once 70 %
 * of its life has passed); a rotated token presented again is a reuse, and ends the whole grant.
 * A client whose answer was lost on the way (a mobile network, a laptop lid) presents it again,
 * and is signed out. Within the window, Signet answers that second presentation with the answer
 * the first one got, the same successor pair, and nothing new is issued:
 *
 * 1. the request that rotates stores its answer under the token it rotated (successors.ts);
 * 2. the rotated token presented again is recognised where oidc-provider finds its account, after
 *    it has authenticated the client, checked the token's client, its DPoP or certificate binding
 *    and found its grant (so a revoked grant is never answered), and before it would revoke: if
 *    the window is open, the request asks the same `resource` and `scope`, and the successor
 *    refresh token is still live and unused, with its access token, the stored answer is sent
 *    (`expires_in` counted down); otherwise oidc-provider's reuse detection ends the grant;
 * 3. two requests rotating the same token at once (two tabs, or a retry while the first is still
 *    running, on one replica or two): the one-time marker lets one win (storage/adapter.ts); the
 *    other no longer revokes but waits for the winner's answer (up to 2 s) and sends it, or, when
 *    none comes, revokes the grant as a reuse.
 *
 * Revocation, logout and a wallet's removal revoke the grant, which deletes the stored answer and
 * the successor with it: the window never brings a revoked grant back.
 */
import type { Context, Middleware } from 'koa';
import { errors, type KoaContextWithOIDC, Provider } from 'oidc-provider';
import type { ProfileDefinition } from '../deployment/profiles.ts';
import { routeKey, routeOf } from '../http/route-key.ts';
import type { Store } from '../storage/index.ts';
import { readSuccessor, type Successor, saveSuccessor } from './successors.ts';

/** How long a request that lost the race waits for the winner's answer, and how often it looks. */
const WAIT_ROUNDS = 40;
const WAIT_MS = 50;

type RefreshToken = { jti: string; grantId?: string; consumed?: number; kind?: string };
type Body = Record<string, unknown>;
/** A store whose reads inside a request may be cached (storage/unit-of-work.ts): `immediate` reads afresh. */
type GraceStore = Store & { immediate?<T>(work: () => Promise<T>): Promise<T> };
type Oidc = KoaContextWithOIDC['oidc'];

const epoch = () => Math.floor(Date.now() / 1000);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sameRequest = (asked: unknown, kept: unknown) => JSON.stringify(asked ?? null) === JSON.stringify(kept ?? null);

export class RefreshGrace {
  readonly #answered = new WeakMap<object, Body>();
  readonly #raced = new WeakMap<object, { jti: string; grantId: string }>();

  constructor(
    readonly store: GraceStore,
    readonly seconds: number,
    readonly now: () => number = epoch,
  ) {}

  /**
   * Called where oidc-provider finds the account of a refresh token (after its checks, before its
   * reuse detection): a rotated token within the window with a live successor is answered with it.
   */
  async answerReplay(ctx: KoaContextWithOIDC, token: RefreshToken): Promise<void> {
    if (token.kind !== 'RefreshToken' || token.consumed === undefined || token.grantId === undefined) return;
    if (this.now() - token.consumed > this.seconds) return;
    // The request that rotated it may still be running (its answer is stored as it ends).
    const kept = await this.#awaitSuccessor(token.jti);
    const answer = kept && (await this.#afresh(() => this.#successorAnswer(ctx.oidc, kept, token.grantId as string)));
    if (!answer) return;
    this.#answered.set(ctx, answer);
    // Stops oidc-provider here; the middleware sends the answer in place of this error.
    throw new errors.InvalidGrant('refresh token already used; its successor is answered');
  }

  /** storage/adapter.ts's `lostConsume`: a refresh token another request rotated first is not revoked here. */
  readonly lostConsume = (model: string, id: string, payload: { grantId?: string }): boolean => {
    const ctx = (Provider as unknown as { ctx?: object }).ctx;
    if (model !== 'RefreshToken' || payload.grantId === undefined || ctx === undefined) return false;
    this.#raced.set(ctx, { jti: id, grantId: payload.grantId });
    return true;
  };

  /** At the token endpoint: keeps what a rotation answered, and answers replays and lost races. */
  middleware(profile: ProfileDefinition): Middleware {
    const token = routeKey(profile.routes.token);
    return (ctx, next) => {
      if (ctx.method !== 'POST' || routeOf(ctx) !== token) return next();
      return next().then(() => this.#after(ctx as unknown as KoaContextWithOIDC));
    };
  }

  async #after(ctx: KoaContextWithOIDC) {
    const answered = this.#answered.get(ctx);
    if (answered) return send(ctx, answered);
    const raced = this.#raced.get(ctx);
    if (raced) return this.#awaitWinner(ctx, raced);
    const rotated = ctx.oidc?.entities.RotatedRefreshToken as RefreshToken | undefined;
    if (ctx.status === 200 && rotated?.grantId !== undefined) await this.#remember(ctx, rotated.jti, rotated.grantId);
  }

  async #remember(ctx: KoaContextWithOIDC, jti: string, grantId: string) {
    const body = ctx.body as Body;
    const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : 0;
    const { resource, scope } = ctx.oidc.params as { resource?: string; scope?: string };
    const successor: Successor = { body, accessTokenExp: this.now() + expiresIn, resource, scope };
    await saveSuccessor(this.store, jti, grantId, successor, this.seconds + 10);
  }

  /** The answer kept for `kept`'s request, when everything in it still holds and this request asks the same; undefined otherwise. */
  async #successorAnswer(oidc: Oidc, kept: Successor, grantId: string): Promise<Body | undefined> {
    if (!sameRequest(oidc.params?.resource, kept.resource) || !sameRequest(oidc.params?.scope, kept.scope)) return undefined;
    const { provider } = oidc;
    const successor = (await provider.RefreshToken.find(kept.body.refresh_token as string)) as RefreshToken | undefined;
    if (!successor || successor.consumed !== undefined || successor.grantId !== grantId) return undefined;
    if (!(await provider.AccessToken.find(kept.body.access_token as string))) return undefined;
    if (!(await provider.Grant.find(grantId))) return undefined;
    return { ...kept.body, expires_in: Math.max(0, kept.accessTokenExp - this.now()) };
  }

  /** Reads outside the request's unit of work, whose reads are answered once (storage/unit-of-work.ts). */
  #afresh<T>(work: () => Promise<T>): Promise<T> {
    return this.store.immediate ? this.store.immediate(work) : work();
  }

  /** The answer kept under `jti`, waiting up to 2 s for the request that rotated it to store it. */
  async #awaitSuccessor(jti: string): Promise<Successor | undefined> {
    for (let round = 0; ; round++) {
      const kept = await this.#afresh(() => readSuccessor(this.store, jti));
      if (kept || round === WAIT_ROUNDS) return kept;
      await sleep(WAIT_MS);
    }
  }

  /** A request that lost the race to rotate: the winner's answer, or, when none comes, the grant ends. */
  async #awaitWinner(ctx: KoaContextWithOIDC, { jti, grantId }: { jti: string; grantId: string }) {
    const kept = await this.#awaitSuccessor(jti);
    const answer = kept && (await this.#afresh(() => this.#successorAnswer(ctx.oidc, kept, grantId)));
    if (answer) return send(ctx, answer);
    await ctx.oidc.provider.RefreshToken.revokeByGrantId(grantId);
    ctx.body = { error: 'invalid_grant', error_description: 'refresh token already used; the grant is revoked' };
  }
}

function send(ctx: Context | KoaContextWithOIDC, answer: Body) {
  ctx.status = 200;
  ctx.body = answer;
  ctx.set('cache-control', 'no-store');
}
