/**
 * Access conditions: a client may declare what an account must hold to sign in to it
 * (client metadata `access_conditions`). Checked on-chain after the signature verifies and
 * again whenever a refresh token is used, with one batched read per chain (Multicall3), under
 * the same gas cap as every eth_call Signet makes. A contract wallet's holdings count only on
 * the chain it signed in with: the same address on another chain may be someone else's.
 *
 * The conditions themselves are conditions.ts (re-exported here); the on-chain check is
 * holdings.ts, which loads viem, loaded at the first gated sign-in or refresh.
 */
import type { ChainRegistry } from '@signet/siwe/offline';
import type { Address } from 'viem';
import { clientFields } from '../clients/rules.ts';
import type { SignInMethod } from '../records/sign-ins.ts';
import { parseAccountId } from '../wallets/ethereum.ts';
import { AccessDeniedError, accessConditionsOf, notEthereumReason } from './conditions.ts';

export * from './conditions.ts';

export type AccessGate = {
  /**
   * Resolves when the client declares no conditions or the account meets them; throws
   * AccessDeniedError when it does not, AccessRpcError when a chain cannot be asked.
   * An ungated client costs nothing (no RPC call). `holder` is the account's address (undefined
   * for an account that is not an Ethereum one, which a gated client refuses unasked). `method`
   * is how the account signed in:
   * anything but `'eoa'` (a contract wallet, or unknown) counts holdings only on the chain of
   * `accountId`.
   */
  enforce(
    client: { clientId: string },
    accountId: string,
    holder: Address | undefined,
    method: SignInMethod | undefined,
  ): Promise<void>;
};

/**
 * The gate the interaction and the refresh grant share. A met check is remembered per account
 * and client for `cacheSeconds` (in this process), so a burst of refreshes costs one read.
 */
export function createAccessGate(options: { chains: ChainRegistry; timeoutMs: number; cacheSeconds: number }): AccessGate {
  const metUntil = new Map<string, number>();
  return {
    async enforce(client, accountId, holder, method) {
      const conditions = accessConditionsOf(clientFields(client));
      if (!conditions) return;
      // Conditions are holdings on Ethereum chains: any other account (Solana, Bitcoin) is refused unasked.
      const account = parseAccountId(accountId);
      if (!account) {
        const kind = accountId.startsWith('bip122:') ? 'Bitcoin' : 'Solana';
        throw new AccessDeniedError(notEthereumReason(conditions, kind), conditions.conditions);
      }
      const eoa = method === 'eoa';
      const key = `${client.clientId}\0${accountId}\0${eoa ? 'eoa' : 'contract'}`;
      const now = Date.now();
      if ((metUntil.get(key) ?? 0) > now) return;
      metUntil.delete(key);
      const onlyChainId = eoa ? undefined : account.chainId;
      const { checkAccess } = await import('./holdings.ts');
      const result = await checkAccess(options.chains, conditions, holder ?? account.address, options.timeoutMs, {
        onlyChainId,
      });
      if (!result.met) throw new AccessDeniedError(result.reason, result.unmet);
      if (options.cacheSeconds > 0) {
        if (metUntil.size >= 10_000) metUntil.clear();
        metUntil.set(key, now + options.cacheSeconds * 1000);
      }
    },
  };
}
