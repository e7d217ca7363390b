/**
 * The person's own account (docs/wallets.md, "Accounts: one person, many wallets"):
 *
 *   GET    /account                 the page (HTML), or { wallets: [{ id, primary, linked_at }], passkeys: [{ id, name,
 *                                    created_at, last_used_at }] } (JSON; 401 without a sign-in)
 *   GET    /account/reauth          what a wallet signs to prove it is the person (JSON details)
 *   POST   /account/reauth          { message, signature } → 200 { account, wallet }: a fresh proof (and a sign-in to this page)
 *   GET    /account/link            what a new wallet signs to be linked (JSON details)
 *   POST   /account/wallets         { message, signature } → 201 { id }
 *   DELETE /account/wallets/<id>    → 204
 *   POST   /account/primary         { id } → 204
 *   DELETE /account                 → 204
 *   POST   /account/signout         → 204: this browser's account session ends
 *
 * and the passkeys' routes (passkeys/account-routes.ts: /account/passkeys…).
 *
 * Every change comes from the provider's own origin (http/same-origin.ts), counts in the
 * interaction rate limit, and needs a fresh proof (account-page/session.ts). A posted signature is
 * verified before anything else is answered, so nobody learns which wallets are linked without
 * holding one. Removing a wallet or the account ends everything its sign-ins issued
 * (relying-party/wallet-revocation.ts).
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import {
  type Account,
  accountForSignIn,
  deleteAccount,
  linkWallet,
  readProfiles,
  recordWalletUse,
  removeWallet,
  setPrimary,
} from '../accounts/accounts.ts';
import { listPasskeys } from '../accounts/passkeys.ts';
import { HttpError, sendError } from '../errors.ts';
import { readJsonOrForm } from '../http/body.ts';
import { prefersJson } from '../http/negotiation.ts';
import { requestFields } from '../observability/audit.ts';
import { passkeysView } from '../passkeys/account-routes.ts';
import { endAccountSignIns, endWalletSignIns } from '../relying-party/wallet-revocation.ts';
import type { Services } from '../services.ts';
import { readSignedMessage } from '../signin/body.ts';
import { verifySigner } from '../signin/verify.ts';
import { accountHandlers, httpErrorOf, revocationOf, sessionDepsOf } from './handlers.ts';
import { issueMessage, messageDetails, spendNonce } from './messages.ts';
import { renderAccountPage } from './page.ts';
import { accountSession, endAccountSession, recordProof, requireAccount, requireFreshProof } from './session.ts';

/** The wallets of an account as the JSON answer lists them. */
const walletsView = (account: Account) =>
  account.wallets.map((wallet) => ({
    id: wallet.id,
    primary: wallet.id === account.primary,
    linked_at: new Date(wallet.linkedAt).toISOString(),
  }));

/** What every group of the account's routes works with. */
type RouteContext = {
  router: Router;
  services: Services;
  deps: ReturnType<typeof sessionDepsOf>;
  handlers: ReturnType<typeof accountHandlers>;
  revocation: () => ReturnType<typeof revocationOf>;
};

export function accountRoutes(router: Router, services: Services) {
  const routes: RouteContext = {
    router,
    services,
    deps: sessionDepsOf(services),
    handlers: accountHandlers(services),
    revocation: () => revocationOf(services),
  };
  pageRoute(routes);
  proofRoutes(routes);
  walletRoutes(routes);
  accountEndRoutes(routes);
}

/** GET /account: the page, or the account's wallets and passkeys as JSON. */
function pageRoute({ router, services, deps }: RouteContext) {
  const { store } = services;
  router.get('/account', async (ctx) => {
    ctx.set('cache-control', 'no-store');
    const session = await accountSession(ctx, deps).catch((error) => {
      throw httpErrorOf(error);
    });
    if (prefersJson(ctx)) {
      if (!session?.account) {
        sendError(ctx, new HttpError('SIGN_IN_REQUIRED', 'sign in first: with a wallet of your account, or through a site'), {
          wire: 'code',
        });
        return;
      }
      ctx.body = { wallets: walletsView(session.account), passkeys: passkeysView(await listPasskeys(store, session.account)) };
      return;
    }
    const [profiles, passkeys] = session?.account
      ? await Promise.all([
          readProfiles(
            store,
            session.account.wallets.map((wallet) => wallet.id),
          ),
          listPasskeys(store, session.account),
        ])
      : [[], []];
    ctx.type = 'html';
    ctx.body = renderAccountPage(services, { account: session?.account, profiles, passkeys, proofs: session?.proofs ?? {} });
    services.security.pageHeaders(ctx);
  });
}

/** /account/reauth: a wallet of the account proves itself (or signs in to this page). */
function proofRoutes({ router, services, deps, handlers }: RouteContext) {
  const { config, store, audit } = services;
  const { change, read } = handlers;
  router.get(
    '/account/reauth',
    read(async (ctx) => {
      await services.limits.check(ctx, 'interaction');
      const session = (await accountSession(ctx, deps, { create: true })) as NonNullable<
        Awaited<ReturnType<typeof accountSession>>
      >;
      ctx.body = await issueMessage(store, config, 'reauth', { session: session.id, account: session.account?.id });
    }),
  );

  router.post(
    '/account/reauth',
    change(async (ctx) => {
      const body = await readSignedMessage(ctx, config.interactionBodyLimit);
      const session = (await accountSession(ctx, deps, { create: true })) as NonNullable<
        Awaited<ReturnType<typeof accountSession>>
      >;
      const details = await messageDetails(store, config, body.message, {
        purpose: 'reauth',
        session: session.id,
        account: session.account?.id,
      });
      const signer = await verifySigner(services, details, body);
      if (!(await spendNonce(store, details))) throw new HttpError('INVALID_REQUEST', 'this message was already used');
      let account = session.account;
      if (account && !account.wallets.some((wallet) => wallet.id === signer.wallet)) {
        throw new HttpError('WALLET_NOT_FOUND', 'the wallet that signed is not in your account');
      }
      if (!account) {
        // Signing in to this page: the wallet's account (made now, at its first sign-in).
        const found = await accountForSignIn(store, signer.wallet);
        if (found.created)
          audit.write('account.created', { account: found.account.id, wallet: signer.wallet, ...requestFields(ctx) });
        account = found.account;
      }
      await recordProof(store, session, account.id, signer.wallet);
      await recordWalletUse(store, signer.wallet, { name: signer.ensName, avatar: signer.avatar, lastUsedAt: Date.now() });
      ctx.body = { account: account.id, wallet: signer.wallet };
    }),
  );
}

