/**
 * An agent's assertion (RFC 7523 §3): a JWT signed by the agent's own wallet key, checked offline.
 *
 * - `ES256K` for an Ethereum key: `iss` = `sub` = `eip155:<chain>:<address>`. The signature is
 *   the JWS one (RFC 8812): 64 bytes r‖s over SHA-256 of the signing input. It is checked by public-key
 *   recovery: of the two recovery ids, one must give the address `sub` names (a plain account's key;
 *   a contract wallet has no key to sign with: docs/relying-parties.md, "Smart-account agents"). A
 *   `jwk` header is allowed, not needed: it must be a secp256k1 public key whose address is the one
 *   `sub` names (else refused, before the signature is looked at), and the signature must then recover
 *   to that address, so a `jwk` never widens what verifies. A key proven once (recovered, or a
 *   `jwk` that hashes to the address) is remembered, and an assertion checked against it with
 *   OpenSSL: an agent signing in again costs an ECDSA check, not a recovery.
 * - `EdDSA` for a Solana key: `iss` = `sub` = `solana:<genesis ref>:<base58 address>`; the address
 *   is the Ed25519 public key, and OpenSSL checks the signature with it.
 * - Anything else is refused by name: `none` (unsigned), HMAC (`HS256`…: a shared secret is not a
 *   wallet key), other algorithms. `jku`, `x5u`, `x5c` and `kid` are never followed; `crit` is refused.
 * - Claims: `aud` names the issuer or the token endpoint; `exp` is at most five minutes after `iat`;
 *   `exp` and `nbf` are honoured with CLOCK_SKEW_SECONDS; `jti` is required (claimed once by the
 *   grant, grant.ts). Every refusal is `invalid_grant` with its own `error_description`.
 */
import { createHash, createPublicKey, type KeyObject, verify as verifySignature } from 'node:crypto';
import { base58 } from '@scure/base';
import { keccak256, recoverSecp256k1PublicKey } from '@signet/siwe/offline';
import { isSolanaAddress, type SolanaNetwork } from '@signet/siws/message';
import { decodeJwt, decodeProtectedHeader, type JWTPayload, type ProtectedHeaderParameters } from 'jose';
import { errors } from 'oidc-provider';
import type { Hex } from 'viem';
import { parseAccountId } from '../wallets/ethereum.ts';
import { parseSolanaAccountId } from '../wallets/solana.ts';

/** The longest an assertion may live (exp − iat), seconds. */
export const MAX_ASSERTION_LIFETIME = 300;
/** The longest assertion read, characters (a wallet-signed JWT is a few hundred). */
const MAX_ASSERTION_LENGTH = 8192;
const MAX_JTI_LENGTH = 256;

export type AgentKey =
  | { namespace: 'eip155'; accountId: string; address: Hex; chainId: number }
  | { namespace: 'solana'; accountId: string; address: string; network: SolanaNetwork };

export type VerifiedAssertion = { key: AgentKey; jti: string; exp: number; alg: 'ES256K' | 'EdDSA' };

/**
 * A refusal of the assertion: `invalid_grant`, its own words, and a stable reason for the audit log.
 * (oidc-provider's InvalidGrant answers a fixed description and keeps its argument as a hidden
 * detail; an agent's author needs the reason, and it names nothing secret: it is set as the description.)
 */
export class AssertionRefused extends errors.InvalidGrant {
  /** For the audit log: the account `sub` names, and whether the signature proved it (as a refused sign-in says). */
  account?: { id: string; verified: boolean };
  constructor(
    readonly reason: string,
    description: string,
  ) {
    super();
    Object.assign(this, { error_description: description });
  }
}

const refuse = (reason: string, description: string) => new AssertionRefused(reason, description);

function headerOf(assertion: string): ProtectedHeaderParameters {
  if (assertion.length > MAX_ASSERTION_LENGTH) {
    throw refuse('ASSERTION_TOO_LARGE', `the assertion is longer than ${MAX_ASSERTION_LENGTH} characters`);
  }
  try {
    if (assertion.split('.').length !== 3) throw new Error('not three parts');
    return decodeProtectedHeader(assertion);
  } catch {
    throw refuse(
      'MALFORMED_ASSERTION',
      'the assertion is not a signed JWT (JWS compact serialization: header.payload.signature)',
    );
  }
}

