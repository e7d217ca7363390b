/** Reading a signed message from a POST to the interaction: JSON or a browser's form post. */
import { MAX_SIWE_MESSAGE_LENGTH } from '@signet/siwe/offline';
import type { Context } from 'koa';
import { HttpError } from '../errors.ts';
import { readJsonOrForm } from '../http/body.ts';

export async function readSignedMessage(ctx: Context, limit: number): Promise<{ message: string; signature: string }> {
  const { body, isForm } = await readJsonOrForm(ctx, limit);
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
