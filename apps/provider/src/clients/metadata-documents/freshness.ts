/**
 * How long an answer for a metadata document is kept: what its HTTP caching headers say
 * (`Cache-Control: max-age`, else `Expires`; `no-store` and `no-cache` mean as short as
 * allowed), between 30 seconds and 24 hours, 30 seconds when they say nothing. The same rule for
 * a refusal (a 404, a document that is not valid), so a bad document costs one fetch per period.
 */
export const MIN_SECONDS = 30;
export const MAX_SECONDS = 24 * 3600;

export type CachingHeaders = { cacheControl?: string; expires?: string };

export function freshnessSeconds({ cacheControl, expires }: CachingHeaders, now: number): number {
  let seconds: number | undefined;
  if (cacheControl !== undefined) {
    if (/(?:^|,)\s*(no-store|no-cache)\b/i.test(cacheControl)) return MIN_SECONDS;
    const maxAge = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/i.exec(cacheControl);
    if (maxAge) seconds = Number(maxAge[1]);
  }
  if (seconds === undefined && expires !== undefined) {
    const at = Date.parse(expires);
    if (!Number.isNaN(at)) seconds = Math.floor((at - now) / 1000);
  }
  return Math.max(MIN_SECONDS, Math.min(MAX_SECONDS, seconds ?? MIN_SECONDS));
}
