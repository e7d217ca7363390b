/**
 * `signet accounts …`: the operator's view of Signet accounts (one person, many wallets): list
 * them, show one (by its id or by a wallet id), delete one, which ends every sign-in of its
 * wallets as the person's own deletion does (grants, tokens, sessions, back-channel logout with
 * the provider's own signing key).
 */
import { type Account, accountOfWallet, deleteAccount, listAccountIds, readAccount, readProfiles } from '../accounts/accounts.ts';
import { listPasskeys } from '../accounts/passkeys.ts';
import type { Config } from '../config.ts';
import { createLogger } from '../observability/logger.ts';
import type { Store } from '../storage/index.ts';
import { type Command, formatPairs, formatTable, JSON_OPTION, osUser, print, UsageError } from './command.ts';

const iso = (ms: number) => new Date(ms).toISOString();

const view = (account: Account) => ({
  id: account.id,
  created: iso(account.createdAt),
  primary: account.primary,
  wallets: account.wallets.map((wallet) => ({
    id: wallet.id,
    primary: wallet.id === account.primary,
    linked_at: iso(wallet.linkedAt),
  })),
});

/** The account an argument names: an account id, or a wallet id (then its account). */
async function find(store: Store, idOrWallet: string): Promise<Account | undefined> {
  return idOrWallet.startsWith('acct_') ? readAccount(store, idOrWallet) : accountOfWallet(store, idOrWallet);
}

/** An oidc-provider instance with this deployment's keys: what the ending of sign-ins signs its logout tokens with. */
async function providerFor(config: Config, store: Store) {
  const [{ createProvider }, keys] = await Promise.all([import('../oidc/provider.ts'), import('../oidc/keys.ts')]);
  return createProvider({
    config,
    store,
    logger: createLogger('silent'),
    jwks: keys.providerJwks(await keys.ensureSigningKeys(store)),
    cookieKeys: await keys.ensureCookieKeys(store, config.cookieKeys),
    pairwiseSalt: await keys.ensurePairwiseSalt(store),
    pageHeaders: () => {},
  });
}

export const accountCommands: Record<string, Command> = {
  'accounts list': {
    summary: 'list the Signet accounts and their wallets',
    usage: `usage: signet accounts list [--json]

Every account: its id, when it was made, its primary wallet and how many wallets it holds.`,
    readOnly: true,
    options: { ...JSON_OPTION },
    async run({ store, values, out }) {
      const ids = store ? await listAccountIds(store) : [];
      const accounts = store
        ? (await Promise.all(ids.map((id) => readAccount(store, id)))).filter((a): a is Account => a !== undefined)
        : [];
      const rows = accounts.map((account) => ({
        id: account.id,
        created: iso(account.createdAt),
        wallets: account.wallets.length,
        primary: account.primary,
      }));
      print(out, values.json === true, accounts.map(view), () =>
        formatTable(
          rows,
          [
            ['id', 'ACCOUNT'],
            ['created', 'CREATED'],
            ['wallets', 'WALLETS'],
            ['primary', 'PRIMARY'],
          ],
          'no accounts yet (a person’s first sign-in makes one)',
        ),
      );
    },
  },
  'accounts show': {
    summary: 'show one account (by its id or one of its wallet ids)',
    usage: `usage: signet accounts show <account id | wallet id> [--json]

An account's wallets, which one is primary, when each was linked and last used, and its ENS name;
its passkeys (id, name, synced or device-bound, when added and last used).
A wallet id names what a signature proves: eip155:0:<address> (a plain account, every chain),
eip155:<chain>:<address> (a contract on that chain), solana:<reference>:<address>.`,
    readOnly: true,
    options: { ...JSON_OPTION },
    positionals: true,
    check(_values, positionals) {
      if (positionals.length !== 1)
        throw new UsageError('accounts show needs one account or wallet id', accountCommands['accounts show']?.usage);
    },
    async run({ store, values, positionals, out }) {
      const account = store ? await find(store, positionals[0] as string) : undefined;
      if (!store || !account) throw new UsageError(`no account for ${positionals[0]}`);
      const profiles = await readProfiles(
        store,
        account.wallets.map((wallet) => wallet.id),
      );
      const shown = {
        ...view(account),
        wallets: view(account).wallets.map((wallet, i) => ({
          ...wallet,
          ...(profiles[i]?.name ? { name: profiles[i]?.name } : {}),
          ...(profiles[i]?.lastUsedAt ? { last_used_at: iso(profiles[i]?.lastUsedAt as number) } : {}),
        })),
        passkeys: (await listPasskeys(store, account)).map((passkey) => ({
          id: passkey.id,
          name: passkey.name,
          kind: passkey.deviceType === 'multiDevice' ? 'synced' : 'device-bound',
          created_at: iso(passkey.createdAt),
          ...(passkey.lastUsedAt ? { last_used_at: iso(passkey.lastUsedAt) } : {}),
        })),
      };
      print(out, values.json === true, shown, () =>
        [
          formatPairs([
            ['account', shown.id],
            ['created', shown.created],
            ['primary', shown.primary],
          ]),
          '',
          formatTable(
            shown.wallets as Record<string, unknown>[],
            [
              ['id', 'WALLET'],
              ['name', 'NAME'],
              ['linked_at', 'LINKED'],
              ['last_used_at', 'LAST USED'],
            ],
            'no wallets',
          ),
          '',
          formatTable(
            shown.passkeys as Record<string, unknown>[],
            [
              ['id', 'PASSKEY'],
              ['name', 'NAME'],
              ['kind', 'KIND'],
              ['created_at', 'ADDED'],
              ['last_used_at', 'LAST USED'],
            ],
            'no passkeys',
          ),
        ].join('\n'),
      );
    },
  },
  'accounts delete': {
    summary: 'delete an account and end every sign-in of its wallets',
    usage: `usage: signet accounts delete <account id | wallet id> [--json]

Deletes the account, its wallet links and passkeys, and ends what they signed in: grants, access and
refresh tokens, provider sessions; relying parties with a back-channel logout URI are sent a
logout token. The person's wallets may sign in again later: each then makes a new account.`,
    options: { ...JSON_OPTION },
    positionals: true,
    check(_values, positionals) {
      if (positionals.length !== 1)
        throw new UsageError('accounts delete needs one account or wallet id', accountCommands['accounts delete']?.usage);
    },
    async run({ config, store, audit, values, positionals, out }) {
      if (!store) throw new Error('no storage');
      const account = await find(store, positionals[0] as string);
      if (!account) throw new UsageError(`no account for ${positionals[0]}`);
      const deleted = await deleteAccount(store, account.id);
      const { endAccountSignIns } = await import('../relying-party/wallet-revocation.ts');
      const revoked = await endAccountSignIns(
        {
          provider: await providerFor(config, store),
          store,
          logger: createLogger('warn'),
          allowPrivateFetch: config.allowPrivateFetch,
        },
        deleted,
      );
      audit.write('account.deleted', {
        account: account.id,
        reason: 'deleted by the operator',
        ...revoked,
        actor: 'cli',
        os_user: osUser(),
      });
      print(
        out,
        values.json === true,
        { deleted: account.id, ...revoked },
        () =>
          `deleted ${account.id}: ${revoked.grants} grants, ${revoked.sessions} sessions ended, ${revoked.logoutTokens} logout tokens sent`,
      );
    },
  },
};
