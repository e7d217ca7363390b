/**
 * Wallet sign-in in front of an MCP server, with real clients, on both profiles: the official MCP
 * SDK's client (its OAuthClientProvider, `auth()` through the Streamable HTTP transport) connects
 * to application C, reads the 401's challenge and the RFC 9728 document, discovers Signet,
 * identifies itself by a Client ID Metadata Document (served over https on loopback with a
 * throw-away certificate the provider process trusts) or, second case, by dynamic registration,
 * sends the person through the wallet page in Chromium with a test wallet, and calls `whoami`
 * (the sub, the wallet and the ENS name the wallet has on a real local chain).
 * The provider runs as its own process (it must trust the certificate from its start); application
 * C runs in this process, over real HTTP. Then the refusals, with real tokens of the same provider:
 * one minted for another resource, one for Signet's own userinfo, a tampered one, an expired one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildMcpServer, createResourceServerFor, loadMcpServerConfig } from '@signet/mcp-server';
import { startTestchain, type Testchain } from '@signet/testchain';
import {
  type DocumentServer,
  pkceAuthorization,
  registerPublicClient,
  selfSignedCertificate,
  startDocumentServer,
  walletSignIn,
} from '@signet/testkit';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextWithWallet, launchChromium, type WalletBehaviour } from './browser.ts';
import { BrowserOAuthClient, startRedirectListener } from './mcp-client.ts';
import { freePort, type Replica, startReplica } from './processes.ts';

let dir: string;
let tls: { key: string; cert: string; certFile: string };
let browser: Browser;
let documents: DocumentServer;
let redirect: { url: string; server: Server };
let chain: Testchain;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'signet-mcp-'));
  tls = selfSignedCertificate(dir);
  [browser, documents, redirect, chain] = await Promise.all([
    launchChromium(),
    startDocumentServer(tls),
    startRedirectListener(),
    // A real local chain with ENS, so the person has a name for whoami to answer.
    startTestchain({ chainId: 1 }),
  ]);
}, 120_000);

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await documents?.close();
  redirect?.server.close();
  await chain?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A provider process of this profile, trusting the document server's certificate. */
async function startProvider(profile: 'self-hosted' | 'hosted', resource: string): Promise<Replica> {
  const port = await freePort();
  return startReplica(
    {
      ISSUER: `http://localhost:${port}`,
      PROFILE: profile,
      STORAGE_URL: 'memory:',
      NODE_EXTRA_CA_CERTS: tls.certFile,
      ALLOW_PRIVATE_FETCH: 'true',
      ETH_RPC_URL: chain.url,
      ENS_TIMEOUT_MS: '5000',
      RATE_LIMIT_AUTHORIZATION: '0',
      RATE_LIMIT_INTERACTION: '0',
      RATE_LIMIT_REGISTRATION: '0',
      RATE_LIMIT_TOKEN: '0',
      SHUTDOWN_DRAIN_MS: '0',
      // On hosted the operator turns both on (they are off there by default); self-hosted runs its defaults.
      ...(profile === 'hosted' ? { CLIENT_ID_METADATA_DOCUMENTS: 'true', RESOURCE_INDICATORS: resource } : {}),
    },
    port,
  );
}

/**
 * Signet on `profile` and application C in front of it (with a clock the tests can move), a wallet
 * with an ENS name, and the MCP SDK's sign-in and the checks on its token.
 */
