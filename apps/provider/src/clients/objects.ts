/**
 * oidc-provider's `Client.find` for a registered client reads its stored record, parses it, and
 * then serializes and hashes it again to pick the client object it made for those properties
 * (or to make one). A sign-in finds its client six times (authorization, the interaction's two
 * requests, resume, token, userinfo), so that is six parses, serializations and SHA-256s of a
 * kilobyte or more of metadata.
 *
 * Here the record is still read on every find, from the same storage, so a client updated or
 * deleted (by its registration access token, the CLI, expiry, or another replica) is seen at the
 * very next find, exactly as before. Only when the stored text is the very text the object was
 * made from is that object answered directly: oidc-provider would have answered the same one
 * (its objects are keyed by the properties, which the text fixes). Anything else — an id with no
 * record, a changed record, a client from CLIENTS_FILE — goes to oidc-provider's own find.
 */
import type { Provider } from 'oidc-provider';
import { recordKey } from '../storage/adapter.ts';
import type { Store } from '../storage/index.ts';

/** How many clients' objects are held (beyond it, the oldest is dropped and found the long way). */
const HELD = 1000;

type ClientClass = { find(id: unknown): Promise<unknown> };

export function reuseClientObjects(provider: Provider, store: Store, staticIds: ReadonlySet<string>): void {
  const Client = provider.Client as unknown as ClientClass;
  const find = Client.find.bind(Client);
  const held = new Map<string, { text: string; client: unknown }>();
  Client.find = async function findClient(id: unknown) {
    if (typeof id !== 'string' || id.length === 0 || staticIds.has(id)) return find(id);
    const key = recordKey('Client', id);
    const text = await store.get(key);
    const known = held.get(id);
    if (text !== undefined && known?.text === text) return known.client;
    held.delete(id);
    const client = await find(id);
    // Held only if the record did not change while oidc-provider read it: the object is then
    // the one made from this very text.
    if (client && text !== undefined && (await store.get(key)) === text) {
      if (held.size >= HELD) held.delete(held.keys().next().value as string);
      held.set(id, { text, client });
    }
    return client;
  };
}
