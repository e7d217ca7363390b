/**
 * One bounded GET of a JSON document from the issuer (its discovery document, its key set): a
 * time limit, a size limit, no redirects followed (an issuer's own URLs answer directly; a
 * redirect could lead anywhere), 200 only. Every failure is ISSUER_UNAVAILABLE with words.
 */
import { ResourceServerError } from './errors.ts';

/** A discovery document or key set is a few KB; this is far more than any needs. */
export const MAX_DOCUMENT_BYTES = 256 * 1024;

export type FetchJsonOptions = { fetch: typeof fetch; timeoutMs: number; what: string };

async function readBounded(response: Response, what: string): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > MAX_DOCUMENT_BYTES) throw tooLarge(what);
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > MAX_DOCUMENT_BYTES) throw tooLarge(what);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const tooLarge = (what: string) =>
  new ResourceServerError('ISSUER_UNAVAILABLE', `the issuer's ${what} is larger than ${MAX_DOCUMENT_BYTES} bytes`);

export async function fetchJson(url: string, { fetch, timeoutMs, what }: FetchJsonOptions): Promise<unknown> {
  let response: Response;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    response = await fetch(url, { redirect: 'manual', signal, headers: { accept: 'application/json' } });
  } catch (cause) {
    const timedOut = (cause as Error)?.name === 'TimeoutError';
    throw new ResourceServerError(
      'ISSUER_UNAVAILABLE',
      timedOut ? `the issuer's ${what} did not answer within ${timeoutMs} ms` : `the issuer's ${what} could not be fetched`,
      { cause },
    );
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => {});
    throw new ResourceServerError('ISSUER_UNAVAILABLE', `the issuer's ${what} answered HTTP ${response.status}, not 200`);
  }
  let text: string;
  try {
    text = await readBounded(response, what);
  } catch (cause) {
    if (cause instanceof ResourceServerError) throw cause;
    throw new ResourceServerError('ISSUER_UNAVAILABLE', `the issuer's ${what} could not be read`, { cause });
  }
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new ResourceServerError('INVALID_ISSUER_METADATA', `the issuer's ${what} is not JSON`, { cause });
  }
}