function mcpSetup(profile: 'self-hosted' | 'hosted') {
  let provider: Replica;
  let issuer: string;
  let app: Server;
  let resource: string;
  let clockOffsetMs = 0;

  const account = privateKeyToAccount(generatePrivateKey());

  const wallet: WalletBehaviour = { account, chainId: 1 };

  const ensName = `mcp-${profile}.eth`;

  async function page() {
    const context = await contextWithWallet(browser, () => wallet);
    contexts.push(context);
    return context.newPage();
  }

  beforeAll(async () => {
    const port = await freePort();
    resource = `http://127.0.0.1:${port}/mcp`;
    await chain.setEnsName(account.address, ensName);
    provider = await startProvider(profile, resource);
    issuer = (await (await fetch(`${provider.url}/.well-known/openid-configuration`)).json()).issuer;
    const config = loadMcpServerConfig({ ISSUER: issuer, PUBLIC_URL: resource, PORT: String(port) });
    // Application C as npm run example:mcp builds it, with a clock the expiry case moves forward.
    const resourceServer = createResourceServerFor(config, { now: () => Date.now() + clockOffsetMs });
    const { app: hono } = buildMcpServer(config, { resourceServer });
    await new Promise<void>((resolve) => {
      app = serve({ fetch: hono.fetch, port, hostname: '127.0.0.1' }, () => resolve()) as Server;
    });
  }, 60_000);

  afterAll(async () => {
    app?.close();
    await provider?.stop();
  });

  /** The SDK's whole flow: 401, discovery, registration or document, the wallet page, the code, tokens; then whoami. */
  async function signInAndCallWhoami(client: BrowserOAuthClient) {
    const first = new Client({ name: 'signet-e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(resource), { authProvider: client });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    await transport.finishAuth(client.code);
    const mcp = new Client({ name: 'signet-e2e', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider: client }));
    const result = await mcp.callTool({ name: 'whoami' });
    await mcp.close();
    return result.structuredContent as { sub: string; wallet: string | null; ens_name: string | null };
  }

  function expectResourceToken(client: BrowserOAuthClient) {
    const token = client.tokens()?.access_token as string;
    expect(decodeProtectedHeader(token).typ).toBe('at+jwt');
    expect(decodeJwt(token)).toMatchObject({ iss: issuer, aud: resource, client_id: client.clientInformation()?.client_id });
    // The authorization request named this server (RFC 8707), and the answer named Signet (RFC 9207).
    expect(client.authorizationUrl?.searchParams.get('resource')).toBe(resource);
    expect(client.authorizationUrl?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(client.callback?.searchParams.get('iss')).toBe(issuer);
    return token;
  }

  // A wallet sign-in's subject on both profiles (a client that asks for no pairwise subject gets a
  // public one on hosted too), and the wallet's ENS name from the token's preferred_username.
  const expectedIdentity = () => ({
    sub: `eip155:1:${account.address}`,
    wallet: `eip155:1:${account.address}`,
    ens_name: ensName,
  });

  return {
    get provider() {
      return provider;
    },
    get issuer() {
      return issuer;
    },
    get app() {
      return app;
    },
    get resource() {
      return resource;
    },
    get clockOffsetMs() {
      return clockOffsetMs;
    },
    set clockOffsetMs(value) {
      clockOffsetMs = value;
    },
    account,
    wallet,
    ensName,
    page,
    signInAndCallWhoami,
    expectResourceToken,
    expectedIdentity,
    profile,
  };
}
type McpSetup = ReturnType<typeof mcpSetup>;

/** Discovery, and the MCP SDK signing in (by metadata document and by dynamic registration). */
function mcpSignInTests(setup: McpSetup) {
  it("Signet's discovery says what an MCP client checks before it proceeds: PKCE S256, iss in responses, metadata documents", async () => {
    const { provider, issuer, resource } = setup;
    const discovery = await (await fetch(`${provider.url}/.well-known/openid-configuration`)).json();
    expect(discovery).toMatchObject({
      issuer,
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    });
    expect(discovery.token_endpoint_auth_methods_supported).toContain('none');
    const metadata = await (await fetch(`${new URL(resource).origin}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(metadata).toMatchObject({ resource, authorization_servers: [issuer] });
  });

  it('identified by its Client ID Metadata Document (https): the wallet page names the document host, whoami answers', async () => {
    const { page, signInAndCallWhoami, expectResourceToken, expectedIdentity, profile } = setup;
    const clientId = documents.url(`/${profile}/mcp-client.json`);
    const client = new BrowserOAuthClient({
      redirectUrl: redirect.url,
      clientMetadataUrl: clientId,
      clientName: 'E2E MCP Client',
      page,
    });
    documents.serve(`/${profile}/mcp-client.json`, { body: { client_id: clientId, ...client.clientMetadata } });
    const identity = await signInAndCallWhoami(client);
    expect(client.clientInformation()?.client_id).toBe(clientId);
    expect(documents.requests(`/${profile}/mcp-client.json`)).toBeGreaterThanOrEqual(1);
    // Who asks: the document's host, its name as self-described, and a program on this computer.
    expect(client.pageText).toContain('127.0.0.1');
    expect(client.pageText).toContain('E2E MCP Client');
    expect(client.pageText?.toLowerCase()).toContain('this computer');
    expectResourceToken(client);
    expect(identity).toEqual(expectedIdentity());
  });

  it('identified by dynamic registration (no document URL): the same sign-in, whoami answers', async () => {
    const { page, signInAndCallWhoami, expectResourceToken, expectedIdentity } = setup;
    const client = new BrowserOAuthClient({ redirectUrl: redirect.url, clientName: 'E2E MCP Client (registered)', page });
    const identity = await signInAndCallWhoami(client);
    expect(client.clientInformation()?.client_id).not.toMatch(/^https:/);
    expectResourceToken(client);
    expect(identity).toEqual(expectedIdentity());
  });
}

/** Refusals, with real tokens of the same provider. */
function mcpRefusalTests(setup: McpSetup) {
  describe('refusals, with real tokens of the same provider', () => {
    const { profile, account } = setup;
    /** A token for `target` (or for Signet's own userinfo without it), from a client signing in programmatically. */
    async function tokenFor(target?: string) {
      const { provider } = setup;
      const config = await registerPublicClient(provider.url);
      const { url, verifier } = await pkceAuthorization(config, target ? { resource: target } : {});
      const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer: account });
      const tokens = await oidc.authorizationCodeGrant(
        config,
        callbackUrl,
        { pkceCodeVerifier: verifier, idTokenExpected: false },
        target ? { resource: target } : {},
      );
      return tokens.access_token;
    }

    const call = (token: string) =>
      fetch(setup.resource, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const metadata = () => `resource_metadata="${new URL(setup.resource).origin}/.well-known/oauth-protected-resource/mcp"`;

    it('a token Signet minted for another resource is refused: invalid_token, another resource', async () => {
      const { resource } = setup;
      const other = `${new URL(resource).origin}/another-mcp`;
      if (profile === 'hosted') expect(decodeJwt(await tokenFor(resource)).aud).toBe(resource);
      const token = profile === 'hosted' ? undefined : await tokenFor(other);
      if (token === undefined) {
        // Hosted: the operator allowed application C only; asking for another resource is invalid_target.
        await expect(tokenFor(other)).rejects.toThrow(/invalid_target|resource/);
        return;
      }
      expect(decodeJwt(token).aud).toBe(other);
      const response = await call(token);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(
        `Bearer ${metadata()}, error="invalid_token", error_description="the access token is for another resource (its aud does not name this one)"`,
      );
    });

    it("a token for Signet's own userinfo (no resource) is not a token for this server", async () => {
      const response = await call(await tokenFor());
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain(`${metadata()}, error="invalid_token"`);
    });

    it('a tampered token, and an expired one, are refused with invalid_token and their reason', async () => {
      const token = await tokenFor(setup.resource);
      expect((await call(token)).status).toBe(200);
      const [header, payload, signature] = token.split('.') as [string, string, string];
      const tampered = `${header}.${payload}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
      const refused = await call(tampered);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe(
        `Bearer ${metadata()}, error="invalid_token", error_description="the access token signature is invalid"`,
      );
      // The same real token, at a time past its exp (application C's clock moved forward).
      setup.clockOffsetMs = ((decodeJwt(token).exp as number) + 60) * 1000 - Date.now();
      try {
        const expired = await call(token);
        expect(expired.status).toBe(401);
        expect(expired.headers.get('www-authenticate')).toBe(
          `Bearer ${metadata()}, error="invalid_token", error_description="the access token has expired"`,
        );
      } finally {
        setup.clockOffsetMs = 0;
      }
    });
  });
}

describe.each(['self-hosted', 'hosted'] as const)('an MCP client signs in to application C through Signet (%s)', (profile) => {
  const setup = mcpSetup(profile);
  mcpSignInTests(setup);
  mcpRefusalTests(setup);
});
