/**
 * A sign-in by a passkey of the person's Signet account, on the wallet page (docs/wallets.md,
 * "Passkeys"), for clients that take one (relying-party/passkey-sign-in.ts):
 *
 *   GET  /interaction/:uid/passkey   the request options (JSON): a challenge bound to this
 *                                    interaction, no allowCredentials (discoverable credentials)
 *   POST /interaction/:uid/passkey   the browser's assertion (`toJSON()` shape; JSON, or a form's
 *                                    `credential` field) → 303 onward, as a wallet's POST
 *
 * The tokens name the account (`sub`), no wallet, and an `amr` (passkeys/amr.ts). Both routes
 * count in the interaction rate limit and need the interaction's cookie, as a wallet's POST does.
 */
import type Router from '@koa/router';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { Context } from 'koa';
import type { Account } from '../accounts/accounts.ts';
import { type Passkey, usePasskey } from '../accounts/passkeys.ts';
import { recordPasskeySignIn, type SessionLogin } from '../accounts/sessions.ts';
import { clientFields } from '../clients/rules.ts';
import { TTL } from '../deployment/lifetimes.ts';
import { HttpError, sendError, toHttpError } from '../errors.ts';
import { bodyIs, prefersJson } from '../http/negotiation.ts';
import { accessConditionsOf } from '../onchain/access.ts';
import { saveSignIn } from '../records/sign-ins.ts';
import { gateSubject, passkeySignInRefusal } from '../relying-party/passkey-sign-in.ts';
import type { Services } from '../services.ts';
import { auditRefusal, auditSignIn, type SignInProgress } from '../signin/audit.ts';
import { completeInteraction, grantAsAsked, type LoadedInteraction, loadInteraction } from '../signin/load.ts';
import { renderInteractionPage } from '../signin/page.ts';
import { amrOf } from './amr.ts';
import { issueChallenge, requireChallenge, spendChallenge } from './challenges.ts';
import {
  authenticationOptions,
  challengeOf,
  type RelyingParty,
  readCredential,
  relyingParty,
  verifyPasskeyAnswer,
} from './webauthn.ts';

/** JSON for API callers; the page for a browser's form post. */
const respondsWithJson = (ctx: Context) => !bodyIs(ctx, 'application/x-www-form-urlencoded') || prefersJson(ctx);

function httpErrorOf(error: unknown): HttpError {
  const known = toHttpError(error);
  if (!known) throw error;
  return known;
}

/** The relying party, when this sign-in takes a passkey; 404 PASSKEYS_UNAVAILABLE or 403 PASSKEY_NOT_ALLOWED otherwise. */
function passkeyFor(services: Services, loaded: LoadedInteraction): RelyingParty {
  const rp = relyingParty(services.config);
  const refusal = passkeySignInRefusal(clientFields(loaded.oidcClient));
  if (refusal) throw new HttpError('PASSKEY_NOT_ALLOWED', refusal);
  if (loaded.interaction.result && 'login' in loaded.interaction.result) {
    throw new HttpError('INTERACTION_COMPLETED', 'this sign-in was already completed');
  }
  return rp;
}

type Verified = { passkey: Passkey; account: Account; amr: string[] };

/** The answer checked under claims on the passkey and its account (accounts/passkeys.ts), its challenge spent. */
async function verifyAnswer(services: Services, rp: RelyingParty, credential: AuthenticationResponseJSON, uid: string) {
  const { store } = services;
  const challenge = challengeOf(credential);
  await requireChallenge(store, challenge, { purpose: 'sign-in', uid });
  const used = await usePasskey(store, credential.id, async (passkey, account) => {
    const info = await verifyPasskeyAnswer(rp, credential, passkey, challenge);
    // The user handle, when the authenticator gives one, is the account's (random, never a wallet's).
    if (credential.response.userHandle && credential.response.userHandle !== account.userHandle) {
      throw new HttpError('PASSKEY_VERIFICATION_FAILED', 'the passkey names another user than the account it belongs to');
    }
    // A counter that did not go up (where either is kept) may be a copied key: refused, nothing stored.
    if ((info.newCounter > 0 || passkey.counter > 0) && info.newCounter <= passkey.counter) {
      throw new HttpError(
        'PASSKEY_COUNTER_REGRESSED',
        'this passkey’s signature counter went back: it may have been copied. Use a wallet, and remove the passkey on your account page if you did not restore it',
      );
    }
    if (!(await spendChallenge(store, challenge))) {
      throw new HttpError('PASSKEY_CHALLENGE_MISMATCH', 'this passkey answer was already used; try again');
    }
    return {
      update: { counter: info.newCounter, backedUp: info.credentialBackedUp, lastUsedAt: Date.now() },
      result: amrOf({ deviceType: passkey.deviceType, userVerified: info.userVerified }),
    };
  });
  return { passkey: used.passkey, account: used.account, amr: used.result } satisfies Verified;
}