/** Linking, removing and choosing the primary wallet. */
function walletRoutes({ router, services, deps, handlers, revocation }: RouteContext) {
  const { config, store, audit } = services;
  const { change, read } = handlers;
  router.get(
    '/account/link',
    read(async (ctx) => {
      await services.limits.check(ctx, 'interaction');
      const session = await requireAccount(ctx, deps);
      ctx.body = await issueMessage(store, config, 'link', { session: session.id, account: session.account.id });
    }),
  );

  router.post(
    '/account/wallets',
    change(async (ctx) => {
      const body = await readSignedMessage(ctx, config.interactionBodyLimit);
      const session = await requireAccount(ctx, deps);
      const details = await messageDetails(store, config, body.message, {
        purpose: 'link',
        session: session.id,
        account: session.account.id,
      });
      // The new wallet's signature first: nothing about the account's wallets is answered before it.
      const signer = await verifySigner(services, details, body);
      requireFreshProof(
        session,
        session.account.wallets.map((wallet) => wallet.id),
        'linking a wallet needs a signature by a wallet of your account from the last 10 minutes (POST /account/reauth)',
      );
      if (!(await spendNonce(store, details))) throw new HttpError('INVALID_REQUEST', 'this link message was already used');
      const outcome = await linkWallet(store, session.account.id, signer.wallet, { maxWallets: config.accountMaxWallets });
      if (outcome.ended) {
        // The wallet was the only wallet of another account: that account ends, with what it (and its passkeys) signed.
        await endAccountSignIns(revocation(), outcome.ended);
        audit.write('account.deleted', {
          account: outcome.ended.id,
          reason: 'its only wallet moved to another account',
          moved_to: session.account.id,
          ...requestFields(ctx),
        });
      }
      await recordWalletUse(store, signer.wallet, { name: signer.ensName, avatar: signer.avatar, lastUsedAt: Date.now() });
      await recordProof(store, session, session.account.id, signer.wallet);
      audit.write('account.wallet_linked', { account: session.account.id, wallet: signer.wallet, ...requestFields(ctx) });
      ctx.status = 201;
      ctx.body = { id: signer.wallet };
    }),
  );

  router.delete(
    '/account/wallets/:id',
    change(async (ctx) => {
      const session = await requireAccount(ctx, deps);
      const walletId = String(ctx.params.id);
      // Removing another wallet needs the primary's fresh signature; a wallet may remove itself.
      requireFreshProof(
        session,
        [session.account.primary, walletId],
        'removing a wallet needs a signature by your primary wallet (or by that wallet) from the last 10 minutes',
      );
      await removeWallet(store, session.account.id, walletId);
      const revoked = await endWalletSignIns(revocation(), [walletId]);
      audit.write('account.wallet_removed', { account: session.account.id, wallet: walletId, ...revoked, ...requestFields(ctx) });
      ctx.status = 204;
    }),
  );

  router.post(
    '/account/primary',
    change(async (ctx) => {
      const session = await requireAccount(ctx, deps);
      const { id } = await readId(ctx, config.interactionBodyLimit);
      requireFreshProof(
        session,
        [session.account.primary],
        'changing the primary wallet needs a signature by your current primary wallet from the last 10 minutes',
      );
      const updated = await setPrimary(store, session.account.id, id);
      audit.write('account.primary_changed', {
        account: session.account.id,
        from: session.account.primary,
        to: updated.primary,
        ...requestFields(ctx),
      });
      ctx.status = 204;
    }),
  );
}

/** Deleting the account, and signing this browser out of it. */
function accountEndRoutes({ router, services, deps, handlers, revocation }: RouteContext) {
  const { store, audit } = services;
  const { change } = handlers;
  router.delete(
    '/account',
    change(async (ctx) => {
      const session = await requireAccount(ctx, deps);
      requireFreshProof(
        session,
        [session.account.primary],
        'deleting the account needs a signature by your primary wallet from the last 10 minutes',
      );
      const deleted = await deleteAccount(store, session.account.id);
      const revoked = await endAccountSignIns(revocation(), deleted);
      await endAccountSession(ctx, deps);
      audit.write('account.deleted', {
        account: session.account.id,
        reason: 'deleted by its owner',
        ...revoked,
        ...requestFields(ctx),
      });
      ctx.status = 204;
    }),
  );

  router.post(
    '/account/signout',
    change(async (ctx) => {
      await endAccountSession(ctx, deps);
      ctx.status = 204;
    }),
  );
}

/** `{ id }` from a JSON or form body. */
async function readId(ctx: Context, limit: number): Promise<{ id: string }> {
  const { body } = await readJsonOrForm(ctx, limit);
  const id = (body as { id?: unknown } | undefined)?.id;
  if (typeof id !== 'string' || id === '' || id.length > 200)
    throw new HttpError('INVALID_REQUEST', '"id" (a wallet id) is required');
  return { id };
}
