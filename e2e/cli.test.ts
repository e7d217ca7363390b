/**
 * The operator's `signet` executable, run as README tells operators to run it
 * (node_modules/.bin/signet, the built JavaScript): help everywhere, tables for people and
 * --json for scripts, exit statuses, and read-only commands that create nothing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { insecure, pkceAuthorization, solanaKeypair, startTestProvider, TEST_REDIRECT_URI, walletSignIn } from '@signet/testkit';
import { postgresSchema, sql } from '@signet/testkit/postgres';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';

const SIGNET = join(import.meta.dirname, '..', 'node_modules', '.bin', 'signet');

function signet(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(SIGNET, args, {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env },
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const tempDb = () => join(mkdtempSync(join(tmpdir(), 'signet-cli-')), 'signet.db');

// Each test spawns the built CLI many times (a node process each): generous timeouts for a busy host.
describe('signet (the operator CLI)', { timeout: 120_000 }, () => {
  it('answers --help for every command without reading settings or storage', () => {
    // A setting that would stop any real command: help must not read it.
    const env = { STORAGE_URL: 'nonsense:', PROFILE: 'nope' };
    const cases: [string[], RegExp][] = [
      [['--help'], /usage: signet <command>/],
      [['provider', '--help'], /usage: signet provider/],
      [['clients', '--help'], /clients add +register a client/],
      [['clients', 'add', '--help'], /--redirect-uri <uri>/],
      [['clients', 'list', '--help'], /usage: signet clients list/],
      [['clients', 'remove', '--help'], /usage: signet clients remove <client_id>/],
      [['clients', 'prune', '--help'], /usage: signet clients prune \[--days N\] \[--dry-run\] \[--json\]/],
      [['keys', '--help'], /keys rotate +make a new signing key/],
      [['keys', 'list', '--help'], /usage: signet keys list/],
      [['keys', 'rotate', '-h'], /usage: signet keys rotate/],
      [['storage', '--help'], /storage copy +copy clients, accounts and keys/],
      [['storage', 'migrate', '--help'], /usage: signet storage migrate/],
      [['accounts', '--help'], /usage: signet accounts <command>/],
      [['accounts', 'show', '--help'], /usage: signet accounts show <account id \| wallet id>/],
      [['accounts', 'delete', '--help'], /usage: signet accounts delete/],
      [['storage', 'copy', '--help'], /usage: signet storage copy --from <url> --to <url>/],
      [['login', '--help'], /usage: signet login --issuer <url> --client-id <id> \[--redirect-uri <uri>\]/],
      [['clients', 'add', '--help'], /--device +also sign in from another device/],
    ];
    for (const [args, expected] of cases) {
      const { status, stdout, stderr } = signet(args, env);
      expect({ args, status, stderr }).toEqual({ args, status: 0, stderr: '' });
      expect(stdout).toMatch(expected);
      // Every help reads in an 100-column terminal, and prose wraps at the width, not mid-list.
      const lines = stdout.trimEnd().split('\n');
      expect({ args, long: lines.filter((line) => line.length > 100) }).toEqual({ args, long: [] });
      const prose = lines.map((line, i) => ({ line, next: lines[i + 1] ?? '' }));
      const cutShort = prose.filter(({ line, next }) => /^[A-Z(a-z]/.test(line) && /^[a-z(]/.test(next) && line.length < 60);
      expect({ args, cutShort }).toEqual({ args, cutShort: [] });
    }
    const version = signet(['--version']);
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('reports a bad command line in one line plus the usage (exit 64), never a stack trace', () => {
    for (const args of [
      ['clients', 'add', '--bogus'],
      ['clients', 'add'],
      ['clients', 'frobnicate'],
      ['nope'],
      ['clients', 'remove'],
      ['clients', 'prune', '--days', 'many'],
      ['storage', 'copy', '--from', 'sqlite:/tmp/a.db'],
      ['storage', 'migrate', '--lock-timeout-ms', 'soon'],
      ['login'],
      [
        'login',
        '--issuer',
        'https://id.example.com',
        '--client-id',
        'c',
        '--redirect-uri',
        'https://rp.example/cb',
        '--key',
        'x',
      ],
      [
        'login',
        '--issuer',
        'https://id.example.com',
        '--client-id',
        'c',
        '--redirect-uri',
        'https://rp.example/cb',
        '--chain-id',
        'one',
      ],
    ]) {
      const { status, stderr } = signet(args, { STORAGE_URL: `sqlite:${tempDb()}` });
      expect({ args, status }).toEqual({ args, status: 64 });
      expect(stderr).toMatch(/^signet: /);
      expect(stderr).toMatch(/usage: signet/);
      expect(stderr).not.toMatch(/\n\s+at /);
    }
    const bad = signet(['clients', 'list'], { STORAGE_URL: 'nonsense:' });
    expect(bad.status).toBe(78);
    expect(bad.stderr).toMatch(/STORAGE_URL/);
    const memory = signet(['clients', 'list'], { STORAGE_URL: 'memory:' });
    expect(memory.status).toBe(64);
    expect(memory.stderr).toMatch(/STORAGE_URL to sqlite:<path>, postgres:\/\/… or redis:\/\/…/);
  });
});

describe('signet (the operator CLI): tables, JSON and round trips', { timeout: 120_000 }, () => {
  it('read-only commands on an empty store create nothing: no database, no keys', () => {
    const db = tempDb();
    const env = { STORAGE_URL: `sqlite:${db}` };
    // The commands' own output only: no line of oidc-provider's about the Node version (on Node 20).
    expect(signet(['clients', 'list'], env)).toEqual({ status: 0, stdout: 'no clients\n', stderr: '' });
    expect(signet(['keys', 'list'], env)).toMatchObject({ status: 0, stdout: expect.stringMatching(/^no signing keys yet/) });
    expect(signet(['clients', 'list', '--json'], env)).toMatchObject({ status: 0, stdout: '[]\n' });
    expect(existsSync(db)).toBe(false);
  });

  it('prints tables for people and JSON for scripts; add, list, remove and rotate round-trip', () => {
    const db = tempDb();
    const env = { STORAGE_URL: `sqlite:${db}` };
    const added = signet(
      ['clients', 'add', '--redirect-uri', 'https://rp.example/cb', '--name', 'Table RP', '--secret', '--id', 'table-rp'],
      env,
    );
    expect(added.status).toBe(0);
    expect(added.stdout).toMatch(/^client_id +table-rp$/m);
    expect(added.stdout).toMatch(/^client_secret +[\w-]{40,}$/m);
    expect(added.stdout).toMatch(/shown once/);
    // Invalid metadata is refused as a registration would be, and nothing is stored.
    const refused = signet(['clients', 'add', '--redirect-uri', 'http://public.example/cb', '--id', 'bad'], env);
    expect(refused.status).toBe(64);
    expect(refused.stderr).toMatch(/invalid client: .*redirect_uris/);
    // Access conditions: validated as a registration would be (a chain needs an RPC node).
    const gate = (conditions: unknown) =>
      signet(
        [
          'clients',
          'add',
          '--redirect-uri',
          'https://rp.example/cb',
          '--id',
          'gated',
          '--access-conditions',
          JSON.stringify(conditions),
        ],
        {
          ...env,
          ETH_RPC_URL: 'http://127.0.0.1:9/',
        },
      );
    const nft = { type: 'erc721', chainId: 1, contract: `0x${'ab'.repeat(20)}` };
    expect(gate({ match: 'all', conditions: [{ ...nft, chainId: 10 }] })).toMatchObject({
      status: 64,
      stderr: expect.stringMatching(/invalid client: access_conditions\.conditions\[0\]\.chainId: chain 10 has no RPC node/),
    });
    const notJson = signet(['clients', 'add', '--redirect-uri', 'https://rp.example/cb', '--access-conditions', '{match'], env);
    expect(notJson.status).toBe(64);
    expect(notJson.stderr).toMatch(/--access-conditions is not JSON/);
    expect(gate({ match: 'all', conditions: [nft] }).status).toBe(0);
    expect(signet(['clients', 'remove', 'gated'], env).status).toBe(0);
    // Account namespaces: solana only where the provider offers it (SOLANA_NETWORKS), as at registration.
    const solanaOnly = (extra: Record<string, string> = {}) =>
      signet(['clients', 'add', '--redirect-uri', 'https://rp.example/cb', '--id', 'guild', '--account-namespaces', 'solana'], {
        ...env,
        ...extra,
      });
    expect(solanaOnly()).toMatchObject({
      status: 64,
      stderr: expect.stringMatching(/invalid client: account_namespaces\[0\]: this provider does not offer Solana accounts/),
    });
    expect(
      signet(
        ['clients', 'add', '--redirect-uri', 'https://rp.example/cb', '--id', 'guild', '--account-namespaces', 'eip155,ton'],
        env,
      ),
    ).toMatchObject({ status: 64, stderr: expect.stringMatching(/account_namespaces\[1\]: "ton" is not a namespace/) });
    expect(solanaOnly({ SOLANA_NETWORKS: 'mainnet' }).status).toBe(0);
    expect(signet(['clients', 'remove', 'guild'], env).status).toBe(0);
    const duplicate = signet(['clients', 'add', '--redirect-uri', 'https://rp.example/cb', '--id', 'table-rp'], env);
    expect(duplicate.status).toBe(64);
    expect(duplicate.stderr).toMatch(/already exists/);

    const table = signet(['clients', 'list'], env);
    expect(table.status).toBe(0);
    const [header, row, ...more] = table.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^CLIENT_ID +SOURCE +AUTH +USED +NAME +REDIRECT_URIS$/);
    expect(row).toMatch(/^table-rp +storage +client_secret_basic +operator +Table RP +https:\/\/rp\.example\/cb$/);
    expect(more).toEqual([]);
    expect(table.stdout).not.toMatch(/client_secret[^_]/);
    const json = JSON.parse(signet(['clients', 'list', '--json'], env).stdout);
    expect(json).toEqual([
      {
        client_id: 'table-rp',
        source: 'storage',
        client_name: 'Table RP',
        redirect_uris: ['https://rp.example/cb'],
        auth: 'client_secret_basic',
        used: 'operator',
      },
    ]);

    const rotated = JSON.parse(signet(['keys', 'rotate', '--json'], env).stdout);
    expect(rotated).toEqual({ signing: expect.any(String), retired: [], dropped: [] });
    const again = JSON.parse(signet(['keys', 'rotate', '--json'], env).stdout);
    expect(again.retired).toEqual([rotated.signing]);
    const keys = signet(['keys', 'list'], env).stdout.trimEnd().split('\n');
    expect(keys[0]).toMatch(/^KID +ALG +CREATED +STATUS +UNPUBLISHED_AFTER$/);
    expect(keys[1]).toMatch(new RegExp(`^${again.signing} +RS256 +\\S+ +signing +-$`));
    expect(keys[2]).toMatch(new RegExp(`^${rotated.signing} +RS256 +\\S+ +retired`));

    expect(signet(['clients', 'remove', 'table-rp', '--json'], env)).toMatchObject({
      status: 0,
      stdout: '{\n  "removed": "table-rp"\n}\n',
    });
    expect(signet(['clients', 'remove', 'table-rp'], env)).toMatchObject({
      status: 64,
      stderr: expect.stringMatching(/no client table-rp/),
    });
    expect(signet(['clients', 'list'], env).stdout).toBe('no clients\n');
  });
});

describe('signet (the operator CLI): pruning clients, and PostgreSQL', { timeout: 120_000 }, () => {
  it('clients prune lists (--dry-run) and removes dynamically registered clients never used for a sign-in, and nothing else', async () => {
    const db = tempDb();
    const env = { STORAGE_URL: `sqlite:${db}` };
    // The operator's client (never a candidate) creates the database.
    expect(signet(['clients', 'add', '--redirect-uri', 'https://rp.example/cb', '--id', 'operator-rp'], env).status).toBe(0);
    // The first prune on a storage, like a provider's first start, marks the clients already there
    // as used; the ones registered after it are judged.
    expect(JSON.parse(signet(['clients', 'prune', '--days', '1', '--dry-run', '--json'], env).stdout).would_remove).toEqual([]);
    const { createStore, createOidcAdapter } = await import('../apps/provider/src/storage/index.ts');
    const { loadConfig } = await import('../apps/provider/src/config.ts');
    const store = await createStore(loadConfig(env));
    try {
      const Adapter = createOidcAdapter(store);
      const old = Math.floor(Date.now() / 1000) - 40 * 24 * 3600;
      for (const id of ['spam-1', 'spam-2', 'signed-in']) {
        await new Adapter('Client').upsert(id, {
          client_id: id,
          client_id_issued_at: old,
          redirect_uris: [`https://${id}.example/cb`],
          token_endpoint_auth_method: 'none',
        });
        await new Adapter('RegistrationAccessToken').upsert(`rat-${id}`, { clientId: id });
      }
      await store.set('client:used:signed-in', JSON.stringify({ at: Date.now(), by: 'sign-in' }));
    } finally {
      await store.close();
    }
    const needsDays = signet(['clients', 'prune'], env);
    expect(needsDays.status).toBe(64);
    expect(needsDays.stderr).toMatch(/needs --days N \(CLIENT_UNUSED_EXPIRY_DAYS is not set\)/);
    const dry = JSON.parse(signet(['clients', 'prune', '--days', '30', '--dry-run', '--json'], env).stdout);
    expect(dry).toMatchObject({ days: 30, dry_run: true });
    expect(dry.would_remove.map((c: { client_id: string }) => c.client_id)).toEqual(['spam-1', 'spam-2']);
    expect(signet(['clients', 'list', '--json'], env).stdout).toContain('spam-1');
    const table = signet(['clients', 'prune'], { ...env, CLIENT_UNUSED_EXPIRY_DAYS: '30' });
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(/^CLIENT_ID +REGISTERED +NAME +REDIRECT_URIS$/m);
    expect(table.stdout).toMatch(/^spam-1 +\d{4}-\d\d-\d\dT/m);
    expect(table.stdout).toMatch(/removed 2 client\(s\)/);
    const left = JSON.parse(signet(['clients', 'list', '--json'], env).stdout).map((c: { client_id: string }) => c.client_id);
    expect(left.sort()).toEqual(['operator-rp', 'signed-in']);
    expect(signet(['clients', 'prune', '--days', '30'], env).stdout).toMatch(/no dynamically registered client has gone unused/);
  });

  it('works against PostgreSQL: storage migrate, clients and keys round-trip, storage copy to SQLite; never shows the password', async () => {
    const schema = postgresSchema();
    const env = { STORAGE_URL: schema.url };
    try {
      expect(signet(['storage', 'migrate'], env)).toMatchObject({
        status: 0,
        stdout: expect.stringMatching(
          new RegExp(
            `^schema ${schema.schema} at postgres://127\\.0\\.0\\.1:5432/test: version 0 → 3\n  applied 1: key-value, sets, batch function\n  applied 2: client record changes announced\n  applied 3: reads that follow references\n$`,
          ),
        ),
      });
      expect(JSON.parse(signet(['storage', 'migrate', '--json'], env).stdout)).toMatchObject({ from: 3, to: 3, applied: [] });
      expect(signet(['clients', 'add', '--redirect-uri', 'https://rp.example/cb', '--id', 'pg-rp', '--secret'], env).status).toBe(
        0,
      );
      expect(JSON.parse(signet(['clients', 'list', '--json'], env).stdout)).toEqual([
        expect.objectContaining({ client_id: 'pg-rp', source: 'storage', auth: 'client_secret_basic' }),
      ]);
      const rotated = JSON.parse(signet(['keys', 'rotate', '--json'], env).stdout);
      expect(signet(['keys', 'list'], env).stdout).toMatch(new RegExp(`^${rotated.signing} +RS256 +\\S+ +signing`, 'm'));
      // The rows are PostgreSQL's: another session reads them.
      const rows = await sql(schema.url, `SELECT key FROM "${schema.schema}".kv ORDER BY key`);
      expect(rows.map((row) => row.key)).toEqual(expect.arrayContaining(['keys:signing', 'oidc:Client:pg-rp']));

      const db = tempDb();
      const copy = signet(['storage', 'copy', '--from', schema.url, '--to', `sqlite:${db}`], env);
      expect(copy.status, copy.stderr).toBe(0);
      expect(copy.stdout).toMatch(/^PART +COPIED AS +RECORDS +NEW +UNCHANGED +OVERWRITTEN$/m);
      // One client is one client, whatever records it has (its registration access token, usage).
      expect(copy.stdout).toMatch(/^clients +1 client +\d+ +\d+ +0 +0$/m);
      expect(copy.stdout).toMatch(/^keys +1 key set +1 +1 +0 +0$/m);
      expect(copy.stdout).toMatch(/^accounts +0 accounts +0 +0 +0 +0$/m);
      const copied = JSON.parse(signet(['storage', 'copy', '--from', schema.url, '--to', `sqlite:${db}`, '--json'], env).stdout);
      expect(copied.clients).toMatchObject({ items: 1, copied: 0 });
      expect(copied.clients.records).toBeGreaterThan(1);
      expect(copied.clients.unchanged).toBe(copied.clients.records);
      expect(JSON.parse(signet(['clients', 'list', '--json'], { STORAGE_URL: `sqlite:${db}` }).stdout)[0].client_id).toBe(
        'pg-rp',
      );
      // A key the target holds with another value: refused (64) unless --force.
      expect(signet(['keys', 'rotate'], { STORAGE_URL: `sqlite:${db}` }).status).toBe(0);
      expect(signet(['storage', 'copy', '--from', schema.url, '--to', `sqlite:${db}`], env)).toMatchObject({
        status: 64,
        stderr: expect.stringMatching(/keys:signing.*--force overwrites them/),
      });
      expect(signet(['storage', 'copy', '--from', schema.url, '--to', `sqlite:${db}`, '--force'], env).status).toBe(0);

      expect(signet(['clients', 'remove', 'pg-rp'], env).status).toBe(0);
      expect(signet(['clients', 'list'], env).stdout).toBe('no clients\n');
      // Storage that cannot be reached: words naming STORAGE_URL and host:port/database, not the password.
      const away = signet(['clients', 'list'], { STORAGE_URL: 'postgres://signet:hunter2@127.0.0.1:1/signet?sslmode=disable' });
      expect(away.status).toBe(78);
      expect(away.stderr).toMatch(/STORAGE_URL: PostgreSQL at postgres:\/\/127\.0\.0\.1:1\/signet does not answer/);
      expect(away.stderr).not.toContain('hunter2');
      expect(signet(['storage', 'migrate'], { STORAGE_URL: `sqlite:${tempDb()}` }).stdout).toBe(
        'sqlite storage needs no migration step\n',
      );
    } finally {
      await schema.drop();
    }
  });
});

describe('signet (the operator CLI): accounts', { timeout: 120_000 }, () => {
  it('accounts list, show (by account or wallet id) and delete: the deletion ends the wallet’s tokens', async () => {
    const db = tempDb();
    // The operator's account client (--account-subject): sub is the person's account, not the wallet.
    const added = signet(['clients', 'add', '--redirect-uri', TEST_REDIRECT_URI, '--id', 'acct-rp', '--account-subject'], {
      STORAGE_URL: `sqlite:${db}`,
    });
    expect(added.status, added.stderr).toBe(0);
    const provider = await startTestProvider({ STORAGE_URL: `sqlite:${db}` });
    try {
      const client = await oidc.discovery(
        new URL(provider.url),
        'acct-rp',
        { token_endpoint_auth_method: 'none' },
        oidc.None(),
        insecure,
      );
      const alice = privateKeyToAccount(generatePrivateKey());
      const { url, verifier } = await pkceAuthorization(client);
      const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer: alice });
      const tokens = await oidc.authorizationCodeGrant(client, callbackUrl, { pkceCodeVerifier: verifier });
      const account = tokens.claims()?.sub as string;
      expect(account).not.toContain(alice.address);
      expect(tokens.claims()?.wallet).toBe(`eip155:0:${alice.address}`);
      const env = { STORAGE_URL: `sqlite:${db}` };

      const list = signet(['accounts', 'list', '--json'], env);
      expect(list.status, list.stderr).toBe(0);
      expect(JSON.parse(list.stdout)).toEqual([
        expect.objectContaining({
          id: account,
          primary: `eip155:0:${alice.address}`,
          wallets: [expect.objectContaining({ id: `eip155:0:${alice.address}`, primary: true })],
        }),
      ]);
      expect(signet(['accounts', 'list'], env).stdout).toMatch(
        new RegExp(`^ACCOUNT\\s+CREATED\\s+WALLETS\\s+PRIMARY\\n${account}`),
      );
      const byWallet = signet(['accounts', 'show', `eip155:0:${alice.address}`, '--json'], env);
      expect(JSON.parse(byWallet.stdout).id).toBe(account);
      expect(signet(['accounts', 'show', account], env).stdout).toContain(`eip155:0:${alice.address}`);
      expect(signet(['accounts', 'show', 'acct_nobody'], env)).toMatchObject({ status: 64 });

      const removed = signet(['accounts', 'delete', account, '--json'], env);
      expect(removed.status, removed.stderr).toBe(0);
      expect(JSON.parse(removed.stdout)).toMatchObject({ deleted: account, grants: 1 });
      expect(JSON.parse(signet(['accounts', 'list', '--json'], env).stdout)).toEqual([]);
      await expect(oidc.fetchUserInfo(client, tokens.access_token, oidc.skipSubjectCheck)).rejects.toThrow();
    } finally {
      await provider.stop();
    }
  });
});

/** `signet …` without blocking this process (the provider it talks to runs here). */
function signetAsync(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(SIGNET, args, { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('signet login (a program signs in with its own key)', { timeout: 120_000 }, () => {
  it("Ethereum key from a file, Solana key from the environment, then --refresh: tokens for the key's account, the key never printed", async () => {
    const provider = await startTestProvider({ SOLANA_NETWORKS: 'mainnet' });
    try {
      const registered = (await (
        await fetch(`${provider.url}/reg`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            redirect_uris: [TEST_REDIRECT_URI],
            grant_types: ['authorization_code', 'refresh_token'],
            token_endpoint_auth_method: 'none',
          }),
        })
      ).json()) as { client_id: string };
      const common = ['--issuer', provider.issuer, '--client-id', registered.client_id, '--redirect-uri', TEST_REDIRECT_URI];
      const key = generatePrivateKey();
      const keyFile = join(mkdtempSync(join(tmpdir(), 'signet-login-')), 'key.hex');
      writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
      const ethereum = await signetAsync([
        'login',
        ...common,
        '--key-file',
        keyFile,
        '--scope',
        'openid offline_access',
        '--json',
      ]);
      expect(ethereum.status, ethereum.stderr).toBe(0);
      const tokens = JSON.parse(ethereum.stdout) as { sub: string; id_token: string; refresh_token: string };
      const sub = `eip155:1:${privateKeyToAccount(key).address}`;
      expect(tokens.sub).toBe(sub);
      expect(decodeJwt(tokens.id_token).sub).toBe(sub);
      expect(ethereum.stdout + ethereum.stderr).not.toContain(key.slice(2));

      const renewed = await signetAsync(['login', '--refresh', ...common.slice(0, 4)], {
        SIGNET_REFRESH_TOKEN: tokens.refresh_token,
      });
      expect(renewed.status, renewed.stderr).toBe(0);
      expect(renewed.stdout).toMatch(new RegExp(`^sub +${sub}$`, 'm'));
      expect(renewed.stdout).toMatch(/^access_token +\S+$/m);

      const keypair = solanaKeypair(new Uint8Array(32).fill(9));
      const seed = Buffer.from(new Uint8Array(32).fill(9)).toString('hex');
      const solana = await signetAsync(['login', ...common, '--solana'], { SIGNET_LOGIN_KEY: seed });
      expect(solana.status, solana.stderr).toBe(0);
      expect(solana.stdout).toMatch(new RegExp(`^sub +solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:${keypair.address}$`, 'm'));
      expect(solana.stdout + solana.stderr).not.toContain(seed);
    } finally {
      await provider.stop();
    }
  });

  it('a key, secret or token file that group or others may read is refused (chmod 600), or with --allow-readable-files used with a warning', async () => {
    const provider = await startTestProvider();
    try {
      const registered = (await (
        await fetch(`${provider.url}/reg`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ redirect_uris: [TEST_REDIRECT_URI], token_endpoint_auth_method: 'none' }),
        })
      ).json()) as { client_id: string };
      const common = ['--issuer', provider.issuer, '--client-id', registered.client_id, '--redirect-uri', TEST_REDIRECT_URI];
      const key = generatePrivateKey();
      const dir = mkdtempSync(join(tmpdir(), 'signet-login-'));
      for (const mode of [0o644, 0o640, 0o604, 0o620]) {
        const keyFile = join(dir, `key-${mode.toString(8)}.hex`);
        writeFileSync(keyFile, `${key}\n`);
        chmodSync(keyFile, mode);
        const refused = await signetAsync(['login', ...common, '--key-file', keyFile]);
        expect(refused.status, mode.toString(8)).toBe(1);
        expect(refused.stderr).toContain(
          `signet: the key file ${keyFile} is open to group or others (mode 0${mode.toString(8)}): run chmod 600 ${keyFile}, or pass --allow-readable-files`,
        );
        expect(refused.stdout).toBe('');
        expect(refused.stdout + refused.stderr).not.toContain(key.slice(2));
      }
      const shared = join(dir, 'key-644.hex');
      const used = await signetAsync(['login', ...common, '--key-file', shared, '--allow-readable-files']);
      expect(used.status, used.stderr).toBe(0);
      expect(used.stdout).toMatch(new RegExp(`^sub +eip155:1:${privateKeyToAccount(key).address}$`, 'm'));
      expect(used.stderr).toMatch(/^signet: warning: the key file .* is open to group or others \(mode 0644\): run chmod 600 /m);
      // The same rule for a client secret's file.
      const secretFile = join(dir, 'secret');
      writeFileSync(secretFile, 'not-a-real-secret\n', { mode: 0o644 });
      chmodSync(secretFile, 0o644);
      const secret = await signetAsync(['login', ...common, '--client-secret-file', secretFile], { SIGNET_LOGIN_KEY: key });
      expect(secret.status).toBe(1);
      expect(secret.stderr).toContain('the client secret file');
      // An owner-only file is used without a word.
      const own = join(dir, 'own.hex');
      writeFileSync(own, `${key}\n`, { mode: 0o600 });
      const quiet = await signetAsync(['login', ...common, '--key-file', own]);
      expect(quiet.status, quiet.stderr).toBe(0);
      expect(quiet.stderr).not.toContain('warning');
    } finally {
      await provider.stop();
    }
  });
});

