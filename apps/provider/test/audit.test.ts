/**
 * Audit events (AUDIT_LOG): one JSON line per event, each with "type": "audit", its event name
 * and a time, never a secret, token, code or signature. One test per event type, driven over
 * real HTTP (the provider in process, a real local chain for the gated client's refresh), and
 * the CLI's changes (actor "cli").
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '@signet/provider/cli';
import { startTestchain, type Testchain, type TestToken } from '@signet/testchain';
import {
  CookieJar,
  getDetails,
  insecure,
  messageFor,
  pkceAuthorization,
  postSignature,
  request,
  startInteraction,
  startTestProvider,
  TEST_REDIRECT_URI,
  type TestProvider,
  walletSignIn,
} from '@signet/testkit';
import * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type AuditLine = Record<string, unknown> & { type: string; event: string; time: string };

const dir = mkdtempSync(join(tmpdir(), 'signet-audit-'));
const BYE = 'http://127.0.0.1:4999/bye';

function linesOf(file: string): AuditLine[] {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditLine);
}

// One provider writing its audit log, shared by the "audit events" describes below.
const file = join(dir, 'provider', 'audit.log');

let chain: Testchain;
let erc721: TestToken;
let provider: TestProvider;

/** Secrets handed out during the run: none may appear in the audit file. */
const secrets: string[] = [];

/** Waits for the events matching `fields` (the file is written asynchronously) and returns them. */
async function events(event: string, fields: Record<string, unknown> = {}): Promise<AuditLine[]> {
  let found: AuditLine[] = [];
  await expect
    .poll(() => {
      found = linesOf(file).filter((line) => line.event === event && expect.objectContaining(fields).asymmetricMatch(line));
      return found.length;
    })
    .toBeGreaterThan(0);
  return found;
}

beforeAll(async () => {
  chain = await startTestchain({ chainId: 1, ens: false });
  erc721 = await chain.deployToken('erc721');
  provider = await startTestProvider({ AUDIT_LOG: file, ETH_RPC_URL: chain.url, ACCESS_CACHE_SECONDS: '0' });
});
afterAll(async () => {
  await provider?.stop();
  await chain?.stop();
  // Nothing secret was written, whatever the events.
  const text = readFileSync(file, 'utf8');
  for (const secret of secrets) expect(text).not.toContain(secret);
  rmSync(dir, { recursive: true, force: true });
});

async function client(metadata: Partial<oidc.ClientMetadata> = {}) {
  const config = await oidc.dynamicClientRegistration(
    new URL(provider.url),
    { redirect_uris: [TEST_REDIRECT_URI], post_logout_redirect_uris: [BYE], token_endpoint_auth_method: 'none', ...metadata },
    oidc.None(),
    insecure,
  );
  const meta = config.clientMetadata() as Record<string, string>;
  secrets.push(meta.registration_access_token as string);
  return config;
}

async function signIn(config: oidc.Configuration, scope = 'openid profile') {
  const signer = privateKeyToAccount(generatePrivateKey());
  const { url, verifier } = await pkceAuthorization(config, { scope, prompt: 'consent' });
  const jar = new CookieJar();
  const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer, jar });
  secrets.push(callbackUrl.searchParams.get('code') as string);
  const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier });
  for (const token of [tokens.access_token, tokens.id_token, tokens.refresh_token]) if (token) secrets.push(token);
  return { signer, tokens, jar };
}

