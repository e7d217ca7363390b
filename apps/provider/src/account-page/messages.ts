/**
 * The messages `/account` asks a wallet to sign, in the shape of a sign-in's details (the wallet
 * page and any client of the interaction contract build them the same way):
 *
 * - link (`GET /account/link`): "Link this wallet to your Signet account at <host>", for the new
 *   wallet; its nonce is bound to this browser's account session and account;
 * - reauth (`GET /account/reauth`): "Confirm it is you at <host> to manage your Signet account",
 *   for a wallet already in the account (or any wallet, to sign in to this page).
 *
 * Both name `<issuer>/account` as their resource. A nonce is issued for one purpose, one session
 * (and account), for 10 minutes, and is spent by its first valid use: a sign-in refuses these
 * messages (their nonce is no sign-in's), and these refuse a sign-in's message or each other's
 * (NONCE_MISMATCH).
 */
import { randomBytes } from 'node:crypto';
import { SiweError } from '@signet/siwe/offline';
import type { Config } from '../config.ts';
import { TTL } from '../deployment/lifetimes.ts';
import { buildDetails, type InteractionDetails, nonceOf } from '../signin/details.ts';
import type { Store } from '../storage/index.ts';

export type Purpose = 'link' | 'reauth';

type NonceRecord = { purpose: Purpose; session: string; account?: string; iat: number; exp: number; uid: string };

const nonceKey = (nonce: string) => `account-nonce:${nonce}`;
const usedKey = (nonce: string) => `account-nonce-used:${nonce}`;

export const accountResource = (config: Pick<Config, 'baseUrl'>) => `${config.baseUrl}/account`;

export const statementOf = (purpose: Purpose, config: Pick<Config, 'domain'>) =>
  purpose === 'link'
    ? `Link this wallet to your Signet account at ${config.domain}`
    : `Confirm it is you at ${config.domain} to manage your Signet account`;

function detailsOf(config: Config, record: NonceRecord): InteractionDetails {
  const details = buildDetails(
    config,
    {
      uid: record.uid,
      iat: record.iat,
      exp: record.exp,
      params: { redirect_uri: accountResource(config), scope: 'openid' },
      prompt: { name: record.purpose },
    },
    { client_id: 'signet-account', client_name: 'your Signet account' },
  );
  return { ...details, statement: statementOf(record.purpose, config), scopes: [] };
}

/** A new message to sign for `purpose`, bound to this account session (and account). */
export async function issueMessage(
  store: Store,
  config: Config,
  purpose: Purpose,
  binding: { session: string; account?: string },
): Promise<InteractionDetails> {
  const uid = randomBytes(16).toString('base64url');
  const iat = Math.floor(Date.now() / 1000);
  const record: NonceRecord = { purpose, ...binding, iat, exp: iat + TTL.Interaction, uid };
  await store.set(nonceKey(nonceOf(uid)), JSON.stringify(record), TTL.Interaction);
  return detailsOf(config, record);
}

/** The nonce a posted message names (either kind of message), or undefined when it names none. */
export function nonceOfMessage(message: string): string | undefined {
  return /^Nonce: ([A-Za-z0-9]{8,})$/m.exec(message)?.[1];
}

const mismatch = (words: string) => new SiweError('NONCE_MISMATCH', words);

/**
 * The details a posted message was issued with, when its nonce was issued for `purpose` to this
 * session (and account); NONCE_MISMATCH otherwise (another purpose, session or account; a sign-in's
 * nonce; an expired or spent one).
 */
export async function messageDetails(
  store: Store,
  config: Config,
  message: string,
  expected: { purpose: Purpose; session: string; account?: string },
): Promise<InteractionDetails> {
  const nonce = nonceOfMessage(message);
  const raw = nonce === undefined ? undefined : await store.get(nonceKey(nonce));
  if (raw === undefined)
    throw mismatch(
      `this message's nonce was not issued for ${expected.purpose === 'link' ? 'linking a wallet' : 'confirming it is you'} here, or has expired`,
    );
  const record = JSON.parse(raw) as NonceRecord;
  if (record.purpose !== expected.purpose) {
    throw mismatch(
      `this message was issued for ${record.purpose === 'link' ? 'linking a wallet' : 'confirming it is you'}, not for this`,
    );
  }
  if (record.session !== expected.session || (expected.account !== undefined && record.account !== expected.account)) {
    throw mismatch('this message was issued to another browser or account');
  }
  return detailsOf(config, record);
}

/** Spends a verified message's nonce: true for its first use, false for a replay. */
export async function spendNonce(store: Store, details: InteractionDetails): Promise<boolean> {
  const spent = await store.setIfAbsent(usedKey(details.nonce), '1', TTL.Interaction + 60);
  if (spent) await store.delete(nonceKey(details.nonce));
  return spent;
}
