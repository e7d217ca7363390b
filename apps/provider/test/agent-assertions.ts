/**
 * Agents' assertions (RFC 7523) signed as agents sign them, with libraries outside Signet's code:
 * `@noble/curves` (secp256k1, what viem itself uses) for ES256K over the JWS signing input, jose
 * for EdDSA with an Ed25519 key. The tests' way of being an agent; shared by the agents' tests.
 */
import { randomUUID } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1';
import { sha256 } from '@noble/hashes/sha256';
import { base58 } from '@scure/base';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { type Hex, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** The usual claims of an assertion for `sub` at `aud`, valid for 60 s from now; `overrides` replace any. */
export function claimsFor(sub: string, aud: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const iat = Math.floor(Date.now() / 1000);
  return { iss: sub, sub, aud, iat, exp: iat + 60, jti: randomUUID(), ...overrides };
}

/** An Ethereum agent: a secp256k1 key, its address, and ES256K assertions signed with @noble/curves. */
export function ethereumAgent(privateKey: Hex = toHex(secp256k1.utils.randomPrivateKey())) {
  const { address } = privateKeyToAccount(privateKey);
  const secret = Buffer.from(privateKey.slice(2), 'hex');
  /** The JWK of the public key (for a `jwk` header). */
  const publicJwk = () => {
    const point = secp256k1.getPublicKey(secret, false);
    return {
      kty: 'EC',
      crv: 'secp256k1',
      x: Buffer.from(point.subarray(1, 33)).toString('base64url'),
      y: Buffer.from(point.subarray(33)).toString('base64url'),
    };
  };
  return {
    privateKey,
    address,
    accountId: (chainId = 1) => `eip155:${chainId}:${address}`,
    publicJwk,
    /** A JWS with `header` (alg ES256K unless it says otherwise) over `claims`: r‖s over SHA-256 of the input. */
    sign(claims: Record<string, unknown>, header: Record<string, unknown> = {}): string {
      const input = `${b64({ alg: 'ES256K', typ: 'JWT', ...header })}.${b64(claims)}`;
      const signature = secp256k1.sign(sha256(new TextEncoder().encode(input)), secret).toCompactRawBytes();
      return `${input}.${Buffer.from(signature).toString('base64url')}`;
    },
  };
}

export type EthereumAgent = ReturnType<typeof ethereumAgent>;

const SOLANA_MAINNET = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';

/** A Solana agent: an Ed25519 key, its base58 address, and EdDSA assertions signed with jose. */
export async function solanaAgent(reference = SOLANA_MAINNET) {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const address = base58.encode(Buffer.from((await exportJWK(publicKey)).x as string, 'base64url'));
  return {
    address,
    accountId: `solana:${reference}:${address}`,
    sign: (claims: Record<string, unknown>, header: Record<string, unknown> = {}) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', ...header }).sign(privateKey),
  };
}

/** An unsigned (`alg: none`) or HMAC assertion: what the grant must refuse. */
export function unsignedAssertion(claims: Record<string, unknown>): string {
  return `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
}

export async function hmacAssertion(claims: Record<string, unknown>): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode('a shared secret of 32 bytes!!!!!'));
}

/** A token request with the jwt-bearer grant; the client authenticates as it registered (client_id, or Basic). */
export async function tokenRequest(
  tokenEndpoint: string,
  client: { client_id: string; client_secret?: string },
  body: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  const form = new URLSearchParams({ grant_type: JWT_BEARER, ...body });
  if (client.client_secret) headers.authorization = `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`;
  else form.set('client_id', client.client_id);
  const response = await fetch(tokenEndpoint, { method: 'POST', headers, body: form });
  return { status: response.status, body: (await response.json().catch(() => ({}))) as Record<string, unknown> };
}
