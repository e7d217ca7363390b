/**
 * Go's go-oidc with golang.org/x/oauth2 (Debian's packages, GOPATH mode), exactly as
 * docs/recipes.md shows it (e2e/recipes/go-oidc/main.go): compiled once per run (cached under
 * node_modules/.cache by the source's hash), started once per profile, and signed into by a
 * wallet through the interaction contract.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CookieJar, freePort, request, startTestProvider, type TestProvider, walletSignIn } from '@signet/testkit';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireDebianPart } from '../../scripts/debian-parts.mjs';
import { type RelyingParty, registerConfidential, startRelyingParty } from './relying-party.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const SOURCE = join(import.meta.dirname, 'go-oidc', 'main.go');
const CACHE = join(ROOT, 'node_modules', '.cache', 'signet-recipes');

/** The recipe compiled (GOPATH=/usr/share/gocode GO111MODULE=off, as Debian ships the libraries). */
function goBinary(): string {
  const hash = createHash('sha256').update(readFileSync(SOURCE)).digest('hex').slice(0, 16);
  const binary = join(CACHE, `go-oidc-${hash}`);
  if (existsSync(binary)) return binary;
  mkdirSync(CACHE, { recursive: true });
  execFileSync('go', ['build', '-o', binary, SOURCE], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      GOPATH: '/usr/share/gocode',
      GO111MODULE: 'off',
      GOCACHE: join(CACHE, 'go-build'),
    },
    stdio: 'pipe',
  });
  return binary;
}

describe.each(['self-hosted', 'hosted'] as const)('go-oidc on the %s profile', (profile) => {
  let provider: TestProvider;
  let app: RelyingParty;

  beforeAll(async () => {
    requireDebianPart('go-oidc');
    const binary = goBinary();
    provider = await startTestProvider({ PROFILE: profile });
    const origin = `http://127.0.0.1:${await freePort()}`;
    const { clientId, clientSecret } = await registerConfidential(provider, `${origin}/callback`);
    app = await startRelyingParty(
      binary,
      [],
      { SIGNET_ISSUER: provider.issuer, SIGNET_CLIENT_ID: clientId, SIGNET_CLIENT_SECRET: clientSecret, BASE_URL: origin },
      origin,
    );
  });
  afterAll(async () => {
    await app?.stop();
    await provider?.stop();
  });

  it('sign in: PKCE, state and nonce, the ID token verified, userinfo for the same subject', async () => {
    const jar = new CookieJar();
    const login = await request(jar, `${app.url}/login`);
    expect(login.status, app.output()).toBe(302);
    const authorizationUrl = new URL(login.headers.get('location') as string);
    expect(authorizationUrl.origin).toBe(new URL(provider.url).origin);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');

    const signer = privateKeyToAccount(generatePrivateKey());
    const { callbackUrl } = await walletSignIn({ authorizationUrl, signer, jar });
    expect(callbackUrl.origin).toBe(app.url);
    const callback = await request(jar, callbackUrl);
    expect(callback.status, `${await callback.clone().text()}\n${app.output()}`).toBe(200);
    expect(await callback.json()).toEqual({ sub: `eip155:1:${signer.address}`, preferred_username: signer.address });
  });
});
