/** `signet keys …`: list the signing keys, rotate them. */
import { listSigningKeys, RETIRED_KEY_RETENTION_MS, rotateSigningKeys } from '../oidc/keys.ts';
import { type Command, formatPairs, formatTable, JSON_OPTION, osUser, print } from './command.ts';

export const keyCommands: Record<string, Command> = {
  'keys list': {
    summary: 'list the signing keys and their status',
    usage: `usage: signet keys list [--json]

The signing key and the retired keys still published for verification (private parts are
never shown).`,
    readOnly: true,
    options: { ...JSON_OPTION },
    async run({ store, values, out }) {
      const keys = store ? await listSigningKeys(store) : [];
      const rows = keys.map((k) => ({
        kid: k.kid,
        alg: k.alg,
        created: new Date(k.createdAt).toISOString(),
        status: k.retiredAt === undefined ? 'signing' : 'retired (published for verification)',
        ...(k.retiredAt === undefined
          ? {}
          : { unpublished_after: new Date(k.retiredAt + RETIRED_KEY_RETENTION_MS).toISOString() }),
      }));
      print(out, values.json === true, rows, () =>
        formatTable(
          rows,
          [
            ['kid', 'KID'],
            ['alg', 'ALG'],
            ['created', 'CREATED'],
            ['status', 'STATUS'],
            ['unpublished_after', 'UNPUBLISHED_AFTER'],
          ],
          'no signing keys yet (the provider creates one when it first starts)',
        ),
      );
    },
  },
  'keys rotate': {
    summary: 'make a new signing key; the old one stays published for an hour',
    usage: `usage: signet keys rotate [--json]

Creates a new signing key. The previous key is retired but stays in the key set long enough for
everything it signed to expire. Running providers switch to the new key within 30 seconds.`,
    options: { ...JSON_OPTION },
    async run({ store, audit, values, out }) {
      if (!store) throw new Error('no storage');
      const { added, retired, dropped } = await rotateSigningKeys(store);
      audit.write('signing_key.rotated', { kid: added.kid, retired, dropped, actor: 'cli', os_user: osUser() });
      print(out, values.json === true, { signing: added.kid, retired, dropped }, () =>
        [
          formatPairs([
            ['signing', added.kid],
            ['retired', retired.length ? retired : '-'],
            ['dropped', dropped.length ? dropped : '-'],
          ]),
          '',
          'Running providers switch to the new key within 30 seconds.',
        ].join('\n'),
      );
    },
  },
};