/** The algorithm, when it is one an agent may sign with; otherwise its refusal, in words. */
function algorithmOf(header: ProtectedHeaderParameters): 'ES256K' | 'EdDSA' {
  const { alg } = header;
  if (alg === 'ES256K' || alg === 'EdDSA') {
    if (header.crit !== undefined)
      throw refuse('UNSUPPORTED_ALG', 'the assertion header names `crit` extensions; none are understood');
    return alg;
  }
  if (typeof alg === 'string' && alg.toLowerCase() === 'none') {
    throw refuse(
      'UNSUPPORTED_ALG',
      'alg "none": an unsigned assertion is refused; sign it with the wallet key (ES256K or EdDSA)',
    );
  }
  if (typeof alg === 'string' && /^HS/i.test(alg)) {
    throw refuse(
      'UNSUPPORTED_ALG',
      `alg "${alg}": an HMAC (shared-secret) assertion is refused; sign it with the wallet key (ES256K or EdDSA)`,
    );
  }
  throw refuse(
    'UNSUPPORTED_ALG',
    `alg ${JSON.stringify(String(alg).slice(0, 20))} is not taken; an Ethereum key signs ES256K, a Solana key EdDSA`,
  );
}

function payloadOf(assertion: string): JWTPayload {
  try {
    return decodeJwt(assertion);
  } catch {
    throw refuse('MALFORMED_ASSERTION', 'the assertion payload is not a JSON object');
  }
}

/** `iss` and `sub` name one account, of the algorithm's kind. */
function keyOf(payload: JWTPayload, alg: 'ES256K' | 'EdDSA'): AgentKey {
  const { iss, sub } = payload;
  if (typeof sub !== 'string' || typeof iss !== 'string') {
    throw refuse('MISSING_CLAIM', 'the assertion needs `iss` and `sub`, both the agent’s account id (CAIP-10)');
  }
  if (iss !== sub) throw refuse('ISS_SUB_MISMATCH', 'the assertion’s `iss` and `sub` differ; both name the agent’s account');
  if (alg === 'ES256K') {
    const parsed = parseAccountId(sub);
    if (!parsed) {
      throw refuse('INVALID_SUBJECT', 'an ES256K assertion’s `sub` is `eip155:<chain id>:<address>` (an Ethereum account)');
    }
    return { namespace: 'eip155', accountId: `eip155:${parsed.chainId}:${parsed.address}`, ...parsed };
  }
  const parsed = parseSolanaAccountId(sub);
  if (!parsed) {
    throw refuse(
      'INVALID_SUBJECT',
      'an EdDSA assertion’s `sub` is `solana:<genesis hash reference>:<base58 address>` (a Solana account)',
    );
  }
  return { namespace: 'solana', accountId: sub, ...parsed };
}

const bytesOf = (base64url: string) => Buffer.from(base64url, 'base64url');

/**
 * The signing input and the signature's bytes. Each part must be base64url without padding (RFC
 * 7515 §2), as jose requires: Node's decoder would skip any other character, so that many strings
 * would read as one signature, and the signing input is then plain ASCII, the bytes that were signed.
 * The signature must also be written the one way its bytes are (no bits set past its last byte,
 * which Node's decoder ignores): one signature, one string.
 */
function signedParts(assertion: string): { input: Buffer; signature: Buffer } {
  const end = assertion.lastIndexOf('.');
  const [input, encoded] = [assertion.slice(0, end), assertion.slice(end + 1)];
  if (!/^[A-Za-z0-9_-]*$/.test(encoded) || bytesOf(encoded).toString('base64url') !== encoded) {
    throw refuse(
      'MALFORMED_ASSERTION',
      'the assertion’s signature is not base64url (RFC 7515: no padding, no other characters, no bits set past its last byte)',
    );
  }
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(input)) {
    throw refuse(
      'MALFORMED_ASSERTION',
      'the assertion’s header or payload is not base64url (RFC 7515: no padding, no other characters)',
    );
  }
  return { input: Buffer.from(input, 'ascii'), signature: bytesOf(encoded) };
}

