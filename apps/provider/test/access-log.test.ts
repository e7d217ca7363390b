/**
 * The access log: one line per request with request id, method, route, path, status and
 * latency, and nothing in it that is a credential (codes, tokens, client secrets, signatures,
 * cookies, query strings).
 */
import { Writable } from 'node:stream';
import { createLogger } from '@signet/provider';
import { insecure, pkceAuthorization, startTestProvider, TEST_REDIRECT_URI, walletSignIn } from '@signet/testkit';
import * as oidc from 'openid-client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';

type Line = {
  level: number;
  msg: string;
  reqId?: string;
  method?: string;
  route?: string;
  path?: string;
  status?: number;
  ms?: number;
};

function capture() {
  const text: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text.push(String(chunk));
      done();
    },
  });
  const lines = () =>
    text
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Line);
  return { logger: createLogger('debug', stream), text: () => text.join(''), lines };
}

const requestLines = (lines: Line[]) => lines.filter((l) => l.reqId !== undefined);

describe('access log', () => {
  it('one line per request, with its request id and no credential anywhere in the log', async () => {
    const log = capture();
    const provider = await startTestProvider({}, { logger: log.logger });
    try {
      const client = await oidc.dynamicClientRegistration(
        new URL(provider.url),
        { redirect_uris: [TEST_REDIRECT_URI], token_endpoint_auth_method: 'client_secret_basic' },
        undefined,
        insecure,
      );
      const secret = client.clientMetadata().client_secret as string;
      const state = oidc.randomState();
      const { url, verifier } = await pkceAuthorization(client, { scope: 'openid profile', state });
      const signer = privateKeyToAccount(generatePrivateKey());
      const { callbackUrl, jar } = await walletSignIn({ authorizationUrl: url, signer });
      const code = callbackUrl.searchParams.get('code') as string;
      const tokens = await oidc.authorizationCodeGrant(client, callbackUrl, { pkceCodeVerifier: verifier, expectedState: state });
      await oidc.fetchUserInfo(client, tokens.access_token, oidc.skipSubjectCheck);
      const health = await fetch(`${provider.url}/health`);
      const headerId = health.headers.get('x-request-id');
      expect(headerId).toMatch(/^[0-9a-f-]{36}$/);

      const lines = requestLines(log.lines());
      // Registration, authorize, interaction page + details + POST, resume, token, userinfo, health: each one line.
      expect(lines.length).toBeGreaterThanOrEqual(8);
      expect(new Set(lines.map((l) => l.reqId)).size).toBe(lines.length);
      for (const line of lines) {
        expect(line).toMatchObject({
          method: expect.stringMatching(/^(GET|POST|HEAD)$/),
          route: expect.any(String),
          path: expect.stringMatching(/^\/[^?]*$/),
          status: expect.any(Number),
          ms: expect.any(Number),
        });
      }
      const routes = lines.map((l) => `${l.method} ${l.route} ${l.status}`);
      expect(routes).toEqual(
        expect.arrayContaining([
          'POST registration 201',
          'GET authorization 303',
          'POST token 200',
          'GET userinfo 200',
          'GET health 200',
        ]),
      );
      // Health checks are quiet (debug); everything else is info.
      expect(lines.find((l) => l.route === 'health')).toMatchObject({ level: 20, reqId: headerId });
      expect(lines.find((l) => l.route === 'token')?.level).toBe(30);

      const everything = log.text();
      const credentials = {
        code,
        state,
        secret,
        access: tokens.access_token,
        id: tokens.id_token as string,
        verifier,
        ...Object.fromEntries(
          jar
            .header(`${provider.url}/session`)
            .split('; ')
            .filter(Boolean)
            .map((pair) => [`cookie ${pair.split('=')[0]}`, pair.slice(pair.indexOf('=') + 1)]),
        ),
      };
      for (const [name, value] of Object.entries(credentials)) {
        expect({ name, found: everything.includes(value) }).toEqual({ name, found: false });
      }
      expect(everything).not.toContain('?');
    } finally {
      await provider.stop();
    }
  });

  it('keeps a proxy-given X-Request-Id only with TRUST_PROXY, and never a malformed one', async () => {
    for (const trustProxy of [false, true]) {
      const log = capture();
      const provider = await startTestProvider({ TRUST_PROXY: String(trustProxy) }, { logger: log.logger });
      try {
        const kept = await fetch(`${provider.url}/.well-known/openid-configuration`, {
          headers: { 'x-request-id': 'lb-1234.abc' },
        });
        const hostile = await fetch(`${provider.url}/.well-known/openid-configuration`, {
          headers: { 'x-request-id': 'forged id with spaces and "quotes"' },
        });
        expect(kept.headers.get('x-request-id') === 'lb-1234.abc').toBe(trustProxy);
        expect(hostile.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
        expect(requestLines(log.lines()).map((l) => l.reqId)).toEqual([
          kept.headers.get('x-request-id'),
          hostile.headers.get('x-request-id'),
        ]);
      } finally {
        await provider.stop();
      }
    }
  });
});
