/**
 * How a passkey sign-in is described to relying parties: the ID token's `amr` (RFC 8176,
 * Authentication Method Reference Values), from what the authenticator reported.
 *
 * - `pop`: proof of possession of a key (always: a passkey is a key pair);
 * - `hwk` when the key cannot leave its authenticator (a single-device credential: a security key,
 *   a device-bound passkey), `swk` when it may be synced (backup eligible: a password manager's or
 *   platform's synced passkey, whose key exists in software across the person's devices);
 * - `user`: a user presence test (always: Signet requires the UP flag);
 * - `mfa` when the authenticator verified the person too (the UV flag: a PIN, fingerprint or face
 *   unlocked the key, so the sign-in took something they have and something they know or are).
 *
 * A wallet's sign-in names no `amr`.
 */
export type PasskeyUse = { deviceType: 'singleDevice' | 'multiDevice'; userVerified: boolean };

export function amrOf(use: PasskeyUse): string[] {
  return ['pop', use.deviceType === 'singleDevice' ? 'hwk' : 'swk', 'user', ...(use.userVerified ? ['mfa'] : [])];
}
