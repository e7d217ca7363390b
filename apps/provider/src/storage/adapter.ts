import { errors } from 'oidc-provider';
import type { Reference, Store } from './store.ts';

type Payload = Record<string, unknown> & {
  grantId?: string;
  userCode?: string;
  uid?: string;
  exp?: number;
  consumed?: number;
};

/**
 * Extra time a record is kept after it expires, so an expired interaction can be told from an
 * unknown one ("this sign-in expired, go back to <client>"), and an expired device code from an
 * unknown one (the polling device gets `expired_token`, RFC 8628 §3.5, and the person "expired"):
 * 10 minutes, no longer (both are created by unauthenticated requests, so what they cost in
 * storage stays bounded).
 */
const RETENTION_AFTER_EXPIRY: Record<string, number> = { Interaction: 600, DeviceCode: 600 };

const epoch = () => Math.floor(Date.now() / 1000);

/**
 * oidc-provider's adapter interface over a Store. Layout (before the deployment prefix):
 *   oidc:<Model>:<id>            the payload (JSON), with the model's TTL
 *   oidc:<Model>:<id>:consumed   one-time marker, set with SET NX: one consumer wins (kept
 *                                until it expires, even when the grant is revoked)
 *   oidc:grant:<grantId>         set of the keys issued under a grant (for revocation)
 *   oidc:<Model>:uid:<uid>       Session uid → id;  oidc:<Model>:userCode:<code> → id
 */
/**
 * The ids of one model's records in storage (the CLI lists clients this way), without the
 * layout's other keys (consumed markers, uid and user-code lookups).
 */
export async function listModelIds(store: Store, model: string): Promise<string[]> {
  const prefix = `oidc:${model}:`;
  return (await store.keys(prefix))
    .map((key) => key.slice(prefix.length))
    .filter((id) => !id.endsWith(':consumed') && !id.startsWith('uid:') && !id.startsWith('userCode:'))
    .sort();
}

/** The models oidc-provider consumes (calls `consume` on): the only ones with a consumed marker. */
const CONSUMABLE = new Set([
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'PushedAuthorizationRequest',
  'PreAuthorizedCode',
]);

/**
 * The models oidc-provider revokes by grant (`revokeByGrantId`): only their records go into a
 * grant's index. An Interaction names the grant its session already holds for the client
 * (`grantId`) too, but revoking that grant (a logout, which oidc-provider runs before another
 * account may finish signing in) must not delete the sign-in still under way.
 */
const GRANTABLE = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'PreAuthorizedCode',
]);

/**
 * The models whose record names the grant oidc-provider reads next in the same request (a token
 * or code is checked against its grant): finding one starts reading the grant at once
 * (UnitOfWorkStore.prefetch), so it goes to the storage with the request's next read instead of
 * in a round trip of its own.
 */
const READ_WITH_GRANT = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken']);

/** A token's grant, and its session through the session's uid record (oidc-provider reads both next). */
const TOKEN_REFERENCES: readonly Reference[] = [
  { path: ['grantId'], prefix: 'oidc:Grant:' },
  { path: ['sessionUid'], prefix: 'oidc:Session:uid:', via: 'oidc:Session:' },
];
/**
 * What a model's record names that oidc-provider reads next in the same request, read with it
 * where the storage can follow references in one round trip (PostgreSQL, Redis on one server;
 * UnitOfWorkStore.getFollowing): a token or code is checked against its grant and session; an
 * interaction being resumed names the grant its consent made.
 */
const REFERENCES: Record<string, readonly Reference[]> = {
  AccessToken: TOKEN_REFERENCES,
  AuthorizationCode: TOKEN_REFERENCES,
  RefreshToken: TOKEN_REFERENCES,
  Interaction: [{ path: ['result', 'consent', 'grantId'], prefix: 'oidc:Grant:' }],
};

/** How many session uids this process remembers the session id of (findByUid), at most. */
const SESSION_IDS_HELD = 10_000;

/** Where the adapter keeps a model's record (before the deployment prefix). */
export const recordKey = (model: string, id: string) => `oidc:${model}:${id}`;

/**
 * A store that can start reading keys for the current request ahead of its need, and read what a
 * record refers to with it (unit-of-work.ts).
 */
type AdapterStore = Store & {
  prefetch?(keys: string[]): void;
  getFollowing?(keys: string[], references: readonly Reference[]): Promise<(string | undefined)[]>;
};

/** Where the adapter indexes what a grant issued (revoking the grant deletes every key in it). */
export const grantIndexKey = (grantId: string) => `oidc:grant:${grantId}`;

export type AdapterOptions = {
  /**
   * A one-time record another request consumed first (maybe on another replica): true when the
   * caller answers that request itself (a refresh token's grace, refresh/), so the grant is not
   * revoked here; otherwise it is, as for any reuse.
   */
  lostConsume?(model: string, id: string, payload: Payload): boolean;
};

/**
 * A model's record (and, for one-time models, its consumed marker) in one read, with the records
 * it names where the store reads them together; a token's grant read ahead.
 */
