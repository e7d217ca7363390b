/**
 * An MCP client's side of the sign-in, as the official SDK runs it: an `OAuthClientProvider` that
 * keeps its state in memory and, when the SDK sends the person to authorize, drives a real
 * Chromium page (with the test wallet) through Signet's wallet page to the client's loopback
 * redirect URI, where it reads the code. The SDK does the rest (RFC 9728 discovery, the metadata
 * document or dynamic registration, PKCE, `resource`, the token request).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Page } from 'playwright-core';

/** A loopback listener standing for the MCP client's redirect URI (a desktop client's, as Claude Code's). */
export async function startRedirectListener(): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/plain' }).end('signed in; back to the app'),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, server };
}

export type BrowserOAuthClientOptions = {
  redirectUrl: string;
  /** An https URL: the client identifies itself by this Client ID Metadata Document (when discovery says so). */
  clientMetadataUrl?: string;
  clientName: string;
  /** A fresh page with the test wallet. */
  page: () => Promise<Page>;
};

export class BrowserOAuthClient implements OAuthClientProvider {
  readonly clientMetadataUrl?: string;
  /** What the SDK sent the browser to, and what came back to the redirect URI. */
  authorizationUrl?: URL;
  callback?: URL;
  /** What the wallet page showed (who asks). */
  pageText?: string;
  #information?: OAuthClientInformationMixed;
  #tokens?: OAuthTokens;
  #verifier?: string;
  #state = crypto.randomUUID();

  constructor(private readonly options: BrowserOAuthClientOptions) {
    this.clientMetadataUrl = options.clientMetadataUrl;
  }

  get redirectUrl() {
    return this.options.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.options.clientName,
      redirect_uris: [this.options.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state = () => this.#state;
  clientInformation = () => this.#information;
  saveClientInformation = (information: OAuthClientInformationMixed) => {
    this.#information = information;
  };
  tokens = () => this.#tokens;
  saveTokens = (tokens: OAuthTokens) => {
    this.#tokens = tokens;
  };
  saveCodeVerifier = (verifier: string) => {
    this.#verifier = verifier;
  };
  codeVerifier = () => {
    if (!this.#verifier) throw new Error('no code verifier saved');
    return this.#verifier;
  };

  /** The person's part: the wallet page in Chromium, "Sign in with Test Wallet", back to the redirect URI. */
  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    this.authorizationUrl = authorizationUrl;
    const page = await this.options.page();
    await page.goto(authorizationUrl.href);
    await page.waitForSelector('button.wallet');
    this.pageText = (await page.textContent('main')) ?? '';
    const [request] = await Promise.all([
      page.waitForRequest((r) => r.url().startsWith(`${this.options.redirectUrl}?`)),
      page.click('button.wallet'),
    ]);
    this.callback = new URL(request.url());
    if (this.callback.searchParams.get('state') !== this.#state) throw new Error(`state mismatch at ${this.callback}`);
  }

  /** The authorization code the redirect URI received. */
  get code(): string {
    const code = this.callback?.searchParams.get('code');
    if (!code) throw new Error(`no code at the redirect URI (${this.callback})`);
    return code;
  }
}
