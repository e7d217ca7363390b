/**
 * The SIWE interaction (docs/ARCHITECTURE.md, "The interaction contract"):
 *   GET  /interaction/:uid          the wallet page (HTML) or the details (JSON)
 *   POST /interaction/:uid          { message, signature } as JSON or form → 303 onward
 *   POST /interaction/:uid/abort    → access_denied at the client
 * The signature is the consent: a verified signature finishes both the login and the
 * consent prompt, creating the grant for exactly the scopes the client asked for.
 */
import Router from '@koa/router';
import { isSiweError, MAX_SIWE_MESSAGE_LENGTH, verifySiwe } from '@signet/siwe';
import parseBody from 'co-body';
import type { Context } from 'koa';
import { errors as oidcErrors } from 'oidc-provider';
import { AccessDeniedError, AccessRpcError, accessConditionsOf } from '../access.ts';
import { accountIdOf, saveSignIn } from '../account.ts';
import { TTL } from '../oidc.ts';
import type { Services } from '../services.ts';
import { StorageUnavailableError } from '../storage/index.ts';
import { expectationsFor } from './contract.ts';
import { buildDetails, clientView, type InteractionClient, type InteractionDetails } from './details.ts';
import { InteractionError } from './errors.ts';
import { renderInteractionPage } from './page.ts';

type LoadedInteraction = {
  interaction: {
    uid: string;
    iat: number;
    exp: number;
    params: Record<string, unknown>;
    prompt: { name: string };
    result?: Record<string, unknown>;
  };
  client: InteractionClient;
  /** oidc-provider's client, for its metadata (access conditions). */
  oidcClient: { clientId: string; metadata(): Record<string, unknown> };
  details: InteractionDetails;
};

const wantsJson = (ctx: Context) => ctx.accepts('html', 'json') === 'json';

/** JSON for API callers; the HTML page for browsers (a GET that prefers HTML, or a form post). */
const respondsWithJson = (ctx: Context) =>
  ctx.method === 'GET' ? wantsJson(ctx) : !ctx.is('application/x-www-form-urlencoded') || wantsJson(ctx);

