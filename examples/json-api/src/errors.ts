import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** hono's HTTPException, plus the optional `details` the spec's error envelope carries. */
export class HttpError extends HTTPException {
  override readonly name = 'HttpError';
  readonly details?: unknown;
  constructor(status: number, message: string, options: { cause?: unknown; details?: unknown } = {}) {
    super(status as ContentfulStatusCode, { message, cause: options.cause });
    this.details = options.details;
  }
}
