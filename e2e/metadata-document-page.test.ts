/**
 * The wallet page for a client known by its Client ID Metadata Document, in Debian's Chromium:
 * who asks is the host that served the document; the document's name is shown as
 * self-described; a document whose every redirect URI is a loopback one is a program on this
 * computer, and the page says so. Same budget and accessibility checks as the rest of the page.
 * The provider is a process that trusts this test's throw-away CA (NODE_EXTRA_CA_CERTS) and may
 * fetch from loopback (ALLOW_PRIVATE_FETCH): the documents are served on https://127.0.0.1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type DocumentServer, selfSignedCertificate, startDocumentServer } from '@signet/testkit';
import axe from 'axe-core';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_SCRIPT_BUDGET_GZIP } from '../apps/provider/web/size.ts';
import { contextWithWallet, launchChromium } from './browser.ts';
import { type Replica, startDocumentTrustingReplica } from './processes.ts';

describe('the wallet page for a client known by its metadata document (Chromium)', () => {
  let dir: string;
  let documents: DocumentServer;
  let provider: Replica;
  let browser: Browser;
  let context: BrowserContext | undefined;
  /** The program's loopback listener, where the browser lands with the code. */
  let program: Server;
  let LOOPBACK_CALLBACK: string;
  const account = privateKeyToAccount(generatePrivateKey());

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'signet-cimd-page-'));
    const tls = selfSignedCertificate(dir);
    documents = await startDocumentServer(tls);
    program = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('back at the program'));
    await new Promise<void>((resolve) => program.listen(0, '127.0.0.1', resolve));
    LOOPBACK_CALLBACK = `http://127.0.0.1:${(program.address() as AddressInfo).port}/callback`;
    [provider, browser] = await Promise.all([startDocumentTrustingReplica(tls.certFile), launchChromium()]);
    documents.serve('/claude.json', {
      body: {
        client_id: documents.url('/claude.json'),
        client_name: 'Claude',
        redirect_uris: [LOOPBACK_CALLBACK, 'https://claude.ai/api/mcp/auth_callback'],
        grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:jwt-bearer'],
        token_endpoint_auth_method: 'none',
      },
    });
    documents.serve('/editor.json', {
      body: {
        client_id: documents.url('/editor.json'),
        client_name: 'Visual Studio Code',
        redirect_uris: [LOOPBACK_CALLBACK, 'http://localhost:33418/'],
        token_endpoint_auth_method: 'none',
      },
    });
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await provider?.stop();
    await documents?.close();
    program?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The sign-in page for the document at `path`. */
  async function signInPage(path: string): Promise<{ page: Page; scripts: Buffer[] }> {
    await context?.close();
    context = await contextWithWallet(browser, () => ({ account, chainId: 1 }));
    const page = await context.newPage();
    const scripts: Buffer[] = [];
    page.on('response', async (response) => {
      if (response.request().resourceType() === 'script') scripts.push(await response.body());
    });
    const verifier = oidc.randomPKCECodeVerifier();
    const url = new URL(`${provider.url}/auth`);
    url.search = new URLSearchParams({
      client_id: documents.url(path),
      redirect_uri: LOOPBACK_CALLBACK,
      response_type: 'code',
      scope: 'openid profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    await page.goto(url.href);
    await page.waitForSelector('button.wallet');
    return { page, scripts };
  }

  it("names the document's host as who asks, its name as self-described; no warning when it also has a website", async () => {
    const { page } = await signInPage('/claude.json');
    const host = new URL(documents.origin).host;
    expect(await page.textContent('h1')).toBe(`${host} wants you to sign in with Ethereum`);
    const header = (await page.textContent('header.who')) as string;
    expect(header).toContain('calls itself Claude (self-described)');
    expect(await page.locator('header.who .warning').count()).toBe(0);
    expect(await page.textContent('#asks')).toBe(`${host} will receive`);
    const details = JSON.parse((await page.textContent('#interaction-details')) as string);
    expect(details.metadataDocument).toEqual({ host, loopbackOnly: false });
    // The message names the host too, not the name the document gives itself.
    expect(details.statement).toBe(`Sign in to ${host} with ${new URL(provider.url).host}.`);
  });

  it('every redirect URI on loopback: a program on this computer, said before signing; axe-clean; the script within budget; signs in', async () => {
    const { page, scripts } = await signInPage('/editor.json');
    const warning = (await page.textContent('header.who .warning')) as string;
    expect(warning).toContain('This is a program on this computer, not a website');
    expect(warning).toContain(new URL(LOOPBACK_CALLBACK).host);
    await page.evaluate(axe.source);
    const results = await page.evaluate(() =>
      (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] }),
    );
    expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
    const scriptBytes = scripts.reduce((sum, body) => sum + gzipSync(body).length, 0);
    expect(scriptBytes).toBeGreaterThan(0);
    expect(scriptBytes).toBeLessThanOrEqual(PAGE_SCRIPT_BUDGET_GZIP);
    await page.click('button.wallet');
    await page.waitForURL(`${LOOPBACK_CALLBACK}?**`);
    expect(new URL(page.url()).searchParams.get('code')).toBeTruthy();
  });
});
