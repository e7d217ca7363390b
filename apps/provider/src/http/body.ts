/** A POST body as JSON or a browser's form post, within a byte limit; anything else is a clear 4xx. */
import parseBody from 'co-body';
import type { Context } from 'koa';
import { HttpError } from '../errors.ts';
import { bodyIs } from './negotiation.ts';

export type ReadBody = { body: unknown; isForm: boolean };

export async function readJsonOrForm(ctx: Context, limit: number): Promise<ReadBody> {
  const isJson = bodyIs(ctx, 'application/json');
  const isForm = !isJson && bodyIs(ctx, 'application/x-www-form-urlencoded');
  if (!isJson && !isForm) {
    throw new HttpError('UNSUPPORTED_MEDIA_TYPE', 'send application/json or application/x-www-form-urlencoded');
  }
  try {
    const body: unknown = isJson ? await parseBody.json(ctx, { limit, strict: true }) : await parseBody.form(ctx, { limit });
    return { body, isForm };
  } catch (error) {
    if ((error as { status?: number }).status === 413) {
      throw new HttpError('PAYLOAD_TOO_LARGE', `the body is larger than ${limit} bytes`);
    }
    throw new HttpError('INVALID_REQUEST', `the body could not be parsed (${(error as Error).message})`);
  }
}