async function findPayload(store: AdapterStore, name: string, key: string): Promise<Payload | undefined> {
  const references = REFERENCES[name];
  const read = async (keys: string[]) =>
    references && store.getFollowing
      ? store.getFollowing(keys, references)
      : keys.length === 1
        ? [await store.get(keys[0] as string)]
        : store.getMany(keys);
  // Only one-time models have a consumed marker: the others cost one read, not two.
  const consumable = CONSUMABLE.has(name);
  const [value, consumed] = await read(consumable ? [key, `${key}:consumed`] : [key]);
  if (value === undefined) return undefined;
  const payload = JSON.parse(value) as Payload;
  if (consumable && consumed !== undefined) payload.consumed = Number(consumed);
  if (payload.grantId && READ_WITH_GRANT.has(name)) store.prefetch?.([`oidc:Grant:${payload.grantId}`]);
  return payload;
}

export function createOidcAdapter(store: AdapterStore, options: AdapterOptions = {}) {
  /**
   * Session uid → the session id this process stored it under, until the uid's record expires
   * in storage. oidc-provider finds a session by uid on every token and userinfo request (a token
   * that expires with its session), and a sign-in's token request usually reaches the replica
   * that stored its session. Only a hint: the session found under it must still be there and
   * name the same uid, or the uid is read from storage as before. A session is given a new id
   * (a new sign-in in the same browser) by deleting the old record with the request that re-points
   * the uid, and ended by deleting its record, so a remembered id whose session still exists is
   * the uid's current one.
   */
  const sessionIds = new Map<string, { id: string; until: number }>();
  const rememberSession = (uid: string, id: string, ttlSeconds: number | undefined) => {
    if (ttlSeconds === undefined) return;
    sessionIds.delete(uid);
    if (sessionIds.size >= SESSION_IDS_HELD) sessionIds.delete(sessionIds.keys().next().value as string);
    sessionIds.set(uid, { id, until: Date.now() + ttlSeconds * 1000 });
  };

  return class SignetAdapter {
    readonly name: string;

    constructor(name: string) {
      this.name = name;
    }

    key(id: string) {
      return recordKey(this.name, id);
    }

    async upsert(id: string, payload: Payload, expiresIn?: number) {
      const key = this.key(id);
      const ttl = expiresIn === undefined ? undefined : expiresIn + (RETENTION_AFTER_EXPIRY[this.name] ?? 0);
      // Before the write leaves: the uid's record in storage outlives what is remembered here.
      if (payload.uid && this.name === 'Session') rememberSession(payload.uid, id, ttl);
      await store.set(key, JSON.stringify(payload), ttl);
      if (payload.grantId && GRANTABLE.has(this.name)) await store.addToSet(grantIndexKey(payload.grantId), key, ttl);
      if (payload.userCode) await store.set(`oidc:${this.name}:userCode:${payload.userCode}`, id, ttl);
      if (payload.uid && this.name === 'Session') await store.set(`oidc:${this.name}:uid:${payload.uid}`, id, ttl);
    }

    async find(id: string): Promise<Payload | undefined> {
      return findPayload(store, this.name, this.key(id));
    }

    async findByUid(uid: string) {
      const held = this.name === 'Session' ? sessionIds.get(uid) : undefined;
      if (held !== undefined) {
        if (held.until > Date.now()) {
          const session = await this.find(held.id);
          if (session?.uid === uid) return session;
        }
        sessionIds.delete(uid);
      }
      const id = await store.get(`oidc:${this.name}:uid:${uid}`);
      return id === undefined ? undefined : this.find(id);
    }

    async findByUserCode(userCode: string) {
      const id = await store.get(`oidc:${this.name}:userCode:${userCode}`);
      return id === undefined ? undefined : this.find(id);
    }

    async consume(id: string) {
      const key = this.key(id);
      const payload = await this.find(id);
      const label = this.name === 'AuthorizationCode' ? 'authorization code' : this.name;
      // Gone between oidc-provider's find and this consume: revoked by a concurrent reuse.
      if (!payload) throw new errors.InvalidGrant(`${label} already consumed`);
      const ttl = payload.exp === undefined ? undefined : Math.max(1, payload.exp - epoch() + 60);
      const won = await store.setIfAbsent(`${key}:consumed`, String(epoch()), ttl);
      if (!won) {
        // Another request (maybe on another replica) consumed it first: treat this one as the
        // reuse it is, and revoke everything the grant issued, as oidc-provider does on reuse.
        if (payload.grantId && !options.lostConsume?.(this.name, id, payload)) await this.revokeByGrantId(payload.grantId);
        throw new errors.InvalidGrant(`${label} already consumed`);
      }
    }

    async destroy(id: string) {
      const key = this.key(id);
      // Only one-time models have a consumed marker to delete with the record.
      if (CONSUMABLE.has(this.name)) await store.delete(key, `${key}:consumed`);
      else await store.delete(key);
    }

    async revokeByGrantId(grantId: string) {
      const index = grantIndexKey(grantId);
      const keys = await store.members(index);
      // The one-time markers stay (until they expire): a request that read a code just before
      // this revocation must still lose its consume.
      await store.delete(...keys, index, `oidc:Grant:${grantId}`);
    }
  };
}
