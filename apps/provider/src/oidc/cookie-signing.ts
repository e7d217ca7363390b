/**
 * Cookie signatures for oidc-provider's cookies (`_session`, `_interaction`, …), in the format the
 * `cookies` package Koa uses makes with keygrip: HMAC-SHA1 of `name=value` under the first key,
 * base64url, in a companion `<name>.sig` cookie; a cookie signed with any of the keys verifies
 * (COOKIE_KEYS rotation). Cookies set before this existed verify unchanged, and the other way round.
 *
 * What differs from keygrip is the comparison: keygrip hands it to tsscmp, which draws 32 random
 * bytes and computes two more HMACs to compare in constant time (~10 µs a comparison, ~40 µs on a
 * busy server, where a sign-in verifies six or more cookies); here it is Node's own
 * crypto.timingSafeEqual on the two digests (~2 µs). Both take the same time whatever the
 * digests hold; a digest of another length (a valid one is always 27 characters) is refused at
 * once, and the length of a valid signature is no secret.
 */
import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';

/** The interface the `cookies` package (and so Koa and oidc-provider) asks of its `keys`. */
export type CookieSigner = {
  sign(data: string): string;
  verify(data: string, digest: string): boolean;
  /** The index of the key that made `digest`, or -1. */
  index(data: string, digest: string): number;
};

const digestOf = (key: KeyObject, data: string) => createHmac('sha1', key).update(data).digest('base64url');

export function cookieSigner(keys: readonly string[]): CookieSigner {
  if (keys.length === 0 || keys.some((key) => typeof key !== 'string' || key.length === 0)) {
    throw new TypeError('cookie signing needs at least one non-empty key');
  }
  // Each key as a KeyObject, made once: given a string, createHmac encodes it again at every call.
  const secrets = keys.map((key) => createSecretKey(Buffer.from(key, 'utf8')));
  const first = secrets[0] as KeyObject;
  const index = (data: string, digest: string) => {
    if (typeof digest !== 'string') return -1;
    const given = Buffer.from(digest);
    for (let i = 0; i < secrets.length; i++) {
      const expected = Buffer.from(digestOf(secrets[i] as KeyObject, data));
      if (given.length === expected.length && timingSafeEqual(given, expected)) return i;
    }
    return -1;
  };
  return {
    sign: (data) => digestOf(first, data),
    verify: (data, digest) => index(data, digest) > -1,
    index,
  };
}
