/**
 * A compact JWS (RFC 7515 §7.1) read and its signature checked by OpenSSL through `node:crypto`.
 *
 * jose (v6) verifies through WebCrypto, whose every call is asynchronous: ~70 µs of CPU a token
 * against ~23 µs for `node:crypto`'s synchronous verification of the same RS256 signature. On a
 * resource server that checks a signature on every call, that is most of the work, so the
 * signature is checked here; jose still imports and selects the issuer's keys (issuerKeys.ts).
 *
 * Strict where RFC 7515 is: three base64url parts without padding or white space, a header and
 * claims set that are JSON objects, and no `crit` header (RFC 7515 §4.1.11: a recipient that does
 * not understand a critical extension must refuse the token; this package understands none).
 */
import { constants, KeyObject, type VerifyKeyObjectInput, verify as verifySignature, type webcrypto } from 'node:crypto';
import type { CryptoKey } from 'jose';
import { ResourceServerError } from './errors.ts';
import type { AccessTokenAlgorithm } from './options.ts';

export type CompactJws = {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  /** `<header>.<payload>` as sent: the bytes the signature covers. */
  signingInput: string;
  signature: Buffer;
};

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** How each allowed algorithm is checked: its digest, and the key options RFC 7518 §3 fixes. */
const CHECKS: Record<AccessTokenAlgorithm, { digest: string | null; options?: Omit<VerifyKeyObjectInput, 'key'> }> = {
  RS256: { digest: 'sha256' },
  RS384: { digest: 'sha384' },
  RS512: { digest: 'sha512' },
  // RFC 7518 §3.5: the salt is as long as the digest.
  PS256: {
    digest: 'sha256',
    options: { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST },
  },
  PS384: {
    digest: 'sha384',
    options: { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST },
  },
  PS512: {
    digest: 'sha512',
    options: { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST },
  },
  // RFC 7518 §3.4: R and S side by side, each the curve's size (IEEE P1363), not DER.
  ES256: { digest: 'sha256', options: { dsaEncoding: 'ieee-p1363' } },
  ES384: { digest: 'sha384', options: { dsaEncoding: 'ieee-p1363' } },
  ES512: { digest: 'sha512', options: { dsaEncoding: 'ieee-p1363' } },
  EdDSA: { digest: null },
  Ed25519: { digest: null },
};

const malformed = (detail: string) =>
  new ResourceServerError('MALFORMED_TOKEN', `the access token is not a signed JWT: ${detail}`);

function jsonObject(part: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw malformed(`its ${what} is not JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw malformed(`its ${what} is not a JSON object`);
  return value as Record<string, unknown>;
}

/** Splits and decodes a compact JWS; nothing is verified yet. */
export function readCompactJws(token: string): CompactJws {
  const parts = token.split('.');
  if (parts.length !== 3) throw malformed('a compact JWS has three parts');
  const [header, payload, signature] = parts as [string, string, string];
  // Node's decoder skips padding and white space: several strings would read as one token.
  if (!BASE64URL.test(header) || !BASE64URL.test(payload)) throw malformed('its header and claims must be base64url');
  if (signature !== '' && !BASE64URL.test(signature))
    throw malformed('its signature must be base64url without padding (RFC 7515)');
  const decoded = jsonObject(header, 'header');
  if (decoded.crit !== undefined) {
    throw malformed('it has critical header parameters (crit), which this resource does not understand (RFC 7515 §4.1.11)');
  }
  return {
    header: decoded,
    payload: jsonObject(payload, 'claims set'),
    signingInput: `${header}.${payload}`,
    signature: Buffer.from(signature, 'base64url'),
  };
}

/** jose's keys are CryptoKeys; each is turned into a KeyObject once. */
const keyObjects = new WeakMap<object, KeyObject>();

function keyObject(key: CryptoKey | KeyObject): KeyObject {
  if (key instanceof KeyObject) return key;
  let found = keyObjects.get(key);
  if (!found) {
    found = KeyObject.from(key as webcrypto.CryptoKey);
    keyObjects.set(key, found);
  }
  return found;
}

/** True when `jws`'s signature was made with `key` under `alg` (already checked against the allow-list). */
export function signatureVerifies(jws: CompactJws, alg: AccessTokenAlgorithm, key: CryptoKey | KeyObject): boolean {
  const { digest, options } = CHECKS[alg];
  const input: VerifyKeyObjectInput = { key: keyObject(key), ...options };
  try {
    return verifySignature(digest, Buffer.from(jws.signingInput), input, jws.signature);
  } catch {
    // A key of another type than the algorithm's, or a signature OpenSSL cannot parse.
    return false;
  }
}