describe('audit events', () => {
  it('every line: type audit, an event name, an ISO time', async () => {
    const config = await client();
    await events('client.registered', { client_id: config.clientMetadata().client_id });
    const lines = linesOf(file);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line.type).toBe('audit');
      expect(typeof line.event).toBe('string');
      expect(new Date(line.time).toISOString()).toBe(line.time);
    }
  });

  it('client.registered: open registration, with what identifies the client', async () => {
    const config = await client({ client_name: 'Audited App' });
    const [line] = await events('client.registered', { client_id: config.clientMetadata().client_id });
    expect(line).toMatchObject({
      actor: 'open_registration',
      client_name: 'Audited App',
      redirect_uris: [TEST_REDIRECT_URI],
      token_endpoint_auth_method: 'none',
      gated: false,
      ip: expect.any(String),
      request_id: expect.any(String),
    });
  });

  it('client.updated and client.deleted: by the registration access token', async () => {
    const config = await client();
    const meta = config.clientMetadata() as Record<string, string>;
    const headers = { authorization: `Bearer ${meta.registration_access_token}`, 'content-type': 'application/json' };
    const updated = await fetch(meta.registration_client_uri as string, {
      method: 'PUT',
      headers,
      body: JSON.stringify({
        client_id: meta.client_id,
        redirect_uris: [TEST_REDIRECT_URI],
        token_endpoint_auth_method: 'none',
        client_name: 'Renamed',
      }),
    });
    expect(updated.status).toBe(200);
    expect((await events('client.updated', { client_id: meta.client_id }))[0]).toMatchObject({
      actor: 'registration_access_token',
      client_name: 'Renamed',
    });
    expect((await fetch(meta.registration_client_uri as string, { method: 'DELETE', headers })).status).toBe(204);
    expect((await events('client.deleted', { client_id: meta.client_id }))[0]).toMatchObject({
      actor: 'registration_access_token',
    });
  });

  it('sign_in.succeeded and consent.granted: client, account, method, scope', async () => {
    const config = await client();
    const { signer } = await signIn(config, 'openid profile');
    const account = `eip155:1:${signer.address}`;
    const [succeeded] = await events('sign_in.succeeded', { account });
    expect(succeeded).toMatchObject({ client_id: config.clientMetadata().client_id, method: 'eoa', uid: expect.any(String) });
    const [consent] = await events('consent.granted', { account });
    expect(consent).toMatchObject({ client_id: config.clientMetadata().client_id, scope: 'openid profile' });
  });
});

describe('audit events: refusals, tokens and logout', () => {
  it('sign_in.refused: the reason, and the account the message claims', async () => {
    const config = await client();
    const jar = new CookieJar();
    const { url } = await pkceAuthorization(config);
    const interaction = await startInteraction(jar, url);
    const details = await getDetails(jar, interaction);
    const claimed = privateKeyToAccount(generatePrivateKey());
    const message = messageFor(details, claimed.address);
    const signature = await privateKeyToAccount(generatePrivateKey()).signMessage({ message });
    secrets.push(signature);
    expect((await postSignature(jar, interaction, { message, signature })).status).toBe(401);
    const [line] = await events('sign_in.refused', { account: `eip155:1:${claimed.address}` });
    expect(line).toMatchObject({
      client_id: config.clientMetadata().client_id,
      reason: 'INVALID_SIGNATURE',
      status: 401,
      uid: details.uid,
      account_verified: false,
    });
    expect(line).not.toHaveProperty('method');
  });

  it('sign_in.refused after the signature verified: the proven account and method (a gated client)', async () => {
    const config = await client({
      access_conditions: { match: 'all', conditions: [{ type: 'erc721', chainId: 1, contract: erc721.address }] },
    } as Partial<oidc.ClientMetadata>);
    const outsider = privateKeyToAccount(generatePrivateKey());
    await expect(walletSignIn({ authorizationUrl: (await pkceAuthorization(config)).url, signer: outsider })).rejects.toThrow(
      /403/,
    );
    const [line] = await events('sign_in.refused', { account: `eip155:1:${outsider.address}` });
    expect(line).toMatchObject({
      client_id: config.clientMetadata().client_id,
      reason: 'ACCESS_CONDITION_NOT_MET',
      status: 403,
      account_verified: true,
      method: 'eoa',
    });
  });

  it('token.issued: the grant type and the kinds of token, never their values', async () => {
    const config = await client({ grant_types: ['authorization_code', 'refresh_token'] });
    const { signer, tokens } = await signIn(config, 'openid offline_access');
    const account = `eip155:1:${signer.address}`;
    const [issued] = await events('token.issued', { account, grant_type: 'authorization_code' });
    expect(issued).toMatchObject({
      client_id: config.clientMetadata().client_id,
      issued: ['access_token', 'id_token', 'refresh_token'],
      scope: 'openid offline_access',
    });
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
    secrets.push(refreshed.access_token, refreshed.refresh_token as string);
    expect((await events('token.issued', { account, grant_type: 'refresh_token' }))[0]).toMatchObject({
      issued: expect.arrayContaining(['access_token', 'refresh_token']),
    });
  });

  it('refresh.refused: a gated client whose holder no longer qualifies', async () => {
    const config = await client({
      grant_types: ['authorization_code', 'refresh_token'],
      access_conditions: { match: 'all', conditions: [{ type: 'erc721', chainId: 1, contract: erc721.address }] },
    } as Partial<oidc.ClientMetadata>);
    const holder = privateKeyToAccount(generatePrivateKey());
    await erc721.mint(holder.address, { id: 77n });
    const { url, verifier } = await pkceAuthorization(config, { scope: 'openid offline_access', prompt: 'consent' });
    const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer: holder });
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier });
    await erc721.move(holder.address, privateKeyToAccount(generatePrivateKey()).address, { id: 77n });
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token as string)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    const [line] = await events('refresh.refused', { account: `eip155:1:${holder.address}` });
    expect(line).toMatchObject({
      client_id: config.clientMetadata().client_id,
      reason: 'ACCESS_CONDITION_NOT_MET',
      description: expect.stringMatching(/ERC-721/),
      grant_revoked: true,
    });
  });

  it('logout: the account and the client whose ID token asked', async () => {
    const config = await client();
    const { signer, tokens, jar } = await signIn(config);
    const endSession = new URL(`${provider.url}/session/end`);
    endSession.search = new URLSearchParams({
      id_token_hint: tokens.id_token as string,
      post_logout_redirect_uri: BYE,
    }).toString();
    const page = await (await request(jar, endSession)).text();
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(page)?.[1] as string;
    const action = /action="([^"]+)"/.exec(page)?.[1] as string;
    const done = await request(jar, new URL(action, provider.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xsrf, logout: 'yes' }),
    });
    expect(done.status).toBe(303);
    const [line] = await events('logout', { account: `eip155:1:${signer.address}` });
    expect(line).toMatchObject({ client_id: config.clientMetadata().client_id });
  });
});

