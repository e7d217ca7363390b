/**
 * The account's passkeys on `/account` (docs/wallets.md, "Passkeys"):
 *
 *   POST   /account/passkeys/options   → the creation options (JSON): a discoverable credential,
 *                                        user verification preferred, attestation none, the
 *                                        account's own passkeys excluded; needs a fresh wallet proof
 *   POST   /account/passkeys           the new credential (`toJSON()` shape) and an optional
 *                                        `name` → 201 { id }; needs a fresh wallet proof
 *   DELETE /account/passkeys/<id>      → 204, with a fresh proof by a wallet of the account or a
 *                                        sign-in by that passkey in the last 10 minutes; ends
 *                                        what that passkey signed in (sessions, grants, tokens)
 *
 * Each is a change of the account (account-page/handlers.ts: same origin, rate limit). The
 * account's JSON lists its passkeys (`passkeysView`).
 */
import type Router from '@koa/router';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Context } from 'koa';
import { accountHandlers, revocationOf, sessionDepsOf } from '../account-page/handlers.ts';
import { type AccountSession, requireAccount, requireFreshProof, requireFreshProofOrPasskey } from '../account-page/session.ts';
import { type Account, readProfiles } from '../accounts/accounts.ts';
import { addPasskey, listPasskeys, type Passkey, removePasskey, userHandleOf } from '../accounts/passkeys.ts';
import { HttpError } from '../errors.ts';
import { requestFields } from '../observability/audit.ts';
import { endPasskeySignIns } from '../relying-party/wallet-revocation.ts';
import type { Services } from '../services.ts';
import { walletAddressOf } from '../wallets/ids.ts';
import { issueChallenge, requireChallenge, spendChallenge } from './challenges.ts';
import { challengeOf, readCredential, registrationOptions, relyingParty, verifyNewPasskey } from './webauthn.ts';

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/** The account's passkeys as its JSON lists them. */
export const passkeysView = (passkeys: readonly Passkey[]) =>
  passkeys.map((passkey) => ({
    id: passkey.id,
    name: passkey.name,
    created_at: iso(passkey.createdAt),
    last_used_at: iso(passkey.lastUsedAt),
  }));

const FRESH_WORDS =
  'adding a passkey needs a signature by a wallet of your account from the last 10 minutes (POST /account/reauth)';

/** What the person's passkey manager shows: the primary wallet's ENS name, or its address shortened. */
async function userNameOf(services: Services, account: Account): Promise<string> {
  const [profile] = await readProfiles(services.store, [account.primary]);
  const address = walletAddressOf(account.primary);
  return profile?.name ?? `${address.slice(0, 6)}…${address.slice(-4)}`;
}

const walletsOf = (session: AccountSession & { account: Account }) => session.account.wallets.map((wallet) => wallet.id);

type Deps = { services: Services; deps: ReturnType<typeof sessionDepsOf> };

/** `POST /account/passkeys/options`: the creation options, after a fresh wallet proof and under the cap. */
async function creationOptions({ services, deps }: Deps, ctx: Context) {
  const { config, store } = services;
  const session = await requireAccount(ctx, deps);
  const rp = relyingParty(config);
  requireFreshProof(session, walletsOf(session), FRESH_WORDS);
  const passkeys = await listPasskeys(store, session.account);
  if (passkeys.length >= config.accountMaxPasskeys) {
    throw new HttpError('TOO_MANY_PASSKEYS', `an account holds at most ${config.accountMaxPasskeys} passkeys; remove one first`);
  }
  const handle = await userHandleOf(store, session.account.id);
  const options = await registrationOptions(rp, { handle, name: await userNameOf(services, session.account) }, passkeys);
  await issueChallenge(store, options.challenge, {
    purpose: 'registration',
    session: session.id,
    account: session.account.id,
  });
  ctx.body = options;
}

/** `POST /account/passkeys`: the new credential, checked against its challenge, stored under the cap. */
async function savePasskey({ services, deps }: Deps, ctx: Context) {
  const { config, store, audit } = services;
  const { credential, name } = await readCredential<RegistrationResponseJSON>(ctx, config.interactionBodyLimit);
  const session = await requireAccount(ctx, deps);
  const rp = relyingParty(config);
  const challenge = challengeOf(credential);
  await requireChallenge(store, challenge, { purpose: 'registration', session: session.id, account: session.account.id });
  const info = await verifyNewPasskey(rp, credential, challenge);
  requireFreshProof(session, walletsOf(session), FRESH_WORDS);
  if (!(await spendChallenge(store, challenge))) {
    throw new HttpError('PASSKEY_CHALLENGE_MISMATCH', 'this passkey answer was already used; add the passkey again');
  }
  const now = Date.now();
  const passkey: Passkey = {
    id: info.credential.id,
    account: session.account.id,
    publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
    counter: info.credential.counter,
    ...(info.credential.transports ? { transports: info.credential.transports } : {}),
    deviceType: info.credentialDeviceType,
    backedUp: info.credentialBackedUp,
    ...(info.aaguid && !/^[0-]+$/.test(info.aaguid) ? { aaguid: info.aaguid } : {}),
    name: name ?? `Passkey added ${new Date(now).toISOString().slice(0, 10)}`,
    createdAt: now,
  };
  await addPasskey(store, passkey, { maxPasskeys: config.accountMaxPasskeys });
  audit.write('account.passkey_added', {
    account: session.account.id,
    passkey: passkey.id,
    device_type: passkey.deviceType,
    backed_up: passkey.backedUp,
    ...requestFields(ctx),
  });
  ctx.status = 201;
  ctx.body = { id: passkey.id };
}

/** `DELETE /account/passkeys/<id>`: removed, and what it signed in ended. */
async function deletePasskey({ services, deps }: Deps, ctx: Context) {
  const { store, audit } = services;
  const session = await requireAccount(ctx, deps);
  const credentialId = String(ctx.params.id);
  if (!(session.account.passkeys ?? []).includes(credentialId)) {
    throw new HttpError('NO_SUCH_PASSKEY', 'no such passkey in your account');
  }
  requireFreshProofOrPasskey(
    session,
    credentialId,
    'removing a passkey needs a signature by a wallet of your account, or a sign-in with that passkey, from the last 10 minutes',
  );
  await removePasskey(store, session.account.id, credentialId);
  const revoked = await endPasskeySignIns(revocationOf(services), [credentialId]);
  audit.write('account.passkey_removed', {
    account: session.account.id,
    passkey: credentialId,
    ...revoked,
    ...requestFields(ctx),
  });
  ctx.status = 204;
}

export function passkeyAccountRoutes(router: Router, services: Services) {
  const context: Deps = { services, deps: sessionDepsOf(services) };
  const { change } = accountHandlers(services);
  router.post(
    '/account/passkeys/options',
    change((ctx) => creationOptions(context, ctx)),
  );
  router.post(
    '/account/passkeys',
    change((ctx) => savePasskey(context, ctx)),
  );
  router.delete(
    '/account/passkeys/:id',
    change((ctx) => deletePasskey(context, ctx)),
  );
}
