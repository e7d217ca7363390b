/** An error that carries its HTTP status (and optional details) to the global handler. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  readonly details?: unknown;
  constructor(
    readonly status: number,
    message: string,
    options: { cause?: unknown; details?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.details = options.details;
  }
}
