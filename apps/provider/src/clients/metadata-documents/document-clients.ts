/**
 * Clients identified by a Client ID Metadata Document (an `https://` URL as `client_id`):
 * oidc-provider resolves and validates the document (its `clientIdMetadataDocument` feature:
 * `client_id` equal to the URL, no shared secrets, https URIs, then its client schema, with
 * Signet's own rules through `extraClientMetadata`); Signet adds, in front of its `Client.find`:
 *
 * - the fetch, through the provider's outbound rule (outbound/public-fetch.ts: public addresses
 *   only unless ALLOW_PRIVATE_FETCH, the address checked in the connection's own lookup, no
 *   redirects, 5 KB, 2.5 s), and the document as Signet reads it (document.ts);
 * - one cache of the clients made from documents (bounded, each kept as its HTTP caching says,
 *   freshness.ts), so a sign-in by a client whose document is held reads no storage and fetches
 *   nothing; oidc-provider's own cache is set to keep nothing (it keeps properties, not clients,
 *   and would rebuild and re-validate the client, and fetch its sector_identifier_uri, on every find);
 * - a cache of refusals, kept as long, so a bad or unreachable document costs one fetch per period
 *   (oidc-provider keeps successes only);
 * - a limit on fetches per host, whatever the path.
 *
 * Both caches are per process (each replica fetches for itself) and bounded in entries: a burst of
 * new documents replaces older entries and cannot grow memory beyond the bound.
 */
import { createRateLimiter, type RateLimiter } from '@signet/ratelimit';
import { errors, type Provider } from 'oidc-provider';
import { contentTypeOf, fetchPublic } from '../../outbound/public-fetch.ts';
import { BoundedCache } from './bounded-cache.ts';
import { asSignetReadsIt, FETCH_TIMEOUT_MS, isDocumentClientId, MAX_DOCUMENT_BYTES } from './document.ts';
import { freshnessSeconds, MIN_SECONDS } from './freshness.ts';

/** Clients made from documents held per process (each a few kilobytes). */
export const HELD_CLIENTS = 100;
/** Refusals held per process (a URL and a sentence each). */
export const HELD_REFUSALS = 1000;
/** Document fetches per host and minute, per process. */
export const FETCHES_PER_HOST = 10;

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
type ClientClass = { find(id: unknown): Promise<unknown> };
type Logger = { info(fields: object, message: string): void };

export type DocumentClientsOptions = { allowPrivate: boolean; logger?: Logger; now?: () => number };

export class DocumentClients {
  /** oidc-provider's `features.clientIdMetadataDocument` (its cache off: this class keeps clients). */
  readonly feature = { enabled: true, ack: 'draft-02', cacheDuration: { min: 0, max: 0 } };
  #held = new BoundedCache<object>(HELD_CLIENTS);
  readonly #refused = new BoundedCache<Refusal>(HELD_REFUSALS);
  /** How long each document's latest answer may be kept, recorded as it arrives. */
  readonly #freshness = new BoundedCache<number>(HELD_REFUSALS);
  /** Documents being resolved now: the only URLs the fetch below takes as documents. */
  readonly #resolving = new Map<string, number>();
  readonly #perHost: RateLimiter;
  readonly #now: () => number;

  constructor(readonly options: DocumentClientsOptions) {
    this.#now = options.now ?? Date.now;
    this.#perHost = createRateLimiter({ limit: FETCHES_PER_HOST, windowSeconds: 60, now: this.#now });
  }

  /** oidc-provider's `fetch`: a document being resolved goes through fetchPublic, anything else to `other`. */
  fetchThrough(other: Fetch): Fetch {
    return (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      return this.#resolving.has(url) ? this.#fetchDocument(url, init?.signal ?? undefined) : other(input, init);
    };
  }

