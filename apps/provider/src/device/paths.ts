/**
 * Where a device sign-in happens (RFC 8628): the page that takes the user code is the profile's
 * `code_verification` route (`/device` on both profiles), and it is also what a device sign-in's
 * message names as its resource, in place of a redirect URI: the signature is consent for a
 * device, not for a website.
 */
import type { Config } from '../config.ts';
import { PROFILES } from '../deployment/profiles.ts';

/** The verification URI: `<issuer origin>/device` (ISSUER is an origin), as the device authorization response names it. */
export const deviceVerificationUri = (config: Pick<Config, 'origin' | 'profile'>) =>
  `${config.origin}${PROFILES[config.profile].routes.code_verification}`;

/** Signet's "you can return to your device" page, where a finished device sign-in lands. */
export const DEVICE_SUCCESS_PATH = '/device/success';

/** Whether an interaction (oidc-provider's) is a device sign-in: it carries its device code's id. */
export const isDeviceInteraction = (interaction: { deviceCode?: unknown }) =>
  typeof interaction.deviceCode === 'string' && interaction.deviceCode !== '';

/**
 * A user code as oidc-provider compares it (its helpers/user_codes.js `normalize`, not exported):
 * upper case, without anything but letters, digits and `_`. `bcdf-ghjk`, `BCDF GHJK` and
 * `BCDFGHJK` are one code.
 */
export const normalizeUserCode = (input: string) => input.replace(/[a-z]/g, (c) => c.toUpperCase()).replace(/\W/g, '');
