/**
 * oidc-provider's own fetches (a client's `jwks_uri` and `sector_identifier_uri` documents, back-channel
 * logout tokens) go to public addresses only: Signet's one rule (public-fetch.ts) before the
 * request, then oidc-provider's own dispatcher, which checks the address it actually connected to.
 * ALLOW_PRIVATE_FETCH lifts both for development. (Client ID Metadata Documents go through
 * `fetchPublic` itself: clients/metadata-documents/.)
 */
import { publicUrlProblem } from './public-fetch.ts';

export type LibraryFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export function libraryFetch(allowPrivate: boolean): LibraryFetch {
  return async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (allowPrivate) {
      delete (init as { dispatcher?: unknown } | undefined)?.dispatcher;
    } else {
      const problem = await publicUrlProblem(url);
      if (problem) throw new Error(`refusing to fetch ${url}: ${problem}`);
    }
    return globalThis.fetch(input, init);
  };
}