  /** Puts the resolution above in front of `provider`'s Client.find (a new provider starts with no clients held). */
  install(provider: Provider, staticIds: ReadonlySet<string>): void {
    this.#held = new BoundedCache<object>(HELD_CLIENTS);
    const Client = provider.Client as unknown as ClientClass;
    const find = Client.find.bind(Client);
    Client.find = (id: unknown) => (isDocumentClientId(id) && !staticIds.has(id) ? this.#resolve(id, find) : find(id));
  }

  /** The client held for a document, without fetching (pages that must not fetch for anyone: logos). */
  peek(id: string): object | undefined {
    return this.#held.get(id, this.#now());
  }

  async #resolve(id: string, find: ClientClass['find']): Promise<unknown> {
    const now = this.#now();
    const held = this.#held.get(id, now);
    if (held) return held;
    const refused = this.#refused.get(id, now);
    if (refused) throw errorOf(refused);
    const host = URL.parse(id)?.host;
    if (host === undefined) return find(id);
    const budget = await this.#perHost(host);
    if (!budget.allowed) {
      throw new errors.InvalidClient(
        `too many client metadata documents fetched from ${host} in the last minute; try again in ${budget.retryAfter} s`,
      );
    }
    this.#resolving.set(id, (this.#resolving.get(id) ?? 0) + 1);
    try {
      const client = (await find(id)) as object | undefined;
      if (client) this.#held.set(id, client, this.#until(id));
      return client;
    } catch (error) {
      const refusal = refusalOf(id, error);
      if (refusal === undefined) throw error;
      this.#refused.set(id, refusal, this.#until(id));
      this.options.logger?.info({ client_id: id, reason: refusal.description }, 'client metadata document refused');
      throw errorOf(refusal);
    } finally {
      const count = (this.#resolving.get(id) ?? 1) - 1;
      if (count === 0) this.#resolving.delete(id);
      else this.#resolving.set(id, count);
    }
  }

  /** When what was just learnt of `id` expires: its answer's freshness, or the shortest period when none arrived. */
  #until(id: string): number {
    const now = this.#now();
    return now + (this.#freshness.get(id, now) ?? MIN_SECONDS) * 1000;
  }

  async #fetchDocument(url: string, signal: AbortSignal | undefined): Promise<Response> {
    const { contentType, body } = await fetchPublic(url, {
      allowPrivate: this.options.allowPrivate,
      maxBytes: MAX_DOCUMENT_BYTES,
      timeoutMs: FETCH_TIMEOUT_MS,
      signal,
      headers: { accept: 'application/json', 'user-agent': 'Signet client metadata fetcher' },
      accept: (response) => {
        const header = (name: string) => (response.headers[name] as string | undefined) ?? undefined;
        const seconds = freshnessSeconds({ cacheControl: header('cache-control'), expires: header('expires') }, this.#now());
        this.#freshness.set(url, seconds, this.#now() + 60_000);
        const status = response.statusCode ?? 0;
        return status === 200 ? undefined : `answered ${status} ${contentTypeOf(response) || ''}`.trimEnd();
      },
    });
    return new Response(new Uint8Array(asSignetReadsIt(body)), { status: 200, headers: { 'content-type': contentType } });
  }
}

/** Why a document was refused: oidc-provider's error, re-made for each request that asks again. */
type Refusal = { metadata: boolean; description: string };

const errorOf = ({ metadata, description }: Refusal): Error =>
  metadata ? new errors.InvalidClientMetadata(description) : new errors.InvalidClient(description);

/** The error oidc-provider's resolution ended with, in words naming the document; undefined for anything else (storage). */
function refusalOf(id: string, error: unknown): Refusal | undefined {
  if (!(error instanceof errors.OIDCProviderError)) return undefined;
  const { error_description: description, error_detail: detail } = error as { error_description?: string; error_detail?: string };
  if (error instanceof errors.InvalidClientMetadata) {
    const what = (description ?? 'is not valid').replace(/^client_id metadata document /, '');
    return { metadata: true, description: `client_id metadata document ${id}: ${what}` };
  }
  const cause = (error as { cause?: unknown }).cause;
  const why =
    cause instanceof SyntaxError
      ? 'it is not JSON'
      : cause instanceof Error
        ? cause.message
        : (detail ?? description ?? 'unknown');
  return { metadata: false, description: `client_id metadata document ${id} could not be used: ${why}` };
}
