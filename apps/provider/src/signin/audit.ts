/**
 * The audit events of a sign-in: succeeded (and the consent its signature gives), or refused
 * with the reason. Never the message's signature; the message itself is not written either
 * (the claims keep it for clients that asked for the `siwe` scope).
 */
import { bitcoinAccountId, bitcoinNetworkOf, parseSiwbMessage } from '@signet/siwb/message';
import { parseSiweMessage } from '@signet/siwe/offline';
import { parseSiwsMessage, siwsNetwork, solanaAccountId } from '@signet/siws/message';
import type { Context } from 'koa';
import type { HttpError } from '../errors.ts';
import { type AuditLog, requestFields } from '../observability/audit.ts';
import { SIGN_IN_FORMS } from './given-fields.ts';
import type { LoadedInteraction } from './load.ts';

export function auditSignIn(
  audit: AuditLog,
  ctx: Context,
  loaded: LoadedInteraction,
  result: { account: string; method: string; ens?: string },
): void {
  if (!audit.enabled) return;
  const { interaction } = loaded;
  const common = {
    client_id: String(interaction.params.client_id),
    account: result.account,
    uid: interaction.uid,
    ...requestFields(ctx),
  };
  audit.write('sign_in.succeeded', { ...common, method: result.method, ens_name: result.ens });
  // The signature is the consent: the grant holds exactly the scopes the client asked for.
  audit.write('consent.granted', {
    ...common,
    scope: typeof interaction.params.scope === 'string' ? interaction.params.scope : 'openid',
  });
}

/** The account a refused message names (Ethereum, Solana or Bitcoin), when it parses: a claim, not a proof. */
function claimedAccount(message: string): string | undefined {
  try {
    const { chainId, address } = parseSiweMessage(message, SIGN_IN_FORMS);
    return `eip155:${chainId}:${address}`;
  } catch {
    // not an EIP-4361 message
  }
  try {
    const { chainId, address } = parseSiwbMessage(message, SIGN_IN_FORMS);
    // A parsed message names one of the four networks, and its address is one of that network's.
    return bitcoinAccountId(bitcoinNetworkOf(chainId) as NonNullable<ReturnType<typeof bitcoinNetworkOf>>, address);
  } catch {
    // not a Sign in with Bitcoin message
  }
  try {
    const { chainId, address } = parseSiwsMessage(message, SIGN_IN_FORMS);
    const network = chainId === undefined ? undefined : siwsNetwork(chainId);
    return network === undefined || network === 'localnet' ? undefined : solanaAccountId(network, address);
  } catch {
    return undefined; // unparsable: no account to name
  }
}

/** How far a sign-in got before it was refused: once the signature verified, its account and method are proven. */
export type SignInProgress = { verified?: { account: string; method: string } };

export function auditRefusal(
  audit: AuditLog,
  ctx: Context,
  loaded: LoadedInteraction | undefined,
  attempt: SignInProgress & { message?: string },
  failure: HttpError,
): void {
  if (!audit.enabled) return;
  // Before the signature verified: the account the message names, when it parses (a refused
  // message may name anyone's), marked as not verified.
  const claimed = !attempt.verified && attempt.message !== undefined ? claimedAccount(attempt.message) : undefined;
  audit.write('sign_in.refused', {
    client_id: loaded ? String(loaded.interaction.params.client_id) : undefined,
    account: attempt.verified?.account ?? claimed,
    account_verified: attempt.verified !== undefined,
    method: attempt.verified?.method,
    uid: ctx.params?.uid,
    reason: failure.code,
    description: failure.message,
    status: failure.status,
    ...requestFields(ctx),
  });
}
