/**
 * CCIP-read (EIP-3668) gateway calls for one name lookup. Off-chain names (cb.id, *.base.eth,
 * most subnames) and every L2's primary names resolve only through gateways a resolver names,
 * so the URLs are chosen by whoever owns a name: each call goes through the one SSRF-safe
 * fetch (outbound.ts) with these limits:
 *  - https only, public addresses only (http, loopback and private only under ALLOW_PRIVATE_FETCH);
 *  - any 3xx answer is a failed call (redirects are not followed), whatever the switch;
 *  - at most 256 KiB read per answer (bytes that arrive, not the announced length);
 *  - at most MAX_GATEWAY_CALLS calls per lookup, whatever the resolvers ask (endless
 *    OffchainLookup chains, many URLs);
 *  - the lookup's own deadline and abort signal (one ENS_TIMEOUT_MS for everything).
 * The Universal Resolver's batch gateway is viem's local one (`x-batch-gateway:true`): viem
 * answers it in process and calls this function once per resolver request in the batch; no
 * remote batch gateway is ever called.
 */
import { type CcipRequestParameters, type Hex, isHex } from 'viem';
import { fetchPublic, PublicFetchError } from '../../outbound/public-fetch.ts';

/** Gateway calls one name lookup may make, across every source, forward check and record. */
export const MAX_GATEWAY_CALLS = 4;
/** The most bytes read from one gateway answer. */
export const MAX_GATEWAY_ANSWER_BYTES = 256 * 1024;

export type GatewayOptions = {
  allowPrivate: boolean;
  /** When the whole lookup ends (ms since the epoch). */
  deadline: number;
  signal: AbortSignal;
};

/** viem's `ccipRead.request` for one lookup: tries each URL in order (EIP-3668), within the limits above. */
export function gatewayRequester(options: GatewayOptions) {
  let calls = 0;
  return async ({ data, sender, urls }: CcipRequestParameters): Promise<Hex> => {
    let failure: Error = new Error('the resolver named no gateway');
    for (const url of urls) {
      if (calls >= MAX_GATEWAY_CALLS) throw new Error(`more than ${MAX_GATEWAY_CALLS} gateway calls in one lookup`);
      calls++;
      const get = url.includes('{data}');
      try {
        const { contentType, body } = await fetchPublic(url.replace('{sender}', sender.toLowerCase()).replace('{data}', data), {
          allowPrivate: options.allowPrivate,
          method: get ? 'GET' : 'POST',
          headers: get ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
          body: get ? undefined : JSON.stringify({ data, sender }),
          maxBytes: MAX_GATEWAY_ANSWER_BYTES,
          timeoutMs: Math.max(1, options.deadline - Date.now()),
          signal: options.signal,
          accept: (response) =>
            response.statusCode === 200 ? undefined : `gateway answered ${response.statusCode} ${response.statusMessage ?? ''}`,
        });
        const text = body.toString('utf8');
        const result = contentType === 'application/json' ? (JSON.parse(text) as { data?: unknown }).data : text.trim();
        if (!isHex(result)) throw new Error('gateway answer is not hex data');
        return result;
      } catch (error) {
        failure = error as Error;
        // EIP-3668: a 4xx answer is the gateway's final word; anything else tries the next URL.
        if (error instanceof PublicFetchError && error.status !== undefined && error.status >= 400 && error.status < 500) break;
      }
    }
    throw failure;
  };
}
