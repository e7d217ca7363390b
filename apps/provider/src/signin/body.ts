/** Reading a signed message from a POST to the interaction: JSON or a browser's form post. */
import { MAX_SIWE_MESSAGE_LENGTH } from '@signet/siwe';
import parseBody from 'co-body';
import type { Context } from 'koa';
import { HttpError } from '../errors.ts';
import { bodyIs } from '../http/negotiation.ts';

export async function readSignedMessage(ctx: Context, limit: number): Promise<{ message: string; signature: string }> {
  const isJson = bodyIs(ctx, 'application/json');
  const isForm = !isJson && bodyIs(ctx, 'application/x-www-form-urlencoded');
  if (!isJson && !isForm) {
    throw new HttpError('UNSUPPORTED_MEDIA_TYPE', 'send application/json or application/x-www-form-urlencoded');
  }
  let body: unknown;
  try {
    body = isJson ? await parseBody.json(ctx, { limit, strict: true }) : await parseBody.form(ctx, { limit });
  } catch (error) {
    if ((error as { status?: number }).status === 413) {
      throw new HttpError('PAYLOAD_TOO_LARGE', `the body is larger than ${limit} bytes`);
    }
    throw new HttpError('INVALID_REQUEST', `the body could not be parsed (${(error as Error).message})`);
  }
  const fields = (body ?? {}) as { message?: unknown; signature?: unknown };
  const { signature } = fields;
  // Browsers submit form fields with CRLF line breaks; an EIP-4361 message (which never holds a
  // CR) was signed with LF, so a form post's CRLF is turned back into LF.
  const message = isForm && typeof fields.message === 'string' ? fields.message.replace(/\r\n/g, '\n') : fields.message;
  if (typeof message !== 'string' || message === '' || typeof signature !== 'string' || signature === '') {
    throw new HttpError('INVALID_REQUEST', '"message" and "signature" are required strings');
  }
  if (message.length > MAX_SIWE_MESSAGE_LENGTH) {
    throw new HttpError('PAYLOAD_TOO_LARGE', `the message is longer than ${MAX_SIWE_MESSAGE_LENGTH} characters`);
  }
  return { message, signature };
}