describe('signet login (a program signs in with its own key): refusals, and device-only clients', { timeout: 120_000 }, () => {
  it('refusals exit 1 with the reason in one line: a wrong client, a bad key; no stack trace', async () => {
    const provider = await startTestProvider();
    try {
      const common = ['--issuer', provider.issuer, '--redirect-uri', TEST_REDIRECT_URI];
      const wrongClient = await signetAsync(['login', ...common, '--client-id', 'nobody'], {
        SIGNET_LOGIN_KEY: generatePrivateKey(),
      });
      expect(wrongClient.status).toBe(1);
      expect(wrongClient.stderr).toMatch(/^signet: login refused: invalid_client: /);
      expect(wrongClient.stderr).not.toMatch(/\n\s+at /);
      const badKey = await signetAsync(['login', ...common, '--client-id', 'nobody'], { SIGNET_LOGIN_KEY: 'not-a-key' });
      expect(badKey.status).toBe(1);
      expect(badKey.stderr).toMatch(/^signet: login refused: INVALID_KEY: an Ethereum key must be/);
      expect(badKey.stderr).not.toContain('not-a-key');
      const noKey = await signetAsync(['login', ...common, '--client-id', 'nobody']);
      expect(noKey.status).toBe(64);
      expect(noKey.stderr).toMatch(/login needs --key-file or SIGNET_LOGIN_KEY/);
    } finally {
      await provider.stop();
    }
  });

  it('clients add --device: a device-only client (the device_code grant and refresh tokens, no redirect URI)', () => {
    const env = { STORAGE_URL: `sqlite:${tempDb()}` };
    const added = signet(['clients', 'add', '--device', '--name', 'Living-room TV', '--id', 'tv', '--json'], env);
    expect(added.status, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({
      client_id: 'tv',
      redirect_uris: [],
      grant_types: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
    });
  });

  it('clients add --agent, then signet login without a redirect URI: one request, the JWT bearer grant', async () => {
    const file = tempDb();
    const env = { STORAGE_URL: `sqlite:${file}` };
    const added = signet(['clients', 'add', '--agent', '--name', 'Trading agent', '--id', 'agent', '--json'], env);
    expect(added.status, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({
      client_id: 'agent',
      redirect_uris: [],
      grant_types: ['urn:ietf:params:oauth:grant-type:jwt-bearer', 'refresh_token'],
    });
    const provider = await startTestProvider({ STORAGE_URL: `sqlite:${file}` });
    try {
      const key = generatePrivateKey();
      const agent = await signetAsync(['login', '--issuer', provider.issuer, '--client-id', 'agent', '--json'], {
        SIGNET_LOGIN_KEY: key,
      });
      expect(agent.status, agent.stderr).toBe(0);
      const printed = JSON.parse(agent.stdout) as { sub: string; id_token: string };
      expect(printed.sub).toBe(`eip155:1:${privateKeyToAccount(key).address}`);
      expect(decodeJwt(printed.id_token).amr).toEqual(['agent']);
    } finally {
      await provider.stop();
    }
  });
});
