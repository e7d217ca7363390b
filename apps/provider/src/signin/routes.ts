/**
 * The SIWE interaction (docs/ARCHITECTURE.md, "The interaction contract"):
 *   GET  /interaction/:uid          the wallet page (HTML) or the details (JSON)
 *   POST /interaction/:uid          { message, signature } as JSON or form → 303 onward
 *                                   (an EIP-4361 message, a Sign In With Solana or a Sign in
 *                                   with Bitcoin one)
 *   POST /interaction/:uid/abort    → access_denied at the client
 * The signature is the consent: a verified signature finishes both the login and the
 * consent prompt, creating the grant for exactly the scopes the client asked for.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { accountForSignIn, readAheadForSignIn } from '../accounts/accounts.ts';
import { recordWalletSignIn, type SessionLogin } from '../accounts/sessions.ts';
import { TTL } from '../deployment/lifetimes.ts';
import { HttpError, sendError, toHttpError } from '../errors.ts';
import { bodyIs, prefersJson } from '../http/negotiation.ts';
import { requestFields } from '../observability/audit.ts';
import { saveSignIn, signedRedirectUris } from '../records/sign-ins.ts';
import type { Services } from '../services.ts';
import { auditRefusal, auditSignIn, type SignInProgress } from './audit.ts';
import { readSignedMessage } from './body.ts';
import { completeInteraction, grantAsAsked, type LoadedInteraction, loadInteraction, redirectUriOf } from './load.ts';
import { renderInteractionPage } from './page.ts';
import { type SignedBody, verifySigner } from './verify.ts';

/** JSON for API callers; the HTML page for browsers (a GET that prefers HTML, or a form post). */
const respondsWithJson = (ctx: Context) =>
  ctx.method === 'GET' ? prefersJson(ctx) : !bodyIs(ctx, 'application/x-www-form-urlencoded') || prefersJson(ctx);

/** What was thrown, as an HttpError; anything else is a bug and propagates (a 500). */
function httpErrorOf(error: unknown): HttpError {
  const known = toHttpError(error);
  if (!known) throw error;
  return known;
}

/** A verified signer: the grant for what the client asked, the sign-in's record, the result for oidc-provider. */
async function signIn(services: Services, ctx: Context, loaded: LoadedInteraction, body: SignedBody, progress: SignInProgress) {
  const { store, logger, metrics } = services;
  const { interaction, details, oidcClient } = loaded;
  if (interaction.result && 'login' in interaction.result) {
    throw new HttpError('INTERACTION_COMPLETED', 'this sign-in was already completed');
  }
  const signer = await verifySigner(services, details, body, { client: oidcClient, progress });
  const { accountId, method } = signer;
  readAheadForSignIn(store, signer.wallet);
  const returnTo = await completeInteraction(store, loaded, async () => {
    const provider = services.provider();
    const signedInAt = Date.now();
    // The Signet account the wallet belongs to (a new one at its first sign-in).
    const { account, created } = await accountForSignIn(store, signer.wallet, signedInAt);
    if (created) services.audit.write('account.created', { account: account.id, wallet: signer.wallet, ...requestFields(ctx) });
    const redirectUris = await signedRedirectUris(store, redirectUriOf(loaded), {
      grantId: interaction.grantId,
      accountId,
    });
    const grantId = await grantAsAsked(provider, loaded, accountId);
    await saveSignIn(store, grantId, { ...signer, account: account.id, signedInAt, redirectUris }, TTL.Grant);
    await recordWalletSignIn(store, signer.wallet, grantId, {
      name: signer.ensName,
      avatar: signer.avatar,
      lastUsedAt: signedInAt,
    });
    // The client has now been used (once per client and process it costs a write).
    await services.clients.usage.recordSignIn(String(interaction.params.client_id));
    // `signet` is read when oidc-provider saves the session (accounts/sessions.ts): who signed it in.
    const login: SessionLogin = { account: account.id, wallet: signer.wallet, accountId, signedInAt };
    return { login: { accountId, remember: true }, consent: { grantId }, signet: login };
  });
  metrics.signIn('success', method);
  logger.info(
    { event: 'sign_in', sub: accountId, client_id: interaction.params.client_id, method, ens: signer.ensName },
    'sign-in verified',
  );
  auditSignIn(services.audit, ctx, loaded, { account: accountId, method, ens: signer.ensName });
  return returnTo;
}

export function interactionRoutes(router: Router, services: Services) {
  const { config, store, logger, metrics } = services;
  const load = (ctx: Context) => loadInteraction(ctx, services.provider(), config, ctx.params.uid as string);

  function fail(ctx: Context, error: HttpError, loaded?: LoadedInteraction) {
    sendError(ctx, error, {
      wire: 'code',
      page: respondsWithJson(ctx)
        ? undefined
        : () =>
            renderInteractionPage(services, {
              details: loaded?.details,
              error: { code: error.code, message: error.message },
              expiredClient: error.expired?.client,
              expiredRedirectUri: error.expired?.redirectUri,
            }),
    });
    if (!respondsWithJson(ctx)) services.security.pageHeaders(ctx, loaded?.details.resources[0]);
  }

  function redirectOnward(ctx: Context, returnTo: string) {
    ctx.set('cache-control', 'no-store');
    ctx.status = 303;
    ctx.redirect(returnTo);
  }

  router.get('/interaction/:uid', async (ctx) => {
    let loaded: LoadedInteraction;
    try {
      loaded = await load(ctx);
    } catch (error) {
      return fail(ctx, httpErrorOf(error));
    }
    ctx.set('cache-control', 'no-store');
    if (prefersJson(ctx)) {
      ctx.body = loaded.details;
      return;
    }
    ctx.type = 'html';
    ctx.body = renderInteractionPage(services, { details: loaded.details });
    services.security.pageHeaders(ctx, loaded.details.resources[0]);
  });

  router.post('/interaction/:uid', async (ctx) => {
    let loaded: LoadedInteraction | undefined;
    let body: { message: string; signature: string } | undefined;
    const progress: SignInProgress = {};
    try {
      await services.limits.check(ctx, 'interaction');
      body = await readSignedMessage(ctx, config.interactionBodyLimit);
      loaded = await load(ctx);
      redirectOnward(ctx, await signIn(services, ctx, loaded, body, progress));
    } catch (error) {
      const failure = httpErrorOf(error);
      metrics.signIn(failure.code, 'unknown');
      logger.info(
        { event: 'sign_in_failed', uid: ctx.params.uid, error: failure.code, reason: failure.message },
        'sign-in refused',
      );
      auditRefusal(services.audit, ctx, loaded, { message: body?.message, ...progress }, failure);
      fail(ctx, failure, loaded);
    }
  });

  router.post('/interaction/:uid/abort', async (ctx) => {
    try {
      const loaded = await load(ctx);
      redirectOnward(
        ctx,
        await completeInteraction(store, loaded, async () => ({
          error: 'access_denied',
          error_description: 'the user cancelled the sign-in',
        })),
      );
    } catch (error) {
      fail(ctx, httpErrorOf(error));
    }
  });
}
