/**
 * Signing keys, cookie keys and the pairwise-subject salt. All live in storage, so a
 * restart or a second replica uses the same ones; the first process to need one creates it
 * with an atomic set-if-absent, and any other process that raced it loads the winner's.
 */
import { randomBytes } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Store } from '../storage/index.ts';

export type SigningKey = {
  kid: string;
  alg: 'RS256';
  /** Private JWK (RSA). Never leaves storage and this process. */
  jwk: JWK;
  createdAt: number;
  /** When a newer key took over signing; the key stays published for verification a while. */
  retiredAt?: number;
};

const SIGNING_KEYS = 'keys:signing';
const COOKIE_KEYS = 'keys:cookies';
const PAIRWISE_SALT = 'keys:pairwise';

/** A retired key stays in the JWKS this long: the longest lifetime of anything it signed (ID token, 1 h) plus skew. */
export const RETIRED_KEY_RETENTION_MS = 3600_000 + 5 * 60_000;

async function generateSigningKey(now: number): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { kid, alg: 'RS256', jwk: { ...jwk, kid, alg: 'RS256', use: 'sig' }, createdAt: now };
}

async function readKeys(store: Store): Promise<SigningKey[] | undefined> {
  const raw = await store.get(SIGNING_KEYS);
  return raw === undefined ? undefined : (JSON.parse(raw) as SigningKey[]);
}

/** The stored signing keys, creating the first one if there is none yet. */
export async function ensureSigningKeys(store: Store, now = Date.now()): Promise<SigningKey[]> {
  const existing = await readKeys(store);
  if (existing && existing.length > 0) return existing;
  const first = await generateSigningKey(now);
  if (await store.setIfAbsent(SIGNING_KEYS, JSON.stringify([first]))) return [first];
  // Another process created them between our read and our write: use theirs.
  const created = await readKeys(store);
  if (!created || created.length === 0) throw new Error('signing keys vanished while being created');
  return created;
}

export async function listSigningKeys(store: Store): Promise<SigningKey[]> {
  return (await readKeys(store)) ?? [];
}

/**
 * Makes a new key the signing key. The previous one is retired: it stays published for
 * RETIRED_KEY_RETENTION_MS so tokens it signed still verify; keys retired longer ago are dropped.
 */
export async function rotateSigningKeys(
  store: Store,
  now = Date.now(),
): Promise<{ added: SigningKey; retired: string[]; dropped: string[] }> {
  // On an empty store the new key is simply the first one: nothing to retire.
  const keys = await listSigningKeys(store);
  const added = await generateSigningKey(now);
  const retired: string[] = [];
  const kept = keys.flatMap((key) => {
    if (key.retiredAt === undefined) {
      retired.push(key.kid);
      return [{ ...key, retiredAt: now }];
    }
    return now - key.retiredAt < RETIRED_KEY_RETENTION_MS ? [key] : [];
  });
  const dropped = keys.filter((k) => !kept.some((c) => c.kid === k.kid)).map((k) => k.kid);
  await store.set(SIGNING_KEYS, JSON.stringify([added, ...kept]));
  return { added, retired, dropped };
}

/**
 * The private JWKS for oidc-provider: the signing key first (oidc-provider signs with the
 * first matching key), then retired keys still within their retention.
 */
export function providerJwks(keys: SigningKey[], now = Date.now()): { keys: JWK[] } {
  const active = keys.filter((k) => k.retiredAt === undefined).sort((a, b) => b.createdAt - a.createdAt);
  const retired = keys
    .filter((k) => k.retiredAt !== undefined && now - k.retiredAt < RETIRED_KEY_RETENTION_MS)
    .sort((a, b) => (b.retiredAt ?? 0) - (a.retiredAt ?? 0));
  return { keys: [...active, ...retired].map((k) => k.jwk) };
}

/** A fingerprint of the key set, so processes can notice a rotation made elsewhere. */
export function keySetVersion(keys: SigningKey[]): string {
  return keys.map((k) => `${k.kid}:${k.retiredAt ?? ''}`).join(',');
}

async function ensureSecret(store: Store, key: string, make: () => string): Promise<string> {
  const existing = await store.get(key);
  if (existing !== undefined) return existing;
  const value = make();
  if (await store.setIfAbsent(key, value)) return value;
  const winner = await store.get(key);
  if (winner === undefined) throw new Error(`${key} vanished while being created`);
  return winner;
}

/** Keys that sign oidc-provider's cookies: from COOKIE_KEYS, else generated once and stored. */
export async function ensureCookieKeys(store: Store, configured?: string[]): Promise<string[]> {
  if (configured && configured.length > 0) return configured;
  return JSON.parse(await ensureSecret(store, COOKIE_KEYS, () => JSON.stringify([randomBytes(32).toString('base64url')])));
}

/** The secret that derives pairwise subject identifiers (stable per sector, secret to clients). */
export function ensurePairwiseSalt(store: Store): Promise<string> {
  return ensureSecret(store, PAIRWISE_SALT, () => randomBytes(32).toString('base64url'));
}
