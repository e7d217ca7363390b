import { base64 } from '@scure/base';
import { RawTx, RawWitness } from '@scure/btc-signer';
import { MAX_SIWB_SIGNATURE_LENGTH } from './constants.ts';
import { SiwbError } from './errors.ts';

/** A decoded signature, by its form. */
export type SiwbSignature =
  /** BIP-137 (legacy `signmessage`): a header byte (27–42), then r and s. */
  | { form: 'bip137'; header: number; rs: Uint8Array }
  /** BIP-322 simple: the witness stack of `to_sign`'s input. */
  | { form: 'bip322-simple'; witness: Uint8Array[] }
  /** BIP-322 full: the whole signed `to_sign` transaction. */
  | { form: 'bip322-full'; tx: ReturnType<typeof RawTx.decode>; bytes: Uint8Array };

/** Padded standard base64 (RFC 4648 §4). */
const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const MAX_BYTES = (MAX_SIWB_SIGNATURE_LENGTH / 4) * 3;

const malformed = (message: string, cause?: unknown) =>
  new SiwbError('MALFORMED_SIGNATURE', message, { field: 'signature', ...(cause === undefined ? {} : { cause }) });

/**
 * Reads a signature: padded standard base64 (or its bytes) of at most
 * MAX_SIWB_SIGNATURE_LENGTH characters, then by its bytes, in this order:
 *
 * - 65 bytes whose first is 27–42: BIP-137 (a witness stack of 27 or more items cannot be 65 bytes of a signature);
 * - a witness stack that the bytes encode exactly, with at least one item: BIP-322 simple;
 * - a transaction that the bytes encode exactly: BIP-322 full.
 *
 * Anything else is refused with `MALFORMED_SIGNATURE`. Nothing is checked here beyond the form.
 */
export function decodeSiwbSignature(signature: string | Uint8Array): SiwbSignature {
  let bytes: Uint8Array;
  if (signature instanceof Uint8Array) {
    if (signature.length > MAX_BYTES) throw malformed(`a signature of ${signature.length} bytes (at most ${MAX_BYTES})`);
    bytes = signature;
  } else if (typeof signature !== 'string') {
    throw malformed('the signature must be a base64 string');
  } else if (signature.length > MAX_SIWB_SIGNATURE_LENGTH) {
    throw malformed(`a signature of ${signature.length} characters (at most ${MAX_SIWB_SIGNATURE_LENGTH} of base64)`);
  } else if (!BASE64_RE.test(signature)) {
    throw malformed('the signature is not padded standard base64');
  } else {
    try {
      bytes = base64.decode(signature);
    } catch (cause) {
      throw malformed('the signature is not canonical base64', cause);
    }
  }
  if (bytes.length === 0) throw malformed('the signature is empty');
  const first = bytes[0] as number;
  if (bytes.length === 65 && first >= 27 && first <= 42) {
    return { form: 'bip137', header: first, rs: bytes.slice(1) };
  }
  let witness: Uint8Array[] | undefined;
  try {
    witness = RawWitness.decode(bytes);
  } catch {
    // not a witness stack: a transaction, perhaps
  }
  if (witness !== undefined) {
    if (witness.length === 0) throw malformed('the signature is an empty witness stack');
    return { form: 'bip322-simple', witness };
  }
  try {
    return { form: 'bip322-full', tx: RawTx.decode(bytes), bytes };
  } catch (cause) {
    throw malformed(
      'the signature is neither a BIP-322 witness stack, a BIP-322 to_sign transaction, nor a 65-byte BIP-137 signature',
      cause,
    );
  }
}
