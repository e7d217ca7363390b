import { base58, base64 } from '@scure/base';
import { SiwsError } from './errors.ts';

/** Standard base64 (RFC 4648 §4) of 64 bytes: 86 characters and `==`. Never base58, which has no `+`, `/` or `=`. */
const BASE64_SIGNATURE_RE = /^[A-Za-z0-9+/]{86}==$/;
const BASE58_RE = /^[1-9A-HJ-NP-Za-km-z]+$/;

const invalid = (message: string) => new SiwsError('INVALID_SIGNATURE', message, { field: 'signature' });

/**
 * The 64 bytes of an Ed25519 signature given as base58 (as Solana writes signatures), as
 * padded standard base64, or as bytes. Anything else, or any other length, is refused with
 * `INVALID_SIGNATURE`.
 */
export function decodeSiwsSignature(signature: string | Uint8Array): Uint8Array {
  let bytes: Uint8Array;
  if (signature instanceof Uint8Array) {
    bytes = signature;
  } else if (typeof signature !== 'string') {
    throw invalid('signature must be a base58 or base64 string');
  } else if (BASE64_SIGNATURE_RE.test(signature)) {
    try {
      bytes = base64.decode(signature);
    } catch (cause) {
      throw new SiwsError('INVALID_SIGNATURE', 'signature is not canonical base64', { field: 'signature', cause });
    }
  } else if (signature.length <= 100 && BASE58_RE.test(signature)) {
    bytes = base58.decode(signature);
  } else {
    throw invalid('signature must be 64 bytes in base58 or in padded base64');
  }
  if (bytes.length !== 64) throw invalid(`signature must be 64 bytes (Ed25519), found ${bytes.length}`);
  return bytes;
}
