/** How long each thing a sign-in produces lives, in seconds (oidc-provider's TTLs; the grant's sign-in record lives as long as the grant). */
export const TTL = {
  AuthorizationCode: 60,
  AccessToken: 3600,
  IdToken: 3600,
  Session: 24 * 3600,
  Grant: 24 * 3600,
  Interaction: 10 * 60,
  /** A device code and its user code (RFC 8628): the person has this long to enter the code and sign. */
  DeviceCode: 10 * 60,
  RefreshToken: 24 * 3600,
} as const;
