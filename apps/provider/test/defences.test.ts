/**
 * Defences that the security table (docs/security.md) names and no other test pins down:
 * client metadata cannot inject markup into the sign-in page, logout never redirects to an
 * unregistered URI, and logs neither carry secrets nor let a value forge a log line.
 */
import { Writable } from 'node:stream';
import {
  CookieJar,
  getDetails,
  pkceAuthorization,
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
import { createLogger } from '../src/observability/logger.ts';

const insecure = { execute: [oidc.allowInsecureRequests] };
const REDIRECT_URI = TEST_REDIRECT_URI;

describe('defences', () => {
  let provider: TestProvider;
  beforeAll(async () => {
    provider = await startTestProvider();
  });
  afterAll(() => provider?.stop());

  it('XSS through client metadata: a hostile client_name, client_uri and policy_uri are escaped or refused', async () => {
    const client = await oidc.dynamicClientRegistration(
      new URL(provider.url),
      {
        redirect_uris: [REDIRECT_URI],
        client_name: '<script>alert(1)</script><img src=x onerror=alert(2)>"\'',
        token_endpoint_auth_method: 'none',
      },
      oidc.None(),
      insecure,
    );
    const { url } = await pkceAuthorization(client);
    const jar = new CookieJar();
    const interactionUrl = await startInteraction(jar, url);
    const page = await (await request(jar, interactionUrl, { headers: { accept: 'text/html' } })).text();
    expect(page).not.toContain('<script>alert(1)');
    expect(page).not.toContain('<img src=x');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    // The details embedded for the page's script cannot close their <script> element either.
    const embedded = /<script type="application\/json" id="interaction-details">([\s\S]*?)<\/script>/.exec(page)?.[1] ?? '';
    expect(embedded).not.toContain('<');
    expect(JSON.parse(embedded).client.client_name).toContain('<script>');
    const javascriptUri = await fetch(`${provider.url}/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT_URI], policy_uri: 'javascript:alert(1)' }),
    });
    expect(javascriptUri.status).toBe(400);
  });

  it('open redirect at logout: an unregistered post_logout_redirect_uri is refused, never followed', async () => {
    const client = await oidc.dynamicClientRegistration(
      new URL(provider.url),
      {
        redirect_uris: [REDIRECT_URI],
        post_logout_redirect_uris: ['http://127.0.0.1:4999/bye'],
        token_endpoint_auth_method: 'none',
      },
      oidc.None(),
      insecure,
    );
    const signer = privateKeyToAccount(generatePrivateKey());
    const { url, verifier } = await pkceAuthorization(client);
    const { callbackUrl, jar } = await walletSignIn({ authorizationUrl: url, signer });
    const tokens = await oidc.authorizationCodeGrant(client, callbackUrl, { pkceCodeVerifier: verifier });
    const endSession = oidc.buildEndSessionUrl(client, {
      id_token_hint: tokens.id_token as string,
      post_logout_redirect_uri: 'https://evil.example/phish',
    });
    const response = await request(jar, endSession);
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).not.toContain('evil.example/phish"');
  });

  it('logs: secrets are redacted, and a value with line breaks cannot forge a log line', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const logger = createLogger('info', sink);
    logger.info(
      {
        body: { client_secret: 's3cret-value', signature: '0xdeadbeef', code: 'the-code', refresh_token: 'rt' },
        req: { headers: { authorization: 'Bearer abc', cookie: '_session=xyz' } },
        reason: 'bad\n{"level":30,"msg":"admin signed in"}',
      },
      'event',
    );
    expect(lines).toHaveLength(1);
    const text = lines[0] as string;
    for (const secret of ['s3cret-value', '0xdeadbeef', 'the-code', '"rt"', 'Bearer abc', '_session=xyz'])
      expect(text).not.toContain(secret);
    expect(JSON.parse(text).reason).toBe('bad\n{"level":30,"msg":"admin signed in"}');
  });

  it('the interaction page and details are never cached, and the page cannot be framed', async () => {
    const client = await oidc.dynamicClientRegistration(
      new URL(provider.url),
      { redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' },
      oidc.None(),
      insecure,
    );
    const { url } = await pkceAuthorization(client);
    const jar = new CookieJar();
    const interactionUrl = await startInteraction(jar, url);
    await getDetails(jar, interactionUrl);
    const page = await request(jar, interactionUrl, { headers: { accept: 'text/html' } });
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });
});
