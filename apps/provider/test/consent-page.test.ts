/**
 * Under open registration, a client's name, logo and client_uri are whatever it says about
 * itself. The page shows what the provider knows for sure: the host of the redirect URI, where
 * the person lands after signing, and warns when client_uri names another host.
 */
import {
  CookieJar,
  getDetails,
  pkceAuthorization,
  request,
  startInteraction,
  startTestProvider,
  type TestProvider,
} from '@signet/testkit';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const insecure = { execute: [oidc.allowInsecureRequests] };

describe('the wallet page shows where the sign-in leads', () => {
  let provider: TestProvider;
  beforeAll(async () => {
    provider = await startTestProvider();
  });
  afterAll(() => provider?.stop());

  async function pageFor(metadata: Record<string, unknown>) {
    const client = await oidc.dynamicClientRegistration(
      new URL(provider.url),
      { token_endpoint_auth_method: 'none', ...metadata },
      oidc.None(),
      insecure,
    );
    const { url } = await pkceAuthorization(client, { redirect_uri: (metadata.redirect_uris as string[])[0] as string });
    const jar = new CookieJar();
    const interactionUrl = await startInteraction(jar, url);
    const details = await getDetails(jar, interactionUrl);
    const html = await (await request(jar, interactionUrl, { headers: { accept: 'text/html' } })).text();
    return { details, html };
  }

  it('names the redirect host prominently, and warns when client_uri claims another site', async () => {
    const { details, html } = await pageFor({
      redirect_uris: ['http://127.0.0.1:4999/cb'],
      client_name: 'Totally Your Bank',
      client_uri: 'https://bank.example',
    });
    expect(details.redirectHost).toBe('127.0.0.1:4999');
    expect(html).toMatch(/you will be sent to <strong class="redirect-host">127\.0\.0\.1:4999<\/strong>/);
    expect(html).toMatch(/class="warning"[^>]*>[^<]*says it is <strong>bank\.example<\/strong>/);
  });

  it('no warning when client_uri is the redirect host', async () => {
    const { html } = await pageFor({
      redirect_uris: ['http://localhost:4998/cb'],
      client_name: 'Honest Shop',
      client_uri: 'http://localhost:4998',
    });
    expect(html).toMatch(/<strong class="redirect-host">localhost:4998<\/strong>/);
    expect(html).not.toContain('class="warning"');
  });
});