/** The address of a secp256k1 public key's coordinates: the last 20 bytes of keccak256(x‖y). */
const addressOf = (x: Uint8Array, y: Uint8Array) =>
  `0x${Buffer.from(keccak256(Buffer.concat([x, y])))
    .subarray(12)
    .toString('hex')}`;

/** A secp256k1 public key as Node's crypto takes it (JWK coordinates). */
const keyObjectOf = (x: Uint8Array, y: Uint8Array): KeyObject =>
  createPublicKey({
    key: { kty: 'EC', crv: 'secp256k1', x: Buffer.from(x).toString('base64url'), y: Buffer.from(y).toString('base64url') },
    format: 'jwk',
  });

/**
 * Public keys already proven to be an address's (recovered from one of its signatures, or a `jwk`
 * header that hashes to it), by lower-case address: an agent signs in again and again with one
 * key, and checking a signature with a known key (OpenSSL) costs a fraction of a recovery (JS).
 * A public key is public: the cache holds nothing secret, and a key that hashes to the address is
 * the only one whose signatures recover to it. Bounded; the oldest entry goes first.
 */
const KNOWN_KEYS_MAX = 10_000;
const knownKeys = new Map<string, KeyObject>();
function remember(address: string, key: KeyObject): void {
  if (knownKeys.size >= KNOWN_KEYS_MAX) knownKeys.delete(knownKeys.keys().next().value as string);
  knownKeys.set(address, key);
}

/** The coordinates of a `jwk` header's secp256k1 public key, or the refusal. */
function jwkPoint(jwk: unknown): { x: Uint8Array; y: Uint8Array } {
  const key = jwk as { kty?: unknown; crv?: unknown; x?: unknown; y?: unknown; d?: unknown };
  if (key === null || typeof key !== 'object' || key.kty !== 'EC' || key.crv !== 'secp256k1' || key.d !== undefined) {
    throw refuse('INVALID_JWK', 'the `jwk` header is not a secp256k1 public key (kty EC, crv secp256k1, x, y)');
  }
  const x = typeof key.x === 'string' ? bytesOf(key.x) : undefined;
  const y = typeof key.y === 'string' ? bytesOf(key.y) : undefined;
  if (x?.length !== 32 || y?.length !== 32) throw refuse('INVALID_JWK', 'the `jwk` header’s x and y are not 32 bytes each');
  return { x, y };
}

/** A key of the address from the `jwk` header (it must hash to the address), or one proven before. */
function knownKeyOf(header: ProtectedHeaderParameters, address: string): KeyObject | undefined {
  if (header.jwk === undefined) return knownKeys.get(address);
  const { x, y } = jwkPoint(header.jwk);
  if (addressOf(x, y) !== address)
    throw refuse('JWK_MISMATCH', 'the `jwk` header is the key of another address than `sub` names');
  try {
    return knownKeys.get(address) ?? keyObjectOf(x, y);
  } catch {
    throw refuse('INVALID_JWK', 'the `jwk` header is not a point on secp256k1');
  }
}

const NOT_SIGNED = 'the assertion is not signed by the key of the address `sub` names';

/**
 * ES256K against `address`: with a known key of the address (a `jwk` header that hashes to it, or
 * one recovered before), an ECDSA check; otherwise public-key recovery, where one of the two
 * recovery ids must give the address (the key is then remembered).
 */
async function verifyEs256k(assertion: string, header: ProtectedHeaderParameters, address: Hex): Promise<void> {
  const lower = address.toLowerCase();
  const { input, signature } = signedParts(assertion);
  if (signature.length !== 64) {
    throw refuse('INVALID_SIGNATURE', 'an ES256K signature is 64 bytes (r‖s, RFC 8812), not a DER or 65-byte one');
  }
  const known = knownKeyOf(header, lower);
  if (known) {
    if (!verifySignature('sha256', input, { key: known, dsaEncoding: 'ieee-p1363' }, signature))
      throw refuse('INVALID_SIGNATURE', NOT_SIGNED);
    remember(lower, known);
    return;
  }
  const hash = createHash('sha256').update(input).digest();
  for (const recoveryId of [0, 1] as const) {
    const point = recoverSecp256k1PublicKey(hash, signature, recoveryId);
    if (point === undefined) continue;
    const [x, y] = [point.subarray(1, 33), point.subarray(33)];
    if (addressOf(x, y) !== lower) continue;
    remember(lower, keyObjectOf(x, y));
    return;
  }
  throw refuse('INVALID_SIGNATURE', NOT_SIGNED);
}

