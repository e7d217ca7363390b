/**
 * Hostile input against applications A and B, running on real HTTP servers: random and mutated
 * bodies, headers and paths. Never a crash (each still answers afterwards), never a 5xx but the
 * documented ones (A: 503 RPC_UNAVAILABLE; B: the spec's `500 Verification failed`, whose
 * details must be a library error type, never a runtime exception's text), never a session or
 * a token issued.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { buildJsonApi, loadJsonApiConfig } from '@signet/json-api';
import { buildSessionApp, loadSessionAppConfig } from '@signet/session-app';
import { createSiweMessage, SIWE_ERROR_TYPES } from '@signet/siwe';
import { anyText, contentType, mutated } from '@signet/testkit';
import fc from 'fast-check';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const RUNS = 200;
type Running = { url: string; close(): void };
function listen(fetchHandler: (request: Request) => Response | Promise<Response>): Promise<Running> {
  return new Promise((resolve) => {
    const server = serve({ fetch: fetchHandler, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) =>
      resolve({ url: `http://127.0.0.1:${info.port}`, close: () => server.close() }),
    );
  });
}

const account = privateKeyToAccount(generatePrivateKey());
const signedBody = async (domain: string, nonce: string) => {
  const message = createSiweMessage({
    domain,
    address: account.address,
    uri: `http://${domain}`,
    chainId: 1,
    nonce,
    issuedAt: new Date(),
  });
  return JSON.stringify({ message, signature: await account.signMessage({ message }) });
};

describe('hostile input against application A (real HTTP)', () => {
  let a: Running;
  beforeAll(async () => {
    const app = buildSessionApp(
      loadSessionAppConfig({
        SESSION_SECRET: 'a-session-secret-of-more-than-32-characters',
        RATE_LIMIT_NONCE: '100000',
        RATE_LIMIT_VERIFY: '100000',
      }),
    );
    a = await listen(app.fetch);
  });
  afterAll(() => a?.close());

  it('POST /api/verify: never a 5xx, never a session', async () => {
    const nonceResponse = await fetch(`${a.url}/api/nonce`);
    const cookie = (nonceResponse.headers.getSetCookie()[0] ?? '').split(';')[0] as string;
    const { nonce } = (await nonceResponse.json()) as { nonce: string };
    const valid = await signedBody('evil.example', nonce);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(mutated(valid), anyText),
        contentType,
        fc.constantFrom('/api/verify', '/API/verify', '/api/verify/'),
        async (body, type, path) => {
          const response = await fetch(`${a.url}${path}`, {
            method: 'POST',
            headers: { ...(type ? { 'content-type': type } : {}), cookie, host: 'evil.example' },
            body,
          });
          const text = await response.text();
          expect(response.status === 503 || response.status < 500, `${response.status} ${text.slice(0, 200)}`).toBe(true);
          expect(response.status).not.toBe(200);
          for (const set of response.headers.getSetCookie()) {
            const me = await fetch(`${a.url}/api/me`, { headers: { cookie: set.split(';')[0] as string } });
            expect(me.status).toBe(401);
          }
        },
      ),
      { numRuns: RUNS, interruptAfterTimeLimit: 20_000 },
    );
    expect((await fetch(`${a.url}/api/nonce`)).status).toBe(200);
  });
});

describe('hostile input against application B (real HTTP)', () => {
  let b: Running;
  beforeAll(async () => {
    const api = buildJsonApi(
      loadJsonApiConfig({
        NODE_ENV: 'production',
        FRONTEND_DOMAIN: 'app.example.com',
        TOKEN_SECRET: 'a-token-secret-of-at-least-32-characters',
      }),
    );
    b = await listen(api.app.fetch);
  });
  afterAll(() => b?.close());

  it('POST /auth/verify: only the spec`s 500 with a library error type, never a token', async () => {
    const { nonce } = (await (await fetch(`${b.url}/auth/nonce`)).json()) as { nonce: string };
    const valid = await signedBody('app.example.com', nonce);
    const types = new Set<string>([...SIWE_ERROR_TYPES, 'INTERNAL_ERROR']);
    // A mutation can leave the body meaning the same thing (whitespace between JSON tokens, `\/`
    // for `/`, a hex digit's case in the signature): that is a genuine sign-in, and the nonce is
    // one-time, so across the whole run at most one such body may get a token, and no other.
    const { message, signature } = JSON.parse(valid) as { message: string; signature: string };
    const carriesValid = (body: string) => {
      try {
        const parsed = JSON.parse(body) as { message?: unknown; signature?: unknown };
        return parsed.message === message && String(parsed.signature).toLowerCase() === signature.toLowerCase();
      } catch {
        return false;
      }
    };
    let tokens = 0;
    let attempts = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof(mutated(valid), anyText), contentType, async (body, type) => {
        // Stay under B's fixed rate limit (100 per 15 minutes per address) across the run.
        if (++attempts > 95) return;
        const response = await fetch(`${b.url}/auth/verify`, {
          method: 'POST',
          headers: type ? { 'content-type': type } : {},
          body,
        });
        const text = await response.text();
        if (carriesValid(body) && /"token"/.test(text)) tokens++;
        else expect(text).not.toMatch(/"token"/);
        if (response.status >= 500) {
          expect(response.status, text).toBe(500);
          const { error } = JSON.parse(text) as { error: { message: string; details?: { type?: string }; stack?: string } };
          expect(error.message).toBe('Verification failed');
          expect(types.has(String(error.details?.type)), text).toBe(true);
          expect(error.stack).toBeUndefined();
          expect(text).not.toMatch(/TypeError|RangeError|SyntaxError|at .*\.ts:\d+/);
        }
      }),
      { numRuns: 95, interruptAfterTimeLimit: 20_000 },
    );
    expect(tokens).toBeLessThanOrEqual(1);
    expect((await fetch(`${b.url}/health`)).status).toBe(200);
  });
});
