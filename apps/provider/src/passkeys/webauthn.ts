/**
 * WebAuthn through `@simplewebauthn/server` (no CBOR or COSE of Signet's own): the relying party
 * (the issuer's host name and origin), the options a browser is given, the checks of what it
 * answers, and the answer read from a request (the browser's `PublicKeyCredential.toJSON()`).
 * The library is loaded at the first passkey request: a provider whose people use none never
 * holds it (idle memory).
 */
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
  VerifiedAuthenticationResponse,
  VerifiedRegistrationResponse,
} from '@simplewebauthn/server';
import type { Context } from 'koa';
import { type Passkey, passkeyRpId } from '../accounts/passkeys.ts';
import type { Config } from '../config.ts';
import { HttpError } from '../errors.ts';
import { readJsonOrForm } from '../http/body.ts';

/** EdDSA, ES256, RS256: the same on every replica, whatever its Node version supports besides. */
const ALGORITHMS = [-8, -7, -257];
/** How long the browser may take (the challenge itself lives as long as its interaction or 10 minutes). */
const TIMEOUT_MS = 5 * 60 * 1000;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** A credential id is at most 1023 bytes (WebAuthn): 1364 base64url characters. */
const MAX_ID_LENGTH = 1364;
const MAX_NAME_LENGTH = 64;

/** `@simplewebauthn/server`, loaded once, when first needed. */
let library: Promise<typeof import('@simplewebauthn/server')> | undefined;
const webauthn = () => {
  library ??= import('@simplewebauthn/server');
  return library;
};

/** base64url text as the bytes the library takes. */
const bytesOf = (base64url: string) => new Uint8Array(Buffer.from(base64url, 'base64url'));

export type RelyingParty = { id: string; origin: string; name: string };

/** The relying party, or 404 PASSKEYS_UNAVAILABLE where passkeys are off. */
export function relyingParty(config: Pick<Config, 'origin' | 'domain' | 'accountMaxPasskeys'>): RelyingParty {
  const id = passkeyRpId(config);
  if (!id) {
    throw new HttpError(
      'PASSKEYS_UNAVAILABLE',
      config.accountMaxPasskeys === 0
        ? 'passkeys are off on this provider'
        : 'passkeys are off on this provider: its address is an IP address, and passkeys need a domain name',
    );
  }
  return { id, origin: config.origin, name: config.domain };
}

export async function registrationOptions(
  rp: RelyingParty,
  user: { handle: string; name: string },
  exclude: readonly Pick<Passkey, 'id' | 'transports'>[],
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const { generateRegistrationOptions } = await webauthn();
  return generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userID: bytesOf(user.handle),
    userName: user.name,
    userDisplayName: user.name,
    timeout: TIMEOUT_MS,
    attestationType: 'none',
    // The account's own passkeys: an authenticator that holds one makes no second.
    excludeCredentials: exclude.map((passkey) => ({ id: passkey.id, transports: passkey.transports })),
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' },
    supportedAlgorithmIDs: ALGORITHMS,
  });
}

/** Discoverable credentials only: no list of credential ids ever leaves (nobody learns whose they are). */
export async function authenticationOptions(rp: RelyingParty): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const { generateAuthenticationOptions } = await webauthn();
  const options = await generateAuthenticationOptions({ rpID: rp.id, userVerification: 'preferred', timeout: TIMEOUT_MS });
  const { allowCredentials: _none, ...rest } = options;
  return rest;
}

const failed = (what: string, error: unknown) =>
  new HttpError('PASSKEY_VERIFICATION_FAILED', `${what} does not verify (${(error as Error).message})`, { cause: error });

/** A new passkey's answer, checked: the challenge given, this origin and relying party, user presence. */
export async function verifyNewPasskey(
  rp: RelyingParty,
  response: RegistrationResponseJSON,
  challenge: string,
): Promise<NonNullable<VerifiedRegistrationResponse['registrationInfo']>> {
  const { verifyRegistrationResponse } = await webauthn();
  try {
    const verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
      supportedAlgorithmIDs: ALGORITHMS,
    });
    if (!verified.verified) throw new Error('not verified');
    return verified.registrationInfo;
  } catch (error) {
    throw failed('the new passkey', error);
  }
}

/**
 * A sign-in's answer, checked against the stored passkey: the challenge given, this origin and
 * relying party, user presence, the signature. The counter is compared by the caller (it decides
 * what a counter that did not go up means), so the library is given 0.
 */
export async function verifyPasskeyAnswer(
  rp: RelyingParty,
  response: AuthenticationResponseJSON,
  passkey: Passkey,
  challenge: string,
): Promise<NonNullable<VerifiedAuthenticationResponse['authenticationInfo']>> {
  const { verifyAuthenticationResponse } = await webauthn();
  try {
    const verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: passkey.id,
        publicKey: bytesOf(passkey.publicKey),
        counter: 0,
        transports: passkey.transports,
      },
      requireUserVerification: false,
    });
    if (!verified.verified) throw new Error('the signature does not match the passkey');
    return verified.authenticationInfo;
  } catch (error) {
    throw failed('the passkey’s answer', error);
  }
}

/** The challenge an answer signed (from its client data), checked for shape before it is looked up. */
export function challengeOf(credential: { response: { clientDataJSON: string } }): string {
  let challenge: unknown;
  try {
    challenge = (
      JSON.parse(Buffer.from(credential.response.clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown }
    ).challenge;
  } catch (error) {
    throw failed('the answer’s client data', error);
  }
  if (typeof challenge !== 'string' || challenge.length > 128 || !BASE64URL.test(challenge)) {
    throw new HttpError('PASSKEY_CHALLENGE_MISMATCH', 'the answer names no challenge this provider issued');
  }
  return challenge;
}

export type CredentialBody<T> = { credential: T; name?: string };

/**
 * The browser's credential (`toJSON()` shape), as the body itself or under `credential`, with an
 * optional `name`; a form post carries it as the JSON text of its `credential` field.
 */
export async function readCredential<T extends RegistrationResponseJSON | AuthenticationResponseJSON>(
  ctx: Context,
  limit: number,
): Promise<CredentialBody<T>> {
  const { body, isForm } = await readJsonOrForm(ctx, limit);
  const fields = (body ?? {}) as { credential?: unknown; name?: unknown };
  let credential: unknown = fields.credential ?? (isForm ? undefined : body);
  if (isForm && typeof credential === 'string') {
    try {
      credential = JSON.parse(credential);
    } catch {
      throw new HttpError('INVALID_REQUEST', '"credential" is not JSON');
    }
  }
  const shape = credential as { id?: unknown; type?: unknown; response?: { clientDataJSON?: unknown } } | undefined;
  if (
    typeof shape?.id !== 'string' ||
    shape.id.length > MAX_ID_LENGTH ||
    !BASE64URL.test(shape.id) ||
    shape.type !== 'public-key' ||
    typeof shape.response?.clientDataJSON !== 'string'
  ) {
    throw new HttpError('INVALID_REQUEST', 'send the credential as the browser gives it (PublicKeyCredential.toJSON())');
  }
  return { credential: credential as T, ...nameOf(fields.name) };
}

function nameOf(value: unknown): { name?: string } {
  if (value === undefined || value === null || value === '') return {};
  const name = typeof value === 'string' ? value.trim().replace(/\s+/g, ' ') : undefined;
  if (name === undefined || name === '' || name.length > MAX_NAME_LENGTH || /[\u0000-\u001f\u007f]/.test(name)) {
    throw new HttpError('INVALID_REQUEST', `"name" must be text of at most ${MAX_NAME_LENGTH} characters`);
  }
  return { name };
}