describe('audit events of the CLI (actor "cli")', () => {
  it('client.registered, client.deleted and signing_key.rotated, with who ran them', async () => {
    const file = join(dir, 'cli-audit.log');
    const env = { STORAGE_URL: `sqlite:${join(dir, 'cli.db')}`, AUDIT_LOG: file, LOG_LEVEL: 'silent' };
    const out: string[] = [];
    const print = (line: string) => out.push(line);
    expect(
      await runCli(['clients', 'add', '--redirect-uri', TEST_REDIRECT_URI, '--id', 'cli-app', '--secret', '--json'], env, print),
    ).toBe(0);
    const secret = (JSON.parse(out.at(-1) as string) as { client_secret: string }).client_secret;
    expect(await runCli(['keys', 'rotate', '--json'], env, print)).toBe(0);
    const rotated = JSON.parse(out.at(-1) as string) as { signing: string };
    expect(await runCli(['clients', 'remove', 'cli-app'], env, print)).toBe(0);
    expect(await runCli(['clients', 'list'], env, print)).toBe(0);

    const lines = linesOf(file);
    expect(lines.map((line) => line.event)).toEqual(['client.registered', 'signing_key.rotated', 'client.deleted']);
    expect(lines[0]).toMatchObject({
      type: 'audit',
      client_id: 'cli-app',
      actor: 'cli',
      os_user: expect.any(String),
      token_endpoint_auth_method: 'client_secret_basic',
    });
    expect(lines[1]).toMatchObject({ kid: rotated.signing, actor: 'cli' });
    expect(lines[2]).toMatchObject({ client_id: 'cli-app', actor: 'cli' });
    expect(readFileSync(file, 'utf8')).not.toContain(secret);
  });

  it('REGISTRATION_TOKEN: registrations are made by the registration token', async () => {
    const file = join(dir, 'token-audit.log');
    const token = 'initial-access-token-0123456789';
    const provider = await startTestProvider({ AUDIT_LOG: file, REGISTRATION_TOKEN: token });
    try {
      const response = await fetch(`${provider.url}/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ redirect_uris: [TEST_REDIRECT_URI], token_endpoint_auth_method: 'none' }),
      });
      expect(response.status).toBe(201);
    } finally {
      await provider.stop();
    }
    const [line] = linesOf(file);
    expect(line).toMatchObject({ event: 'client.registered', actor: 'registration_token' });
    expect(readFileSync(file, 'utf8')).not.toContain(token);
  });
});
