/**
 * The issuer's public keys, kept in memory so that checking a token costs one signature
 * verification and no I/O: found through discovery, fetched once, imported once per key (jose's
 * local key set caches each imported key), fetched again in the background when older than
 * `keysMaxAgeSeconds` (the old keys keep working meanwhile), and at once for a `kid` the set does
 * not hold (a rotated key). Fetches are bounded: one at a time, and at most one per
 * `refetchCooldownSeconds` for unknown keys or after a failure, so tokens with made-up key ids
 * cannot make this resource hammer the issuer.
 */
import { type CryptoKey, createLocalJWKSet, type JWSHeaderParameters } from 'jose';
import { discoverIssuer, type IssuerMetadata } from './discoverIssuer.ts';
import { ResourceServerError } from './errors.ts';
import { fetchJson } from './fetchJson.ts';
import type { ResolvedOptions } from './options.ts';

type LocalKeys = ReturnType<typeof createLocalJWKSet>;

export type IssuerKeys = {
  /** The key a token's header names (its `alg` and `kid`), imported for that algorithm. */
  getKey(header: JWSHeaderParameters): Promise<CryptoKey>;
  /** Fetches discovery and the key set now (single flight); rejects with a ResourceServerError. */
  refresh(): Promise<void>;
  /** Counts the key sets fetched: what was verified under an earlier one is checked again. */
  readonly generation: number;
};

function localKeys(jwks: unknown): LocalKeys {
  try {
    return createLocalJWKSet(jwks as Parameters<typeof createLocalJWKSet>[0]);
  } catch (cause) {
    throw new ResourceServerError('INVALID_ISSUER_METADATA', "the issuer's jwks_uri does not hold a JSON Web Key Set", { cause });
  }
}

export function createIssuerKeys(options: ResolvedOptions): IssuerKeys {
  const { now, refetchCooldownMs, keysMaxAgeMs } = options;
  const fetchOptions = { fetch: options.fetch, timeoutMs: options.timeoutMs };
  let keys: LocalKeys | undefined;
  let metadata: IssuerMetadata | undefined;
  let fetchedAt = Number.NEGATIVE_INFINITY;
  let attemptedAt = Number.NEGATIVE_INFINITY;
  let failure: ResourceServerError | undefined;
  let pending: Promise<void> | undefined;
  let generation = 0;
  /** The key each (alg, kid) selected, so a token's check skips the set's search. */
  let selected = new Map<string, ReturnType<LocalKeys>>();

  async function load() {
    metadata ??= await discoverIssuer(options.issuer, fetchOptions);
    keys = localKeys(await fetchJson(metadata.jwks_uri, { ...fetchOptions, what: 'key set (jwks_uri)' }));
    selected = new Map();
    generation++;
    fetchedAt = now();
  }

  function refresh(): Promise<void> {
    pending ??= (async () => {
      attemptedAt = now();
      try {
        await load();
        failure = undefined;
      } catch (error) {
        // Discover again next time: the key set may have moved.
        metadata = undefined;
        failure = error as ResourceServerError;
        throw error;
      } finally {
        pending = undefined;
      }
    })();
    return pending;
  }

  const mayFetch = () => now() - attemptedAt >= refetchCooldownMs;

  async function current(): Promise<LocalKeys> {
    if (keys) {
      if (now() - fetchedAt > keysMaxAgeMs && !pending && mayFetch()) refresh().catch(() => {});
      return keys;
    }
    if (!pending && !mayFetch() && failure) {
      throw new ResourceServerError(failure.code, failure.message, { cause: failure.cause });
    }
    await refresh();
    return keys as unknown as LocalKeys;
  }

  function select(set: LocalKeys, header: JWSHeaderParameters): Promise<CryptoKey> {
    if (typeof header.kid !== 'string') return set(header);
    const id = `${header.alg} ${header.kid}`;
    const memo = selected;
    const known = memo.get(id);
    if (known) return known;
    const found = set(header);
    // Remembered once found; a failed search is forgotten (a rotated key may arrive).
    if (memo.size < 64) {
      memo.set(id, found);
      found.catch(() => memo.get(id) === found && memo.delete(id));
    }
    return found;
  }

  async function getKey(header: JWSHeaderParameters) {
    const set = await current();
    try {
      return await select(set, header);
    } catch (error) {
      if ((error as { code?: string }).code !== 'ERR_JWKS_NO_MATCHING_KEY') throw error;
      // A key the set does not hold: wait for a fetch under way, or start one unless one ran lately.
      if (pending) await pending.catch(() => {});
      else if (mayFetch()) await refresh();
      else throw error;
      return select(keys as LocalKeys, header);
    }
  }

  return {
    getKey,
    refresh,
    get generation() {
      return generation;
    },
  };
}
