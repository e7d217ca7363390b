/**
 * Token checks against a real local issuer: a discovery document and a key set served over real
 * HTTP by the testkit's stand-in issuer, tokens signed with jose (it stands in for Signet here
 * because these tokens are ones Signet will not issue: expired, forged, for another resource).
 * Every refusal has its own code; every defence is shown failing a token that passes without it.
 */
import { generateKeyPairSync, type KeyObject, sign, verify } from 'node:crypto';
import { type StandInIssuer, startStandInIssuer } from '@signet/testkit/issuer';
import { base64url, CompactSign, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keyFitsAlgorithm, readCompactJws, signatureVerifies } from '../src/compactJws.ts';
import {
  createResourceServer,
  type ResourceServer,
  type ResourceServerErrorCode,
  type ResourceServerOptions,
} from '../src/index.ts';
import { type AccessTokenAlgorithm, ASYMMETRIC_ALGORITHMS } from '../src/options.ts';

const RESOURCE = 'http://127.0.0.1:9999/mcp';
let issuer: StandInIssuer;
let server: ResourceServer;
let clock: number;

const make = (options: Partial<ResourceServerOptions> = {}) =>
  createResourceServer({ issuer: issuer.issuer, resource: RESOURCE, now: () => clock, ...options });

async function refusal(promise: Promise<unknown>): Promise<{ code: ResourceServerErrorCode; status: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    const { code, status, message } = error as { code: ResourceServerErrorCode; status: number; message: string };
    return { code, status, message };
  }
  throw new Error('the token was accepted');
}

const codeOf = async (promise: Promise<unknown>) => (await refusal(promise)).code;
const seconds = () => Math.floor(clock / 1000);

beforeAll(async () => {
  issuer = await startStandInIssuer({ audience: RESOURCE });
});
afterAll(() => issuer?.stop());
beforeEach(() => {
  clock = Date.now();
  issuer.intercept = undefined;
  server = make();
});

describe('a valid token', () => {
  it('is accepted, with its subject, client, scopes, expiry and claims (a superset of the MCP SDK AuthInfo)', async () => {
    const token = await issuer.sign({ scope: 'openid profile', wallet: 'eip155:1:0xabc' });
    const accepted = await server.verifyAccessToken(token);
    expect(accepted).toMatchObject({
      token,
      subject: 'eip155:1:0x00000000000000000000000000000000000000a1',
      clientId: 'test-client',
      scopes: ['openid', 'profile'],
      expiresAt: expect.any(Number),
      resource: new URL(RESOURCE),
    });
    expect(accepted.claims.wallet).toBe('eip155:1:0xabc');
    expect(accepted.extra).toBe(accepted.claims);
  });

  it('with an aud list that names this resource, and typ application/at+jwt', async () => {
    const token = await issuer.sign({ aud: ['https://other.example/api', RESOURCE] }, { typ: 'application/at+jwt' });
    expect((await server.verifyAccessToken(token)).subject).toMatch(/^eip155:/);
  });

  it('a minute past exp within a 90 s tolerance, not with the default 15 s', async () => {
    const token = await issuer.sign({ exp: seconds() - 60 });
    await expect(make({ clockToleranceSeconds: 90 }).verifyAccessToken(token)).resolves.toBeDefined();
    expect(await codeOf(server.verifyAccessToken(token))).toBe('TOKEN_EXPIRED');
  });
});