export function interactionRoutes(services: Services): Router {
  const { config, store, logger, chains, ens, metrics } = services;
  const router = new Router();

  async function load(ctx: Context, uid: string): Promise<LoadedInteraction> {
    const provider = services.provider();
    const interaction = await provider.Interaction.find(uid);
    if (!interaction) {
      const expired = await provider.Interaction.find(uid, { ignoreExpiration: true });
      if (expired) {
        const client = await provider.Client.find(String(expired.params.client_id));
        const error = new InteractionError(
          'INTERACTION_EXPIRED',
          'this sign-in expired; start again from the site you came from',
        );
        Object.assign(error, { client: client ? clientView(client) : undefined, redirectUri: expired.params.redirect_uri });
        throw error;
      }
      throw new InteractionError('INTERACTION_NOT_FOUND', 'no sign-in with this id; start again from the site you came from');
    }
    let fromCookie: { uid: string };
    try {
      fromCookie = await provider.interactionDetails(ctx.req, ctx.res);
    } catch (error) {
      if (error instanceof oidcErrors.SessionNotFound) {
        const detail = (error as { error_description?: string }).error_description ?? '';
        if (/cookie|interaction session not found/.test(detail)) {
          throw new InteractionError(
            'INTERACTION_COOKIE_MISSING',
            'the sign-in cookie is missing; open this page from the site you came from',
          );
        }
        throw new InteractionError('SESSION_CHANGED', `the provider session changed (${detail}); start again`);
      }
      throw error;
    }
    if (fromCookie.uid !== uid) {
      throw new InteractionError('INTERACTION_COOKIE_MISSING', 'the sign-in cookie belongs to another sign-in');
    }
    const client = await provider.Client.find(String(interaction.params.client_id));
    if (!client) throw new InteractionError('INTERACTION_NOT_FOUND', 'the client of this sign-in no longer exists');
    const view = clientView(client);
    return {
      interaction: interaction as unknown as LoadedInteraction['interaction'],
      client: view,
      oidcClient: client,
      details: buildDetails(config, interaction as never, view, accessConditionsOf(client.metadata())),
    };
  }

  function fail(ctx: Context, error: InteractionError, loaded?: LoadedInteraction) {
    ctx.status = error.status;
    ctx.set('cache-control', 'no-store');
    if (respondsWithJson(ctx)) {
      ctx.body = { error: error.code, error_description: error.message };
      return;
    }
    ctx.type = 'html';
    ctx.body = renderInteractionPage(services, {
      details: loaded?.details,
      error: { code: error.code, message: error.message },
      expiredClient: (error as { client?: InteractionClient }).client,
      expiredRedirectUri: (error as { redirectUri?: string }).redirectUri,
    });
    services.security.pageHeaders(ctx, loaded?.details.resources[0]);
  }

  const asInteractionError = (error: unknown): InteractionError => {
    if (error instanceof InteractionError) return error;
    if (isSiweError(error)) return new InteractionError(error.type, error.message, { cause: error });
    if (error instanceof AccessDeniedError)
      return new InteractionError('ACCESS_CONDITION_NOT_MET', error.message, { cause: error });
    if (error instanceof AccessRpcError) {
      return new InteractionError('RPC_UNAVAILABLE', `${error.message}; try again shortly`, { cause: error });
    }
    if (error instanceof StorageUnavailableError) {
      return new InteractionError('STORAGE_UNAVAILABLE', 'storage is unavailable; try again shortly', { cause: error });
    }
    throw error;
  };

  router.get('/interaction/:uid', async (ctx) => {
    let loaded: LoadedInteraction;
    try {
      loaded = await load(ctx, ctx.params.uid as string);
    } catch (error) {
      return fail(ctx, asInteractionError(error));
    }
    ctx.set('cache-control', 'no-store');
    if (wantsJson(ctx)) {
      ctx.body = loaded.details;
      return;
    }
    ctx.type = 'html';
    ctx.body = renderInteractionPage(services, { details: loaded.details });
    services.security.pageHeaders(ctx, loaded.details.resources[0]);
  });

  async function readBody(ctx: Context): Promise<{ message: string; signature: string }> {
    const isJson = ctx.is('application/json');
    const isForm = ctx.is('application/x-www-form-urlencoded');
    if (!isJson && !isForm) {
      throw new InteractionError('UNSUPPORTED_MEDIA_TYPE', 'send application/json or application/x-www-form-urlencoded');
    }
    let body: unknown;
    try {
      const limit = config.interactionBodyLimit;
      body = isJson ? await parseBody.json(ctx, { limit, strict: true }) : await parseBody.form(ctx, { limit });
    } catch (error) {
      const status = (error as { status?: number }).status;
      if (status === 413) {
        throw new InteractionError('PAYLOAD_TOO_LARGE', `the body is larger than ${config.interactionBodyLimit} bytes`);
      }
      throw new InteractionError('INVALID_REQUEST', `the body could not be parsed (${(error as Error).message})`);
    }
    const fields = (body ?? {}) as { message?: unknown; signature?: unknown };
    const { signature } = fields;
    // Browsers submit form fields with CRLF line breaks; an EIP-4361 message (which never holds a
    // CR) was signed with LF, so a form post's CRLF is turned back into LF.
    const message = isForm && typeof fields.message === 'string' ? fields.message.replace(/\r\n/g, '\n') : fields.message;
    if (typeof message !== 'string' || message === '' || typeof signature !== 'string' || signature === '') {
      throw new InteractionError('INVALID_REQUEST', '"message" and "signature" are required strings');
    }
    if (message.length > MAX_SIWE_MESSAGE_LENGTH) {
      throw new InteractionError('PAYLOAD_TOO_LARGE', `the message is longer than ${MAX_SIWE_MESSAGE_LENGTH} characters`);
    }
    return { message, signature };
  }

  router.post('/interaction/:uid', async (ctx) => {
    const uid = ctx.params.uid as string;
    const started = performance.now();
    let loaded: LoadedInteraction | undefined;
    try {
      await services.limits.check(ctx, 'interaction');
      const body = await readBody(ctx);
      loaded = await load(ctx, uid);
      const { interaction } = loaded;
      if (interaction.result && 'login' in interaction.result) {
        throw new InteractionError('INTERACTION_COMPLETED', 'this sign-in was already completed');
      }
      const verified = await verifySiwe({
        message: body.message,
        signature: body.signature,
        client: chains,
        expect: expectationsFor(loaded.details, { now: Date.now(), clockSkewMs: config.clockSkewSeconds * 1000 }),
      });
      metrics.verification(performance.now() - started, verified.method);

      const accountId = accountIdOf(verified.chainId, verified.address);
      // A gated client: the signer (a contract wallet by its own address) must hold what it asks.
      await services.access.enforce(loaded.oidcClient, accountId, verified.address);
      const profile = await ens.resolve(verified.address);
      const provider = services.provider();
      const grant = new provider.Grant({ accountId, clientId: String(interaction.params.client_id) });
      const scope = typeof interaction.params.scope === 'string' ? interaction.params.scope : 'openid';
      grant.addOIDCScope(scope);
      const grantId = await grant.save();
      await saveSignIn(
        store,
        grantId,
        {
          accountId,
          address: verified.address,
          chainId: verified.chainId,
          message: body.message,
          signature: body.signature,
          method: verified.method,
          ensName: profile.name,
          avatar: profile.avatar,
          signedInAt: Date.now(),
        },
        TTL.Grant,
      );
      const returnTo = await provider.interactionResult(
        ctx.req,
        ctx.res,
        { login: { accountId, remember: true }, consent: { grantId } },
        { mergeWithLastSubmission: false },
      );
      metrics.signIn('success', verified.method);
      logger.info(
        { event: 'sign_in', sub: accountId, client_id: interaction.params.client_id, method: verified.method, ens: profile.name },
        'sign-in verified',
      );
      ctx.set('cache-control', 'no-store');
      ctx.status = 303;
      ctx.redirect(returnTo);
    } catch (error) {
      const failure = asInteractionError(error);
      metrics.signIn(failure.code, 'unknown');
      logger.info({ event: 'sign_in_failed', uid, error: failure.code, reason: failure.message }, 'sign-in refused');
      fail(ctx, failure, loaded);
    }
  });

  router.post('/interaction/:uid/abort', async (ctx) => {
    try {
      await load(ctx, ctx.params.uid as string);
      const returnTo = await services
        .provider()
        .interactionResult(
          ctx.req,
          ctx.res,
          { error: 'access_denied', error_description: 'the user cancelled the sign-in' },
          { mergeWithLastSubmission: false },
        );
      ctx.set('cache-control', 'no-store');
      ctx.status = 303;
      ctx.redirect(returnTo);
    } catch (error) {
      fail(ctx, asInteractionError(error));
    }
  });

  return router;
}
