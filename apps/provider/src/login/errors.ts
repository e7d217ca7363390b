/**
 * Why a program's sign-in did not get tokens: a code (the provider's own, e.g.
 * `ACCESS_CONDITION_NOT_MET`, an OAuth one, e.g. `invalid_client`, or one of this client's, e.g.
 * `INVALID_KEY`) and words for a person. Never a key, a token or a secret in either.
 */
export class LoginError extends Error {
  override readonly name = 'LoginError';
  constructor(
    /** The provider's error code, the OAuth `error`, or INVALID_KEY / UNEXPECTED_ANSWER / NAMESPACE_NOT_OFFERED / INSECURE_ISSUER / DOMAIN_MISMATCH / URI_MISMATCH / RESOURCES_MISMATCH. */
    readonly code: string,
    message: string,
    /** The HTTP status the provider answered with, when it answered. */
    readonly status?: number,
  ) {
    super(message);
  }
}
