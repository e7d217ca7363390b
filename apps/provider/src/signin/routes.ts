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
import { verifySiwe } from '@signet/siwe';
import type { Context } from 'koa';
import { clientFields } from '../clients/rules.ts';
import { TTL } from '../deployment/lifetimes.ts';
import { HttpError, sendError, toHttpError } from '../errors.ts';
import { bodyIs, prefersJson } from '../http/negotiation.ts';
import type { EnsProfile } from '../onchain/names/index.ts';
import { type SignInRecord, saveSignIn } from '../records/sign-ins.ts';
import type { Services } from '../services.ts';
import { accountIdOf } from '../wallets/ethereum.ts';
import { auditRefusal, auditSignIn, type SignInProgress } from './audit.ts';
import { verifyBitcoinSignIn } from './bitcoin/verify.ts';
import { readSignedMessage } from './body.ts';
import { expectationsFor } from './contract.ts';
import { completeInteraction, type LoadedInteraction, loadInteraction } from './load.ts';
import { acceptedNamespace } from './namespaces.ts';
import { renderInteractionPage } from './page.ts';
import { verifySolanaSignIn } from './solana/verify.ts';

/** JSON for API callers; the HTML page for browsers (a GET that prefers HTML, or a form post). */
const respondsWithJson = (ctx: Context) =>
  ctx.method === 'GET' ? prefersJson(ctx) : !bodyIs(ctx, 'application/x-www-form-urlencoded') || prefersJson(ctx);

/** What was thrown, as an HttpError; anything else is a bug and propagates (a 500). */
function httpErrorOf(error: unknown): HttpError {
  const known = toHttpError(error);
  if (!known) throw error;
  return known;
}

