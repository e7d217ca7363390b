/**
 * A stand-in token issuer for tests of resource servers: a real HTTP server on a free loopback
 * port serving an OpenID discovery document and a JSON Web Key Set, and RFC 9068 access tokens
 * signed with jose by its keys. It stands in for Signet where a test needs tokens Signet will not
 * issue (expired ones, other algorithms, other keys, forged ones); the end-to-end tests use the
 * real provider.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { base64url, exportJWK, exportSPKI, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

export type SignOptions = {
  alg?: string;
  kid?: string;
  typ?: string | null;
  /** More header parameters; those named in `crit` are declared to jose as understood, so it signs them. */
  header?: Record<string, unknown>;
  /** Sign with this private key instead of the key `kid` names (or, for a kid it does not hold, the current one). */
  key?: KeyPair['privateKey'] | Uint8Array;
};

export type StandInIssuer = {
  /** The issuer identifier (`http://127.0.0.1:<port>` plus `path`). */
  issuer: string;
  /** How many times each document was fetched. */
  fetches: { discovery: number; jwks: number };
  /** Replaces an answer: return true when `respond` answered (a failure, a redirect, a bad document). */
  intercept: ((what: 'discovery' | 'jwks', res: ServerResponse) => boolean) | undefined;
  /** The current signing key's id. */
  kid: string;
  /** An access token: RFC 9068 claims (iss, sub, aud, client_id, scope, iat, exp, jti) over `claims`. */
  sign(claims?: JWTPayload, options?: SignOptions): Promise<string>;
  /** An unsigned token (`alg: none`) with these claims. */
  unsigned(claims?: JWTPayload): string;
  /** The current public key as PEM (for the "HMAC with the public key as secret" forgery). */
  publicKeyPem(): Promise<string>;
  /** Adds a key (RS256 unless another algorithm is named) and signs with it from now on; returns its kid. */
  rotate(alg?: string): Promise<string>;
  /** Stops publishing a key (it stays usable for signing: tokens a withdrawn key signed). */
  withdraw(kid: string): void;
  /** A key pair the issuer does not publish. */
  foreignKey(): Promise<KeyPair>;
  stop(): Promise<void>;
};

export async function startStandInIssuer({ audience, path = '' }: { audience: string; path?: string }): Promise<StandInIssuer> {
  const keys: { kid: string; alg: string; pair: KeyPair; jwk: JWK; withdrawn?: boolean }[] = [];
  const addKey = async (alg = 'RS256') => {
    const pair = await generateKeyPair(alg, { extractable: true });
    const kid = `key-${keys.length + 1}`;
    keys.push({ kid, alg, pair, jwk: { ...(await exportJWK(pair.publicKey)), kid, alg, use: 'sig' } });
    return kid;
  };
  await addKey();
  const server = createServer((req, res) => {
    const what =
      req.url === `${path}/.well-known/openid-configuration` ? 'discovery' : req.url === `${path}/jwks` ? 'jwks' : undefined;
    if (!what) return void res.writeHead(404).end();
    state.fetches[what]++;
    if (state.intercept?.(what, res)) return;
    const body =
      what === 'discovery'
        ? { issuer: state.issuer, jwks_uri: `${state.issuer}/jwks`, authorization_endpoint: `${state.issuer}/auth` }
        : { keys: keys.filter((k) => !k.withdrawn).map((k) => k.jwk) };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const current = () => keys[keys.length - 1] as (typeof keys)[number];
  const claimsWith = (claims: JWTPayload): JWTPayload => {
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: state.issuer,
      sub: 'eip155:1:0x00000000000000000000000000000000000000a1',
      aud: audience,
      client_id: 'test-client',
      scope: 'openid profile',
      iat: now,
      exp: now + 600,
      jti: crypto.randomUUID(),
      ...claims,
    };
  };
  const state: StandInIssuer = {
    issuer: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    fetches: { discovery: 0, jwks: 0 },
    intercept: undefined,
    get kid() {
      return current().kid;
    },
    async sign(claims = {}, { alg = current().alg, kid = current().kid, typ = 'at+jwt', header = {}, key } = {}) {
      const crit = Array.isArray(header.crit) ? Object.fromEntries(header.crit.map((name) => [name, true])) : undefined;
      return new SignJWT(claimsWith(claims))
        .setProtectedHeader({ ...header, alg, kid, ...(typ === null ? {} : { typ }) })
        .sign(key ?? (keys.find((k) => k.kid === kid) ?? current()).pair.privateKey, { crit });
    },
    unsigned(claims = {}) {
      const part = (value: object) => base64url.encode(JSON.stringify(value));
      return `${part({ alg: 'none', typ: 'at+jwt' })}.${part(claimsWith(claims))}.`;
    },
    publicKeyPem: () => exportSPKI(current().pair.publicKey),
    rotate: addKey,
    withdraw(kid) {
      for (const key of keys) if (key.kid === kid) key.withdrawn = true;
    },
    foreignKey: () => generateKeyPair('RS256', { extractable: true }),
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
  return state;
}