/**
 * EdDSA with the Solana address's Ed25519 key, checked by OpenSSL (Node's crypto), as ES256K's known
 * keys are: the header was read and checked before (algorithmOf: EdDSA, no `crit`), so what is left
 * is the signature over the signing input. jose's compactVerify did the same check through WebCrypto,
 * importing the key each time: 2.4× the CPU (~320 against ~135 µs per assertion).
 */
function verifyEdDsa(assertion: string, address: string): void {
  if (!isSolanaAddress(address)) throw refuse('INVALID_SUBJECT', 'the Solana address is not a 32-byte public key');
  const key = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(base58.decode(address)).toString('base64url') },
    format: 'jwk',
  });
  const { input, signature } = signedParts(assertion);
  if (signature.length !== 64) throw refuse('INVALID_SIGNATURE', 'an EdDSA signature is 64 bytes (RFC 8037)');
  if (!verifySignature(null, input, key, signature)) {
    throw refuse('INVALID_SIGNATURE', NOT_SIGNED);
  }
}

export type AssertionExpectations = {
  /** What `aud` may name: the issuer and the token endpoint's URL. */
  audiences: readonly string[];
  clockSkewSeconds: number;
  now?: number;
};

/** The time claims and the audience, each refusal in its own words. */
function checkClaims(payload: JWTPayload, { audiences, clockSkewSeconds, now = Date.now() }: AssertionExpectations) {
  const seconds = Math.floor(now / 1000);
  const { exp, iat, nbf, aud, jti } = payload;
  const named = Array.isArray(aud) ? aud : aud === undefined ? [] : [aud];
  if (!named.some((value) => audiences.includes(value))) {
    throw refuse('WRONG_AUDIENCE', `the assertion’s \`aud\` must name this provider: ${audiences.join(' or ')}`);
  }
  if (typeof exp !== 'number' || typeof iat !== 'number') {
    throw refuse('MISSING_CLAIM', 'the assertion needs `iat` and `exp` (seconds since the epoch)');
  }
  if (exp <= seconds - clockSkewSeconds) throw refuse('ASSERTION_EXPIRED', `the assertion expired at ${exp} (now ${seconds})`);
  if (exp - iat > MAX_ASSERTION_LIFETIME) {
    throw refuse(
      'ASSERTION_TOO_LONG_LIVED',
      `the assertion lives ${exp - iat} s (exp − iat); at most ${MAX_ASSERTION_LIFETIME} s are taken`,
    );
  }
  if (iat > seconds + clockSkewSeconds)
    throw refuse('ASSERTION_NOT_YET_VALID', `the assertion was issued in the future (iat ${iat})`);
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf > seconds + clockSkewSeconds)) {
    throw refuse('ASSERTION_NOT_YET_VALID', `the assertion is not valid before ${String(nbf)} (now ${seconds})`);
  }
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_LENGTH) {
    throw refuse('MISSING_CLAIM', `the assertion needs a \`jti\`: a unique string of at most ${MAX_JTI_LENGTH} characters`);
  }
  return { jti, exp };
}

/** Verifies an assertion offline; throws AssertionRefused (invalid_grant) with words. */
export async function verifyAssertion(assertion: string, expectations: AssertionExpectations): Promise<VerifiedAssertion> {
  const header = headerOf(assertion);
  const alg = algorithmOf(header);
  const payload = payloadOf(assertion);
  const key = keyOf(payload, alg);
  let verified = false;
  try {
    if (key.namespace === 'eip155') await verifyEs256k(assertion, header, key.address);
    else verifyEdDsa(assertion, key.address);
    verified = true;
    const { jti, exp } = checkClaims(payload, expectations);
    return { key, jti, exp, alg };
  } catch (error) {
    if (error instanceof AssertionRefused) error.account = { id: key.accountId, verified };
    throw error;
  }
}