export function interactionRoutes(router: Router, services: Services) {
  const { config, store, logger, chains, ens, metrics, tracing } = services;
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

  type SignedBody = { message: string; signature: string };
  type Signer = Omit<SignInRecord, 'signedInAt'>;

  /** An Ethereum signer: verified (offline for an EOA), then a gated client's holdings and the ENS name, at once. */
  async function ethereumSigner(
    loaded: LoadedInteraction,
    body: SignedBody,
    started: number,
    progress: SignInProgress,
  ): Promise<Signer> {
    const { details, oidcClient } = loaded;
    const verified = await tracing.span('signet.siwe.verify', {}, async (span) => {
      const result = await verifySiwe({
        message: body.message,
        signature: body.signature,
        client: chains,
        expect: expectationsFor(details, { now: Date.now(), clockSkewMs: config.clockSkewSeconds * 1000 }),
      });
      span.set('signet.siwe.method', result.method);
      span.set('signet.chain_id', result.chainId);
      return result;
    });
    metrics.verification(performance.now() - started, verified.method);

    const accountId = accountIdOf(verified.chainId, verified.address);
    progress.verified = { account: accountId, method: verified.method };
    // The holdings check and the name lookup do not depend on each other: both start now. A
    // refusal by the access check still refuses (the lookup is left to finish on its own), and
    // the lookup never fails a sign-in (its fallback is the address).
    const named = tracing
      .span('signet.ens.resolve', {}, () =>
        ens.resolve(verified.address, { chainId: verified.chainId, contractWallet: verified.method !== 'eoa' }),
      )
      .catch(() => ({}) as EnsProfile);
    // A gated client: the signer (a contract wallet by its own address, on its own chain) must hold what it asks.
    await tracing.span('signet.access.check', { 'signet.client_id': oidcClient.clientId }, () =>
      services.access.enforce(oidcClient, accountId, verified.address, verified.method),
    );
    const profile = await named;
    return {
      accountId,
      address: verified.address,
      chainId: verified.chainId,
      message: body.message,
      signature: body.signature,
      method: verified.method,
      ensName: profile.name,
      avatar: profile.avatar,
      email: profile.email,
    };
  }

  /** A Solana signer: verified offline (solana/verify.ts); no name, no holdings, no RPC call. */
  async function solanaSigner(
    loaded: LoadedInteraction,
    body: SignedBody,
    started: number,
    progress: SignInProgress,
  ): Promise<Signer> {
    const verified = await tracing.span('signet.siwe.verify', {}, async (span) => {
      const result = verifySolanaSignIn(body, loaded.details, { now: Date.now(), clockSkewMs: config.clockSkewSeconds * 1000 });
      span.set('signet.siwe.method', result.method);
      span.set('signet.solana.network', result.network);
      return result;
    });
    metrics.verification(performance.now() - started, verified.method);
    progress.verified = { account: verified.accountId, method: verified.method };
    return verified;
  }

  /** A Bitcoin signer: verified offline (bitcoin/verify.ts); no name, no holdings, no node. */
  async function bitcoinSigner(
    loaded: LoadedInteraction,
    body: SignedBody,
    started: number,
    progress: SignInProgress,
  ): Promise<Signer> {
    const verified = await tracing.span('signet.siwe.verify', {}, async (span) => {
      const result = verifyBitcoinSignIn(body, loaded.details, { now: Date.now(), clockSkewMs: config.clockSkewSeconds * 1000 });
      span.set('signet.siwe.method', result.method);
      span.set('signet.bitcoin.network', result.network);
      return result;
    });
    metrics.verification(performance.now() - started, verified.method);
    progress.verified = { account: verified.accountId, method: verified.method };
    return verified;
  }

  /** A verified signer: the grant for what the client asked, the sign-in's record, the result for oidc-provider. */
  async function signIn(ctx: Context, loaded: LoadedInteraction, body: SignedBody, progress: SignInProgress) {
    const started = performance.now();
    const { interaction, details, oidcClient } = loaded;
    if (interaction.result && 'login' in interaction.result) {
      throw new HttpError('INTERACTION_COMPLETED', 'this sign-in was already completed');
    }
    // The message's first line names its kind of account; one this sign-in does not take is refused unchecked.
    const namespace = acceptedNamespace(body.message, details.namespaces, config, clientFields(oidcClient));
    const signer =
      namespace === 'solana'
        ? await solanaSigner(loaded, body, started, progress)
        : namespace === 'bip122'
          ? await bitcoinSigner(loaded, body, started, progress)
          : await ethereumSigner(loaded, body, started, progress);
    const { accountId, method } = signer;
    const returnTo = await completeInteraction(store, loaded, async () => {
      const provider = services.provider();
      const grant = new provider.Grant({ accountId, clientId: String(interaction.params.client_id) });
      // What the client asked for, less what the profile does not support (as the details show it).
      grant.addOIDCScope(details.scopes.join(' ') || 'openid');
      const grantId = await grant.save();
      await saveSignIn(store, grantId, { ...signer, signedInAt: Date.now() }, TTL.Grant);
      // The client has now been used (once per client and process it costs a write).
      await services.clients.usage.recordSignIn(String(interaction.params.client_id));
      return { login: { accountId, remember: true }, consent: { grantId } };
    });
    metrics.signIn('success', method);
    logger.info(
      { event: 'sign_in', sub: accountId, client_id: interaction.params.client_id, method, ens: signer.ensName },
      'sign-in verified',
    );
    auditSignIn(services.audit, ctx, loaded, { account: accountId, method, ens: signer.ensName });
    return returnTo;
  }

  router.post('/interaction/:uid', async (ctx) => {
    let loaded: LoadedInteraction | undefined;
    let body: { message: string; signature: string } | undefined;
    const progress: SignInProgress = {};
    try {
      await services.limits.check(ctx, 'interaction');
      body = await readSignedMessage(ctx, config.interactionBodyLimit);
      loaded = await load(ctx);
      redirectOnward(ctx, await signIn(ctx, loaded, body, progress));
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
