/**
 * A compact JWS (RFC 7515 §7.1) read and its signature checked by OpenSSL through `node:crypto`.
 *
 * jose (v6) verifies through WebCrypto, whose every call is asynchronous: ~70 µs of CPU a token
 * against ~23 µs for `node:crypto`'s synchronous verification of the same RS256 signature. On a
 * resource server that checks a signature on every call, that is most of the work, so the
 * signature is checked here; jose still imports and selects the issuer's keys (issuerKeys.ts).
 *
 * Strict where RFC 7515 is: three base64url parts written one way only (no padding, white space or
 * stray bits), a header and claims set that are JSON objects in UTF-8, and no `crit` header (RFC
 * 7515 §4.1.11: a recipient that does not understand a critical extension must refuse the token;
 * this package understands none).
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

const PSS = { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST };

/** What a key must be for an algorithm (RFC 7518 §3), as jose required: RSA of 2048 bits or more, or the algorithm's curve. */
type KeyFacts = { type: string | undefined; modulusLength: number; namedCurve: string | undefined };
const rsa = (types: string[]) => (key: KeyFacts) => types.includes(key.type ?? '') && key.modulusLength >= 2048;
const curve = (name: string) => (key: KeyFacts) => key.type === 'ec' && key.namedCurve === name;

/** How each allowed algorithm is checked: the key it needs, its digest, and the options RFC 7518 §3 fixes. */
const CHECKS: Record<
  AccessTokenAlgorithm,
  { fits: (key: KeyFacts) => boolean; digest: string | null; options?: Omit<VerifyKeyObjectInput, 'key'> }
> = {
  RS256: { fits: rsa(['rsa']), digest: 'sha256' },
  RS384: { fits: rsa(['rsa']), digest: 'sha384' },
  RS512: { fits: rsa(['rsa']), digest: 'sha512' },
  // RFC 7518 §3.5: the salt is as long as the digest.
  PS256: { fits: rsa(['rsa', 'rsa-pss']), digest: 'sha256', options: PSS },
  PS384: { fits: rsa(['rsa', 'rsa-pss']), digest: 'sha384', options: PSS },
  PS512: { fits: rsa(['rsa', 'rsa-pss']), digest: 'sha512', options: PSS },
  // RFC 7518 §3.4: R and S side by side, each the curve's size (IEEE P1363), not DER.
  ES256: { fits: curve('prime256v1'), digest: 'sha256', options: { dsaEncoding: 'ieee-p1363' } },
  ES384: { fits: curve('secp384r1'), digest: 'sha384', options: { dsaEncoding: 'ieee-p1363' } },
  ES512: { fits: curve('secp521r1'), digest: 'sha512', options: { dsaEncoding: 'ieee-p1363' } },
  EdDSA: { fits: (key) => key.type === 'ed25519' || key.type === 'ed448', digest: null },
  Ed25519: { fits: (key) => key.type === 'ed25519', digest: null },
};

const malformed = (detail: string) =>
  new ResourceServerError('MALFORMED_TOKEN', `the access token is not a signed JWT: ${detail}`);

/**
 * The bytes of one part, when it is written as RFC 7515 §2 and RFC 4648 §5 say and no other way:
 * base64url characters only, no padding, no bits set past the last byte. Node's decoder skips
 * other characters, drops a dangling one and ignores those bits, so without this several strings
 * would read as one token (defeating a deny-list of tokens, and filling the verified-token cache).
 */
function canonicalBytes(part: string): Buffer | undefined {
  if (!BASE64URL.test(part)) return undefined;
  const bytes = Buffer.from(part, 'base64url');
  return bytes.toString('base64url') === part ? bytes : undefined;
}

/** A member of a decoded header or claims set: its own only, never one inherited from Object.prototype. */
export const own = (object: Record<string, unknown>, name: string): unknown =>
  Object.hasOwn(object, name) ? object[name] : undefined;

/** UTF-8 as jose reads it: a byte sequence that is not UTF-8 is an error, not a replacement character. */
const utf8 = new TextDecoder('utf-8', { fatal: true });

function jsonObject(part: string, what: string): Record<string, unknown> {
  const bytes = canonicalBytes(part);
  if (!bytes) throw malformed(`its ${what} must be base64url without padding, written one way only (RFC 7515)`);
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(bytes));
  } catch {
    throw malformed(`its ${what} is not JSON in UTF-8`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw malformed(`its ${what} is not a JSON object`);
  return value as Record<string, unknown>;
}

/** Splits and decodes a compact JWS; nothing is verified yet. */
export function readCompactJws(token: string): CompactJws {
  const parts = token.split('.');
  if (parts.length !== 3) throw malformed('a compact JWS has three parts');
  const [header, payload, signature] = parts as [string, string, string];
  const decoded = jsonObject(header, 'header');
  if (Object.hasOwn(decoded, 'crit')) {
    throw malformed('it has critical header parameters (crit), which this resource does not understand (RFC 7515 §4.1.11)');
  }
  const claims = jsonObject(payload, 'claims set');
  // An empty signature is left to fail verification, as any wrong one does.
  const bytes = signature === '' ? Buffer.alloc(0) : canonicalBytes(signature);
  if (!bytes) throw malformed('its signature must be base64url without padding, written one way only (RFC 7515)');
  return { header: decoded, payload: claims, signingInput: `${header}.${payload}`, signature: bytes };
}

/** jose's keys are CryptoKeys; each is turned into a KeyObject, and what it is read, once. */
const keyObjects = new WeakMap<object, { key: KeyObject; facts: KeyFacts }>();

function keyObject(key: CryptoKey | KeyObject): { key: KeyObject; facts: KeyFacts } {
  let found = keyObjects.get(key);
  if (!found) {
    const object = key instanceof KeyObject ? key : KeyObject.from(key as webcrypto.CryptoKey);
    const details = object.type === 'secret' ? {} : (object.asymmetricKeyDetails ?? {});
    found = {
      key: object,
      facts: {
        type: object.type === 'secret' ? undefined : object.asymmetricKeyType,
        modulusLength: details.modulusLength ?? 0,
        namedCurve: details.namedCurve,
      },
    };
    keyObjects.set(key, found);
  }
  return found;
}

/**
 * Whether `key` is of `alg`'s kind. OpenSSL would otherwise check an RSA signature under `ES256`
 * (it ignores the ECDSA encoding for an RSA key) or under `EdDSA`, and accept RSA keys of any size.
 */
export function keyFitsAlgorithm(alg: AccessTokenAlgorithm, key: CryptoKey | KeyObject): boolean {
  return CHECKS[alg].fits(keyObject(key).facts);
}

/** True when `jws`'s signature was made with `key` under `alg` (already checked against the allow-list). */
export function signatureVerifies(jws: CompactJws, alg: AccessTokenAlgorithm, key: CryptoKey | KeyObject): boolean {
  const { fits, digest, options } = CHECKS[alg];
  const { key: object, facts } = keyObject(key);
  if (!fits(facts)) return false;
  try {
    return verifySignature(digest, Buffer.from(jws.signingInput), { key: object, ...options }, jws.signature);
  } catch {
    // A signature OpenSSL cannot parse.
    return false;
  }
}