/** A verified passkey: the grant for what the client asked, the sign-in's record, the result with its `amr`. */
async function signIn(services: Services, loaded: LoadedInteraction, verified: Verified): Promise<string> {
  const { store } = services;
  const { passkey, account, amr } = verified;
  const clientId = String(loaded.interaction.params.client_id);
  // A gated client that opted in: the account's primary wallet must hold what it asks.
  if (accessConditionsOf(clientFields(loaded.oidcClient))) {
    const gate = await gateSubject(store, account.id, 'passkey');
    await services.access.enforce(loaded.oidcClient, gate.accountId, gate.holder, gate.method);
  }
  return completeInteraction(store, loaded, async () => {
    const signedInAt = Date.now();
    // oidc-provider's account is the Signet account itself: no wallet signed.
    const accountId = account.id;
    const grantId = await grantAsAsked(services.provider(), loaded, accountId);
    await saveSignIn(
      store,
      grantId,
      { accountId, method: 'passkey', passkey: passkey.id, account: account.id, signedInAt },
      TTL.Grant,
    );
    await recordPasskeySignIn(store, passkey.id, grantId);
    await services.clients.usage.recordSignIn(clientId);
    const login: SessionLogin = { account: account.id, passkey: passkey.id, accountId, signedInAt };
    return { login: { accountId, remember: true, amr }, consent: { grantId }, signet: login };
  });
}

/** The refusal: JSON, or the page with the error (naming an unknown passkey for the browser to forget). */
function fail(services: Services, ctx: Context, error: HttpError, loaded?: LoadedInteraction, credentialId?: string) {
  const page = !respondsWithJson(ctx);
  sendError(ctx, error, {
    wire: 'code',
    page: page
      ? () =>
          renderInteractionPage(services, {
            details: loaded?.details,
            error: { code: error.code, message: error.message },
            ...(error.code === 'PASSKEY_NOT_FOUND' && credentialId ? { unknownPasskey: credentialId } : {}),
          })
      : undefined,
  });
  if (page) services.security.pageHeaders(ctx, loaded?.details.resources[0]);
}

export function passkeySignInRoutes(router: Router, services: Services) {
  const { config, store, metrics, logger } = services;
  const load = (ctx: Context) => loadInteraction(ctx, services.provider(), config, ctx.params.uid as string);

  router.get('/interaction/:uid/passkey', async (ctx) => {
    ctx.set('cache-control', 'no-store');
    try {
      await services.limits.check(ctx, 'interaction');
      const loaded = await load(ctx);
      const rp = passkeyFor(services, loaded);
      const options = await authenticationOptions(rp);
      await issueChallenge(
        store,
        options.challenge,
        { purpose: 'sign-in', uid: loaded.interaction.uid },
        loaded.interaction.exp - Math.floor(Date.now() / 1000),
      );
      ctx.body = options;
    } catch (error) {
      sendError(ctx, httpErrorOf(error), { wire: 'code' });
    }
  });

  router.post('/interaction/:uid/passkey', async (ctx) => {
    let loaded: LoadedInteraction | undefined;
    let credentialId: string | undefined;
    const progress: SignInProgress = {};
    try {
      await services.limits.check(ctx, 'interaction');
      const { credential } = await readCredential<AuthenticationResponseJSON>(ctx, config.interactionBodyLimit);
      credentialId = credential.id;
      loaded = await load(ctx);
      const rp = passkeyFor(services, loaded);
      const verified = await verifyAnswer(services, rp, credential, loaded.interaction.uid);
      progress.verified = { account: verified.account.id, method: 'passkey' };
      const returnTo = await signIn(services, loaded, verified);
      metrics.signIn('success', 'passkey');
      logger.info(
        { event: 'sign_in', sub: verified.account.id, client_id: loaded.interaction.params.client_id, method: 'passkey' },
        'sign-in verified',
      );
      auditSignIn(services.audit, ctx, loaded, { account: verified.account.id, method: 'passkey' });
      ctx.set('cache-control', 'no-store');
      ctx.status = 303;
      ctx.redirect(returnTo);
    } catch (error) {
      const failure = httpErrorOf(error);
      metrics.signIn(failure.code, 'passkey');
      logger.info(
        { event: 'sign_in_failed', uid: ctx.params.uid, error: failure.code, reason: failure.message },
        'passkey sign-in refused',
      );
      auditRefusal(services.audit, ctx, loaded, progress, failure);
      fail(services, ctx, failure, loaded, credentialId);
    }
  });
}
