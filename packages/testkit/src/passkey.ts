/**
 * A software passkey authenticator for HTTP-level tests, as Chromium's DevTools virtual
 * authenticator is one for browser tests: a real P-256 key pair per credential (node:crypto), the
 * WebAuthn encodings written with a CBOR library (@levischuck/tiny-cbor, the one
 * @simplewebauthn/server reads them with), and the browser's part (the client data, the
 * `toJSON()` shape) made as a browser makes it. What a test may change, the way a hostile or
 * broken client could: the origin and relying party id it signs for, the counter, the flags.
 */
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { type CBORType, encodeCBOR } from '@levischuck/tiny-cbor';

export type SoftCredential = {
  id: string;
  privateKey: KeyObject;
  /** The WebAuthn user handle the credential was made for (base64url). */
  userHandle: string;
  rpId: string;
  counter: number;
  /** Backup eligible (a synced passkey) rather than bound to one device. */
  backupEligible: boolean;
};

export type AuthenticatorOptions = {
  /** The origin the browser writes into the client data (default: the relying party's `https://<rp id>`). */
  origin: string;
  /** Sets the UV flag (default true). */
  userVerified?: boolean;
  /** Makes backup-eligible (synced) credentials (default false: device-bound). */
  backupEligible?: boolean;
};

const b64url = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

type CreationOptions = { challenge: string; rp: { id?: string }; user: { id: string } };
type RequestOptions = { challenge: string; rpId?: string };

/** The flags byte: UP always, UV, BE and BS (backed up with it), AT when credential data follows. */
function flags(options: { userVerified: boolean; backupEligible: boolean; attested?: boolean }) {
  return 0x01 | (options.userVerified ? 0x04 : 0) | (options.backupEligible ? 0x18 : 0) | (options.attested ? 0x40 : 0);
}

function counterBytes(counter: number) {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(counter);
  return bytes;
}

/** The credential's public key as COSE (EC2, ES256, P-256). */
function coseKey(publicKey: KeyObject): Uint8Array {
  const jwk = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
  return encodeCBOR(
    new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x, 'base64url')],
      [-3, Buffer.from(jwk.y, 'base64url')],
    ]),
  );
}

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];
  constructor(private readonly options: AuthenticatorOptions) {}

  private clientData(type: string, challenge: string, origin = this.options.origin) {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** navigator.credentials.create() with these creation options: the new credential's `toJSON()`. */
  create(optionsJSON: CreationOptions, overrides: { origin?: string; rpId?: string } = {}) {
    const rpId = overrides.rpId ?? optionsJSON.rp.id ?? new URL(this.options.origin).hostname;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const id = randomBytes(16);
    const backupEligible = this.options.backupEligible ?? false;
    const userVerified = this.options.userVerified ?? true;
    const length = Buffer.alloc(2);
    length.writeUInt16BE(id.length);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([flags({ userVerified, backupEligible, attested: true })]),
      counterBytes(0),
      Buffer.alloc(16),
      length,
      id,
      coseKey(publicKey),
    ]);
    const attestation = new Map<string, CBORType>();
    attestation.set('fmt', 'none');
    attestation.set('attStmt', new Map<string, CBORType>());
    attestation.set('authData', new Uint8Array(authData));
    const attestationObject = encodeCBOR(attestation);
    this.credentials.push({ id: b64url(id), privateKey, userHandle: optionsJSON.user.id, rpId, counter: 0, backupEligible });
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64url(this.clientData('webauthn.create', optionsJSON.challenge, overrides.origin)),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
    };
  }

  /**
   * navigator.credentials.get() with these request options: the assertion's `toJSON()`, by the
   * credential given (default: the last one made for the relying party, as a discoverable
   * credential is picked). The counter goes up by one unless `counter` says otherwise.
   */
  get(
    optionsJSON: RequestOptions,
    overrides: { credential?: SoftCredential; origin?: string; rpId?: string; counter?: number; userHandle?: string } = {},
  ) {
    const credential = overrides.credential ?? this.credentials.at(-1);
    if (!credential) throw new Error('the soft authenticator holds no credential');
    credential.counter = overrides.counter ?? credential.counter + 1;
    const authenticatorData = Buffer.concat([
      sha256(overrides.rpId ?? optionsJSON.rpId ?? credential.rpId),
      Buffer.from([flags({ userVerified: this.options.userVerified ?? true, backupEligible: credential.backupEligible })]),
      counterBytes(credential.counter),
    ]);
    const clientDataJSON = this.clientData('webauthn.get', optionsJSON.challenge, overrides.origin);
    const signature = sign('sha256', Buffer.concat([authenticatorData, sha256(clientDataJSON)]), credential.privateKey);
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authenticatorData),
        signature: b64url(signature),
        userHandle: overrides.userHandle ?? credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
    };
  }
}