describe('refused tokens', () => {
  it('wrong issuer: iss names another issuer, even signed with the right key', async () => {
    expect(await codeOf(server.verifyAccessToken(await issuer.sign({ iss: 'https://evil.example' })))).toBe('WRONG_ISSUER');
  });

  it('wrong audience: a token minted for another resource of the same issuer', async () => {
    const token = await issuer.sign({ aud: 'http://127.0.0.1:9999/other-mcp' });
    const { code, status, message } = await refusal(server.verifyAccessToken(token));
    expect({ code, status }).toEqual({ code: 'WRONG_AUDIENCE', status: 401 });
    expect(message).toMatch(/another resource/);
    // The same token is fine for the resource it was minted for.
    await expect(make({ resource: 'http://127.0.0.1:9999/other-mcp' }).verifyAccessToken(token)).resolves.toBeDefined();
  });

  it('a prefix or a trailing-slash variant of the resource is another resource (exact comparison)', async () => {
    expect(await codeOf(server.verifyAccessToken(await issuer.sign({ aud: 'http://127.0.0.1:9999/' })))).toBe('WRONG_AUDIENCE');
    expect(await codeOf(server.verifyAccessToken(await issuer.sign({ aud: `${RESOURCE}/` })))).toBe('WRONG_AUDIENCE');
  });

  it('expired, and not yet valid', async () => {
    expect(await codeOf(server.verifyAccessToken(await issuer.sign({ exp: seconds() - 30 })))).toBe('TOKEN_EXPIRED');
    expect(await codeOf(server.verifyAccessToken(await issuer.sign({ nbf: seconds() + 60 })))).toBe('TOKEN_NOT_YET_VALID');
  });

  it('wrong typ: an ID token (typ JWT) or no typ at all is not an access token', async () => {
    expect(await codeOf(server.verifyAccessToken(await issuer.sign({}, { typ: 'JWT' })))).toBe('WRONG_TOKEN_TYPE');
    expect(await codeOf(server.verifyAccessToken(await issuer.sign({}, { typ: null })))).toBe('WRONG_TOKEN_TYPE');
  });

  it('alg none', async () => {
    expect(await codeOf(server.verifyAccessToken(issuer.unsigned()))).toBe('ALGORITHM_NOT_ALLOWED');
  });

  it('HS256 with the public key as the secret (key confusion)', async () => {
    const pem = new TextEncoder().encode(await issuer.publicKeyPem());
    const forged = await issuer.sign({}, { alg: 'HS256', key: pem });
    expect(await codeOf(server.verifyAccessToken(forged))).toBe('ALGORITHM_NOT_ALLOWED');
  });

  it('an algorithm outside a narrowed allow-list', async () => {
    const only = make({ algorithms: ['ES256'] });
    expect(await codeOf(only.verifyAccessToken(await issuer.sign()))).toBe('ALGORITHM_NOT_ALLOWED');
  });

  it('unknown kid: signed by a key the issuer never published', async () => {
    const foreign = await issuer.foreignKey();
    const token = await issuer.sign({}, { kid: 'not-a-key-of-the-issuer', key: foreign.privateKey });
    expect(await codeOf(server.verifyAccessToken(token))).toBe('UNKNOWN_KEY');
  });

  it("a foreign key under the issuer's kid: the signature does not verify", async () => {
    const foreign = await issuer.foreignKey();
    expect(await codeOf(server.verifyAccessToken(await issuer.sign({}, { key: foreign.privateKey })))).toBe('INVALID_SIGNATURE');
  });

  it('tampered signature, and tampered claims under the original signature', async () => {
    const token = await issuer.sign();
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const flipped = `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;
    expect(await codeOf(server.verifyAccessToken(`${header}.${payload}.${flipped}`))).toBe('INVALID_SIGNATURE');
    const claims = JSON.parse(new TextDecoder().decode(base64url.decode(payload)));
    const raised = base64url.encode(JSON.stringify({ ...claims, sub: 'eip155:1:0x00000000000000000000000000000000000000b2' }));
    expect(await codeOf(server.verifyAccessToken(`${header}.${raised}.${signature}`))).toBe('INVALID_SIGNATURE');
  });

  it('not a JWT, or far too long', async () => {
    expect(await codeOf(server.verifyAccessToken('opaque-token-value'))).toBe('MALFORMED_TOKEN');
    expect(await codeOf(server.authenticate({ authorization: `Bearer ${'a'.repeat(9000)}` }))).toBe('MALFORMED_TOKEN');
  });

  it('a claim RFC 9068 requires is missing', async () => {
    for (const claim of ['client_id', 'jti', 'sub', 'exp', 'iat']) {
      const token = await issuer.sign({ [claim]: undefined });
      expect([claim, await codeOf(server.verifyAccessToken(token))]).toEqual([claim, 'MISSING_CLAIM']);
    }
  });

  it('a DPoP-bound token (cnf.jkt) presented as a bearer token', async () => {
    const token = await issuer.sign({ cnf: { jkt: 'aJ2iJ_9T8rTSEJ7YdYpl6uPKL5jThb0rFU3pgw6jcZw' } });
    const { code, message } = await refusal(server.authenticate({ authorization: `Bearer ${token}` }));
    expect(code).toBe('SENDER_CONSTRAINED_TOKEN');
    expect(message).toMatch(/bearer tokens only/);
  });

  it('a valid token without a scope the resource or the route needs: 403 naming every scope needed', async () => {
    const token = await issuer.sign({ scope: 'openid' });
    const strict = make({ scopes: ['mcp'] });
    const { code, status } = await refusal(strict.verifyAccessToken(token));
    expect({ code, status }).toEqual({ code: 'INSUFFICIENT_SCOPE', status: 403 });
    const routeNeeds = await refusal(server.verifyAccessToken(token, { scopes: ['profile', 'openid'] }));
    expect(routeNeeds.code).toBe('INSUFFICIENT_SCOPE');
    const answer = server.errorResponse(await server.verifyAccessToken(token, { scopes: ['write'] }).catch((e) => e));
    expect(answer.headers['www-authenticate']).toContain('scope="write"');
  });
});

describe('the Authorization header (RFC 6750 §2.1)', () => {
  it('accepts the scheme in any case: bearer, BEARER', async () => {
    const token = await issuer.sign();
    for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
      await expect(server.authenticate({ authorization: `${scheme} ${token}` })).resolves.toMatchObject({ token });
    }
  });

  it('missing, another scheme, malformed, repeated, or a token in the URL', async () => {
    const token = await issuer.sign();
    const cases: [Parameters<ResourceServer['authenticate']>[0], ResourceServerErrorCode][] = [
      [{ authorization: undefined }, 'MISSING_TOKEN'],
      [{ authorization: [] }, 'MISSING_TOKEN'],
      [{ authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }, 'UNSUPPORTED_SCHEME'],
      [{ authorization: `DPoP ${token}` }, 'UNSUPPORTED_SCHEME'],
      [{ authorization: 'Bearer' }, 'INVALID_REQUEST'],
      [{ authorization: `Bearer ${token} extra` }, 'INVALID_REQUEST'],
      [{ authorization: [`Bearer ${token}`, `Bearer ${token}`] }, 'INVALID_REQUEST'],
      [{ authorization: `Bearer ${token}, Bearer ${token}` }, 'INVALID_REQUEST'],
      [{ authorization: `Bearer ${token}`, url: `/mcp?access_token=${token}` }, 'INVALID_REQUEST'],
    ];
    for (const [request, expected] of cases) expect(await codeOf(server.authenticate(request))).toBe(expected);
  });
});

describe("the issuer's keys", () => {
  it('are fetched once (discovery and key set) for many checks', async () => {
    const before = { ...issuer.fetches };
    const tokens = await Promise.all(Array.from({ length: 20 }, () => issuer.sign()));
    await Promise.all(tokens.map((token) => server.verifyAccessToken(token)));
    for (const token of tokens) await server.verifyAccessToken(token);
    expect(issuer.fetches.discovery - before.discovery).toBe(1);
    expect(issuer.fetches.jwks - before.jwks).toBe(1);
  });

  it('a rotated key is fetched when a token names it; unknown kids fetch at most once per cooldown', async () => {
    await server.verifyAccessToken(await issuer.sign());
    clock += 31_000;
    await issuer.rotate();
    const jwks = issuer.fetches.jwks;
    await expect(server.verifyAccessToken(await issuer.sign())).resolves.toBeDefined();
    expect(issuer.fetches.jwks).toBe(jwks + 1);
    const foreign = await issuer.foreignKey();
    for (let i = 0; i < 5; i++) {
      const made = await issuer.sign({}, { kid: `made-up-${i}`, key: foreign.privateKey });
      expect(await codeOf(server.verifyAccessToken(made))).toBe('UNKNOWN_KEY');
    }
    expect(issuer.fetches.jwks).toBe(jwks + 1);
  });

  it('older than keysMaxAgeSeconds: fetched again in the background while the old keys keep answering', async () => {
    await server.verifyAccessToken(await issuer.sign());
    const jwks = issuer.fetches.jwks;
    clock += 601_000;
    await server.verifyAccessToken(await issuer.sign({ exp: seconds() + 600 }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(issuer.fetches.jwks).toBe(jwks + 1);
  });

  it('issuer down: 503 ISSUER_UNAVAILABLE, no fetch per request during the cooldown, recovery after it', async () => {
    issuer.intercept = (_what, res) => Boolean(res.writeHead(502).end());
    const token = await issuer.sign();
    const { code, status } = await refusal(server.verifyAccessToken(token));
    expect({ code, status }).toEqual({ code: 'ISSUER_UNAVAILABLE', status: 503 });
    const fetched = issuer.fetches.discovery;
    for (let i = 0; i < 5; i++) expect(await codeOf(server.verifyAccessToken(token))).toBe('ISSUER_UNAVAILABLE');
    expect(issuer.fetches.discovery).toBe(fetched);
    issuer.intercept = undefined;
    clock += 31_000;
    await expect(server.verifyAccessToken(token)).resolves.toBeDefined();
    expect(server.errorResponse(new Error('x')).status).toBe(503);
  });

  it('a discovery document naming another issuer is refused (a look-alike cannot hand out keys)', async () => {
    issuer.intercept = (what, res) =>
      what === 'discovery' &&
      Boolean(res.writeHead(200).end(JSON.stringify({ issuer: `${issuer.issuer}/`, jwks_uri: `${issuer.issuer}/jwks` })));
    expect(await codeOf(server.verifyAccessToken(await issuer.sign()))).toBe('INVALID_ISSUER_METADATA');
  });

  it('redirects are not followed; an oversized or non-JSON key set is refused', async () => {
    const token = await issuer.sign();
    issuer.intercept = (what, res) =>
      what === 'jwks' && Boolean(res.writeHead(302, { location: 'http://169.254.169.254/' }).end());
    expect(await codeOf(server.verifyAccessToken(token))).toBe('ISSUER_UNAVAILABLE');
    issuer.intercept = (what, res) => what === 'jwks' && Boolean(res.writeHead(200).end(' '.repeat(300_000)));
    expect(await codeOf(make().verifyAccessToken(token))).toBe('ISSUER_UNAVAILABLE');
    issuer.intercept = (what, res) => what === 'jwks' && Boolean(res.writeHead(200).end('{"keys": "none"}'));
    expect(await codeOf(make().verifyAccessToken(token))).toBe('INVALID_ISSUER_METADATA');
  });

  it('ready() fetches them at start, and reports an unreachable issuer', async () => {
    const before = issuer.fetches.jwks;
    await make().ready();
    expect(issuer.fetches.jwks).toBe(before + 1);
    const down = createResourceServer({ issuer: 'http://127.0.0.1:1', resource: RESOURCE, timeoutMs: 2000 });
    await expect(down.ready()).rejects.toMatchObject({ code: 'ISSUER_UNAVAILABLE' });
  });

  it('an issuer with a path: discovery at <issuer>/.well-known/openid-configuration', async () => {
    const tenant = await startStandInIssuer({ audience: RESOURCE, path: '/tenant' });
    try {
      const resourceServer = createResourceServer({ issuer: tenant.issuer, resource: RESOURCE });
      await expect(resourceServer.verifyAccessToken(await tenant.sign())).resolves.toBeDefined();
      const atOrigin = await tenant.sign({ iss: new URL(tenant.issuer).origin });
      expect(await codeOf(resourceServer.verifyAccessToken(atOrigin))).toBe('WRONG_ISSUER');
    } finally {
      await tenant.stop();
    }
  });
});

describe('tokens already verified', () => {
  it('are checked again once past exp: a remembered token is refused as expired', async () => {
    const token = await issuer.sign({ exp: seconds() + 60 });
    await server.verifyAccessToken(token);
    clock += 120_000;
    expect(await codeOf(server.verifyAccessToken(token))).toBe('TOKEN_EXPIRED');
  });

  it('signed by a key the issuer withdrew: refused after the next fetch of the key set, remembered or not', async () => {
    const oldKid = issuer.kid;
    const token = await issuer.sign();
    await server.verifyAccessToken(token);
    await issuer.rotate();
    issuer.withdraw(oldKid);
    clock += 31_000;
    // A token under the new key makes the resource fetch the set again.
    await server.verifyAccessToken(await issuer.sign());
    expect(await codeOf(server.verifyAccessToken(token))).toBe('UNKNOWN_KEY');
  });

  it('the scopes are checked on every request, remembered or not', async () => {
    const token = await issuer.sign({ scope: 'openid' });
    await server.verifyAccessToken(token);
    expect(await codeOf(server.verifyAccessToken(token, { scopes: ['write'] }))).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('a token signed with a key that is not asymmetric is never verified', () => {
  it('even when its kid names a key of the set', async () => {
    const secret = new TextEncoder().encode('a-shared-secret-a-resource-would-have-to-hold');
    const token = await new SignJWT({ iss: issuer.issuer, aud: RESOURCE })
      .setProtectedHeader({ alg: 'HS512', kid: issuer.kid, typ: 'at+jwt' })
      .sign(secret);
    expect(await codeOf(server.verifyAccessToken(token))).toBe('ALGORITHM_NOT_ALLOWED');
  });
});

describe('signatures, checked by OpenSSL (node:crypto), every allowed algorithm', () => {
  // An issuer of its own: it publishes one key per algorithm, which the shared one must not.
  let multi: StandInIssuer;
  let kids: Map<AccessTokenAlgorithm, string>;
  const check = (token: string) =>
    createResourceServer({ issuer: multi.issuer, resource: RESOURCE, now: () => Date.now() }).verifyAccessToken(token);

  beforeAll(async () => {
    multi = await startStandInIssuer({ audience: RESOURCE });
    kids = new Map();
    for (const alg of ASYMMETRIC_ALGORITHMS) kids.set(alg, await multi.rotate(alg));
  });
  afterAll(() => multi?.stop());

  it.each([...ASYMMETRIC_ALGORITHMS])(
    '%s: accepted; a changed payload, or the same bytes signed by another key of its kind, refused',
    async (alg) => {
      const kid = kids.get(alg) as string;
      const token = await multi.sign({ scope: 'openid' }, { alg, kid });
      await expect(check(token)).resolves.toMatchObject({ clientId: 'test-client' });
      const [header, payload, signature] = token.split('.') as [string, string, string];
      const raised = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), scope: 'admin' }));
      expect(await codeOf(check(`${header}.${raised.toString('base64url')}.${signature}`))).toBe('INVALID_SIGNATURE');
      // The very same header and claims, signed by a key of the same algorithm the issuer never published.
      const stranger = await generateKeyPair(alg, { extractable: true });
      const forged = await new CompactSign(Buffer.from(payload, 'base64url'))
        .setProtectedHeader(JSON.parse(Buffer.from(header, 'base64url').toString()))
        .sign(stranger.privateKey);
      expect(forged.split('.').slice(0, 2)).toEqual([header, payload]);
      expect(await codeOf(check(forged))).toBe('INVALID_SIGNATURE');
    },
  );

  it('an ECDSA signature cut short, or DER-encoded instead of R‖S (RFC 7518 §3.4), is refused', async () => {
    const token = await multi.sign({}, { alg: 'ES256', kid: kids.get('ES256') as string });
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const raw = Buffer.from(signature, 'base64url');
    expect(await codeOf(check(`${header}.${payload}.${raw.subarray(0, 63).toString('base64url')}`))).toBe('INVALID_SIGNATURE');
    const der = derSignature(raw);
    expect(await codeOf(check(`${header}.${payload}.${der.toString('base64url')}`))).toBe('INVALID_SIGNATURE');
  });

  it('a dangling character after a signature that fills its last group (ES384: 96 bytes, 128 characters) is refused', async () => {
    const token = await multi.sign({}, { alg: 'ES384', kid: kids.get('ES384') as string });
    await expect(check(token)).resolves.toBeDefined();
    const [header, payload, signature] = token.split('.') as [string, string, string];
    // Node's decoder drops the 129th character: the same bytes, another string.
    expect(Buffer.from(`${signature}A`, 'base64url')).toEqual(Buffer.from(signature, 'base64url'));
    expect(await codeOf(check(`${header}.${payload}.${signature}A`))).toBe('MALFORMED_TOKEN');
  });

  it('the header names an algorithm its key was not published for: no key is found', async () => {
    // PS256 signed by the PS256 key, its header then naming the RS256 key (published with alg RS256).
    const [, payload, signature] = (await multi.sign({}, { alg: 'PS256', kid: kids.get('PS256') as string })).split('.');
    const header = Buffer.from(JSON.stringify({ alg: 'PS256', kid: kids.get('RS256'), typ: 'at+jwt' })).toString('base64url');
    expect(await codeOf(check(`${header}.${payload}.${signature}`))).toBe('UNKNOWN_KEY');
  });
});

describe('the compact form is read strictly (RFC 7515)', () => {
  it('padding or white space in the signature: refused, though the bytes decode to the same signature', async () => {
    const token = await issuer.sign();
    await expect(server.verifyAccessToken(token)).resolves.toBeDefined();
    const [header, payload, signature] = token.split('.') as [string, string, string];
    for (const changed of [
      `${signature}=`,
      `${signature}==`,
      `${signature.slice(0, 8)} ${signature.slice(8)}`,
      `${signature}\n`,
    ]) {
      const { code, message } = await refusal(server.verifyAccessToken(`${header}.${payload}.${changed}`));
      expect([code, message]).toEqual(['MALFORMED_TOKEN', expect.stringMatching(/base64url without padding/)]);
    }
    for (const [h, p] of [
      [`${header} `, payload],
      [header, ` ${payload}`],
      [`${header}=`, payload],
    ]) {
      expect(await codeOf(server.verifyAccessToken(`${h}.${p}.${signature}`))).toBe('MALFORMED_TOKEN');
    }
  });

  it('spare bits set in the last character of any part: the same bytes, another string, refused', async () => {
    const token = await issuer.sign();
    const parts = token.split('.') as [string, string, string];
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    let tried = 0;
    for (const [index, part] of parts.entries()) {
      if (part.length % 4 === 0) continue; // no spare bits: the last character is all data
      const last = alphabet.indexOf(part.at(-1) as string);
      const changed = `${part.slice(0, -1)}${alphabet[last ^ 1]}`;
      expect(Buffer.from(changed, 'base64url')).toEqual(Buffer.from(part, 'base64url'));
      const forged = parts.map((p, i) => (i === index ? changed : p)).join('.');
      expect([index, await codeOf(server.verifyAccessToken(forged))]).toEqual([index, 'MALFORMED_TOKEN']);
      tried++;
    }
    expect(tried).toBeGreaterThanOrEqual(1); // the RS256 signature (342 characters) always has spare bits
  });

  it('a critical header parameter (crit) it does not understand: refused, though correctly signed', async () => {
    const token = await issuer.sign({}, { header: { crit: ['urn:example:bound'], 'urn:example:bound': true } });
    const { code, message } = await refusal(server.verifyAccessToken(token));
    expect([code, message]).toEqual(['MALFORMED_TOKEN', expect.stringMatching(/crit/)]);
  });

  it('a header or claims set that is JSON but not an object, or not JSON', async () => {
    const token = await issuer.sign();
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const part = (value: string) => Buffer.from(value).toString('base64url');
    for (const forged of [
      `${part('["RS256"]')}.${payload}.${signature}`,
      `${part('null')}.${payload}.${signature}`,
      `${header}.${part('[1,2]')}.${signature}`,
      `${header}.${part('"claims"')}.${signature}`,
      `${header}.${part('{"iss":')}.${signature}`,
      `${header}.${Buffer.from([0x7b, 0xff, 0x7d]).toString('base64url')}.${signature}`,
      `${header}.${payload}`,
      `${header}.${payload}.${signature}.${signature}`,
    ]) {
      expect(await codeOf(server.verifyAccessToken(forged))).toBe('MALFORMED_TOKEN');
    }
  });

  it('time claims that are not numbers, and a missing iss or aud, are missing claims', async () => {
    for (const claims of [
      { exp: String(seconds() + 600) },
      { iat: 'now' },
      { nbf: '0' },
      { iss: undefined },
      { aud: undefined },
    ]) {
      const token = await issuer.sign(claims);
      expect([claims, await codeOf(server.verifyAccessToken(token))]).toEqual([claims, 'MISSING_CLAIM']);
    }
  });

  it('an aud list that does not name this resource, and aud of another type', async () => {
    for (const aud of [['https://other.example/api'], [], 42]) {
      const token = await issuer.sign({ aud } as never);
      expect(await codeOf(server.verifyAccessToken(token))).toBe('WRONG_AUDIENCE');
    }
  });
});

describe("time claims at the edge of the tolerance, and claims read as the token's own", () => {
  it('exp exactly the tolerance ago is expired, a second later it is not; nbf likewise', async () => {
    expect(await codeOf(server.verifyAccessToken(await issuer.sign({ exp: seconds() - 15 })))).toBe('TOKEN_EXPIRED');
    await expect(server.verifyAccessToken(await issuer.sign({ exp: seconds() - 14 }))).resolves.toBeDefined();
    await expect(server.verifyAccessToken(await issuer.sign({ nbf: seconds() + 15 }))).resolves.toBeDefined();
    expect(await codeOf(server.verifyAccessToken(await issuer.sign({ nbf: seconds() + 16 })))).toBe('TOKEN_NOT_YET_VALID');
  });

  it('a claim inherited from a polluted Object.prototype does not count', async () => {
    const token = await issuer.sign({ aud: undefined });
    const prototype = Object.prototype as Record<string, unknown>;
    prototype.aud = RESOURCE;
    try {
      expect(await codeOf(server.verifyAccessToken(token))).toBe('MISSING_CLAIM');
    } finally {
      delete prototype.aud;
    }
  });
});

describe("the key must be of the algorithm's kind (as jose required)", () => {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const rs256 = (privateKey: KeyObject, header: object = { alg: 'RS256' }) => {
    const input = `${part(header)}.${part({ sub: 'x' })}`;
    return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
  };

  it('an RSA key under 2048 bits is refused, one of 2048 accepted, for the same signature scheme', () => {
    const weak = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const strong = generateKeyPairSync('rsa', { modulusLength: 2048 });
    expect(signatureVerifies(readCompactJws(rs256(strong.privateKey)), 'RS256', strong.publicKey)).toBe(true);
    expect(signatureVerifies(readCompactJws(rs256(weak.privateKey)), 'RS256', weak.publicKey)).toBe(false);
    expect(keyFitsAlgorithm('RS256', weak.publicKey)).toBe(false);
  });

  it('an RSA signature is not checked under ES256 or EdDSA, though OpenSSL would accept it under ES256', () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const jws = readCompactJws(rs256(privateKey, { alg: 'ES256' }));
    // What the check stands against: OpenSSL ignores the ECDSA encoding for an RSA key.
    expect(verify('sha256', Buffer.from(jws.signingInput), { key: publicKey, dsaEncoding: 'ieee-p1363' }, jws.signature)).toBe(
      true,
    );
    expect(signatureVerifies(jws, 'ES256', publicKey)).toBe(false);
    expect(signatureVerifies(jws, 'EdDSA', publicKey)).toBe(false);
  });

  it('an issuer publishing an RSA key of 1024 bits: its tokens are refused, in words that say why', async () => {
    const weak = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const jwk = { ...weak.publicKey.export({ format: 'jwk' }), kid: 'weak', alg: 'RS256', use: 'sig' };
    issuer.intercept = (what, res) => {
      if (what !== 'jwks') return false;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
      return true;
    };
    const now = seconds();
    const claims = { iss: issuer.issuer, aud: RESOURCE, sub: 's', client_id: 'c', jti: 'j', iat: now, exp: now + 60 };
    const input = `${part({ alg: 'RS256', kid: 'weak', typ: 'at+jwt' })}.${part(claims)}`;
    const token = `${input}.${sign('sha256', Buffer.from(input), weak.privateKey).toString('base64url')}`;
    const { code, message } = await refusal(make().verifyAccessToken(token));
    expect([code, message]).toEqual(['UNKNOWN_KEY', expect.stringMatching(/2048/)]);
  });
});

/** An IEEE P1363 (R‖S) ECDSA signature as ASN.1 DER, which JWS does not use. */
function derSignature(raw: Buffer): Buffer {
  const integer = (bytes: Buffer) => {
    let trimmed = bytes;
    while (trimmed.length > 1 && trimmed[0] === 0) trimmed = trimmed.subarray(1);
    const value = (trimmed[0] as number) & 0x80 ? Buffer.concat([Buffer.of(0), trimmed]) : trimmed;
    return Buffer.concat([Buffer.of(0x02, value.length), value]);
  };
  const half = raw.length / 2;
  const body = Buffer.concat([integer(raw.subarray(0, half)), integer(raw.subarray(half))]);
  return Buffer.concat([Buffer.of(0x30, body.length), body]);
}
