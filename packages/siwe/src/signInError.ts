/**
 * The shape of every sign-in failure, whatever the chain: a stable `type` (callers switch on
 * it, never on message text), the message `field` it is about, the 1-based `line` for parse
 * errors, and structured `expected` / `received` details. `SiweError` (Sign-In with Ethereum)
 * and `SiwsError` (Sign In With Solana, `@signet/siws`) extend it, so a verifier that takes
 * both kinds can catch `SignInError` once.
 */
export type SignInErrorOptions<F extends string = string> = {
  field?: F;
  /** 1-based line of the message text the error is about (parse errors). */
  line?: number;
  expected?: unknown;
  received?: unknown;
  cause?: unknown;
};

export class SignInError<T extends string = string, F extends string = string> extends Error {
  override readonly name: string = 'SignInError';
  readonly type: T;
  readonly field?: F;
  readonly line?: number;
  readonly expected?: unknown;
  readonly received?: unknown;

  constructor(type: T, message: string, options: SignInErrorOptions<F> = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.type = type;
    this.field = options.field;
    this.line = options.line;
    this.expected = options.expected;
    this.received = options.received;
  }
}

/**
 * A concrete error class the shared checks throw, so each profile's checks fail with its own
 * class (`SiweError`, `SiwsError`) and its own union of types.
 */
export type SignInErrorClass<T extends string, F extends string> = new (
  type: T,
  message: string,
  options?: SignInErrorOptions<F>,
) => Error;

/** A value shown in an error message: JSON-quoted, cut at 80 characters. */
export const quote = (value: string) => JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
