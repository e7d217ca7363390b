/**
 * Offline verification of a Bitcoin signed message for one address: BIP-322 simple or full
 * (the single-input template) for P2WPKH, P2SH-P2WPKH and P2TR (key path), BIP-137 for P2PKH.
 * The transactions, txids, signature hashes and address decoding are @scure/btc-signer's; the
 * curve arithmetic is @noble/curves'. Nothing here interprets scripts: each accepted address
 * type has one accepted witness shape, checked item by item (BIP-322's "validator without a full
 * script interpreter", which must not guess).
 */
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { Address, NETWORK, OutScript, p2pkh, p2wpkh, Script, SigHash, TEST_NETWORK } from '@scure/btc-signer';
import { equalBytes, hash160 } from '@scure/btc-signer/utils.js';
import { bip137MessageHash } from './bip137.ts';
import { bip322ToSign, bip322ToSpend, OP_RETURN_SCRIPT, type SignedMessage } from './bip322.ts';
import { readBitcoinAddress } from './decodeBitcoinAddress.ts';
import { decodeSiwbSignature, type SiwbSignature } from './decodeSiwbSignature.ts';
import { SiwbError, type SiwbErrorType } from './errors.ts';

/** The address types that sign in, P2SH being P2SH-P2WPKH (the only P2SH form accepted). */
export type SignedAddressType = 'p2pkh' | 'p2sh-p2wpkh' | 'p2wpkh' | 'p2tr';
export type SignatureMethod = 'bip322-simple' | 'bip322-full' | 'bip137';
export type VerifyBitcoinSignatureReturnType = { addressType: SignedAddressType; method: SignatureMethod };

const fail = (type: SiwbErrorType, message: string) => new SiwbError(type, message, { field: 'signature' });

/** What a witness looks like, for telling a signature of another address type apart from a malformed one. */
const looksSchnorr = (witness: Uint8Array[]) => witness.length === 1 && (witness[0]?.length === 64 || witness[0]?.length === 65);
const looksEcdsa = (witness: Uint8Array[]) =>
  witness.length === 2 && witness[0]?.[0] === 0x30 && (witness[1]?.length === 33 || witness[1]?.length === 65);

/**
 * An ECDSA signature as a witness or scriptSig carries it: strict DER (BIP-66: 8 to 72 bytes,
 * minimal lengths and integers, nothing after), low S (BIP-146), then the SIGHASH_ALL byte.
 */
function readEcdsa(item: Uint8Array): Uint8Array {
  const der = item.subarray(0, -1);
  let high = false;
  try {
    if (der.length < 8 || der.length > 72) throw new Error('length');
    high = secp256k1.Signature.fromBytes(der, 'der').hasHighS();
  } catch (cause) {
    throw new SiwbError('NON_CANONICAL_SIGNATURE', 'the ECDSA signature is not strict DER (BIP-66)', {
      field: 'signature',
      cause,
    });
  }
  if (high) throw fail('NON_CANONICAL_SIGNATURE', 'the ECDSA signature has a high S (BIP-146 requires S ≤ n/2)');
  const hashType = item[item.length - 1] as number;
  if (hashType !== SigHash.ALL) {
    throw fail(
      'UNSUPPORTED_SIGHASH',
      `signature hash type 0x${hashType.toString(16).padStart(2, '0')}: only SIGHASH_ALL (0x01) is accepted`,
    );
  }
  return der;
}

/** A compressed public key (segwit v0 allows no other: BIP-143's WITNESS_PUBKEYTYPE), on the curve. */
function readCompressedKey(key: Uint8Array): Uint8Array {
  if (key.length !== 33 || (key[0] !== 0x02 && key[0] !== 0x03)) {
    throw fail('MALFORMED_SIGNATURE', 'the witness public key is not a compressed secp256k1 key (segwit requires one)');
  }
  try {
    secp256k1.Point.fromBytes(key);
  } catch (cause) {
    throw new SiwbError('MALFORMED_SIGNATURE', 'the witness public key is not a point on secp256k1', {
      field: 'signature',
      cause,
    });
  }
  return key;
}

type Satisfaction = { witness: Uint8Array[]; scriptSig: Uint8Array };

/**
 * A full signature's witness and scriptSig, once its transaction is `to_sign` exactly: version 0,
 * lock time 0, one input spending `to_spend`:0 with sequence 0, one OP_RETURN output of value 0.
 * (Proofs of funds, time locks and other versions are refused: the template alone proves
 * control of the address now.) An input spending another `to_spend` is a signature of another
 * message or address: `INVALID_SIGNATURE`.
 */
function fullSatisfaction(
  signature: Extract<SiwbSignature, { form: 'bip322-full' }>,
  toSpendId: string,
  scriptPubKey: Uint8Array,
  toSpend: ReturnType<typeof bip322ToSpend>,
): Satisfaction {
  const { tx, bytes } = signature;
  const template = (what: string) =>
    fail('MALFORMED_SIGNATURE', `the to_sign transaction ${what}: only BIP-322's single-input template is accepted`);
  if (tx.version !== 0) throw template(`has version ${tx.version}, not 0`);
  if (tx.lockTime !== 0) throw template(`has lock time ${tx.lockTime}, not 0`);
  if (tx.inputs.length !== 1) throw template(`has ${tx.inputs.length} inputs, not 1`);
  if (tx.outputs.length !== 1) throw template(`has ${tx.outputs.length} outputs, not 1`);
  const input = tx.inputs[0] as (typeof tx.inputs)[number];
  const output = tx.outputs[0] as (typeof tx.outputs)[number];
  if (input.sequence !== 0) throw template(`input has sequence ${input.sequence}, not 0`);
  if (output.amount !== 0n || !equalBytes(output.script, OP_RETURN_SCRIPT)) throw template('output is not OP_RETURN of value 0');
  if (hex.encode(input.txid) !== toSpendId || input.index !== 0) {
    throw fail('INVALID_SIGNATURE', 'the to_sign transaction spends the to_spend of another message or address');
  }
  const satisfaction = { witness: tx.witnesses?.[0] ?? [], scriptSig: input.finalScriptSig };
  // Last, byte for byte: nothing but the witness and scriptSig may differ from the template.
  let rebuilt: Uint8Array | undefined;
  try {
    rebuilt = bip322ToSign(toSpend, scriptPubKey, satisfaction).toBytes(true, true);
  } catch {
    // btc-signer refuses to write it: not the template either
  }
  if (rebuilt === undefined || !equalBytes(rebuilt, bytes)) throw template('is not serialized as the template');
  return satisfaction;
}

/**
 * Verifies a BIP-322 (simple or full) or BIP-137 signature of `message` (text as its UTF-8
 * bytes, or bytes) by `address`, offline. Returns the address type and the signature's form;
 * throws `SiwbError` with a typed reason otherwise (see the package README for each).
 * Addresses of mainnet and of the test networks are accepted alike: which network a sign-in is
 * on is the message's business (its Chain ID), checked when it is parsed.
 */
export function verifyBitcoinSignature(
  address: string,
  message: SignedMessage,
  signature: string | Uint8Array,
): VerifyBitcoinSignatureReturnType {
  try {
    return verify(address, message, signature);
  } catch (cause) {
    if (cause instanceof SiwbError) throw cause;
    // A safety net only: every refusal above has its own type (the property tests hold it so);
    // whatever a library throws on input no check foresaw is still a typed refusal.
    throw new SiwbError('MALFORMED_SIGNATURE', 'the signature could not be read', { field: 'signature', cause });
  }
}

function verify(address: string, message: SignedMessage, signature: string | Uint8Array): VerifyBitcoinSignatureReturnType {
  const decoded = readBitcoinAddress(address);
  if (typeof decoded === 'string') {
    throw new SiwbError('INVALID_ADDRESS', `address ${JSON.stringify(address)} is not a Bitcoin address: ${decoded}`, {
      field: 'address',
      received: address,
    });
  }
  const type = decoded.type;
  if (type !== 'p2pkh' && type !== 'p2sh' && type !== 'p2wpkh' && type !== 'p2tr') {
    throw new SiwbError('UNSUPPORTED_ADDRESS_TYPE', `address ${address} (${type}) cannot sign in here`, {
      field: 'address',
      received: address,
    });
  }
  const sig = decodeSiwbSignature(signature);
  if (sig.form === 'bip137') return { addressType: verifyBip137(type, decoded.data, message, sig), method: 'bip137' };
  if (type === 'p2pkh') {
    throw fail(
      'SIGNATURE_TYPE_MISMATCH',
      `a BIP-322 ${sig.form === 'bip322-simple' ? 'simple' : 'full'} signature for a P2PKH address: P2PKH addresses sign with BIP-137 (legacy) here`,
    );
  }
  // btc-signer decodes the address (again) into the scriptPubKey that to_spend pays. It refuses
  // a Taproot output key that is not on the curve: a valid address, but no key can sign for it.
  let scriptPubKey: Uint8Array;
  try {
    scriptPubKey = OutScript.encode(Address(decoded.family === 'mainnet' ? NETWORK : TEST_NETWORK).decode(address));
  } catch (cause) {
    throw new SiwbError('INVALID_SIGNATURE', `address ${address}'s output key is not a secp256k1 point: no key can sign for it`, {
      field: 'signature',
      cause,
    });
  }
  const toSpend = bip322ToSpend(message, scriptPubKey);
  const { witness, scriptSig } =
    sig.form === 'bip322-simple'
      ? { witness: sig.witness, scriptSig: new Uint8Array() }
      : fullSatisfaction(sig, toSpend.id, scriptPubKey, toSpend);
  const toSign = bip322ToSign(toSpend, scriptPubKey);

  const spend: Bip322Spend = { address, key: decoded.data, form: sig.form, witness, scriptSig, toSign, scriptPubKey };
  if (type === 'p2tr') {
    verifyTaproot(spend);
    return { addressType: 'p2tr', method: sig.form };
  }
  verifySegwitV0(type, spend);
  return { addressType: type === 'p2sh' ? 'p2sh-p2wpkh' : 'p2wpkh', method: sig.form };
}

/** A BIP-322 spend to check: the address and what it decodes to (its key or key hash), the to_sign transaction, its witness. */
type Bip322Spend = {
  address: string;
  key: Uint8Array;
  form: 'bip322-simple' | 'bip322-full';
  witness: Uint8Array[];
  scriptSig: Uint8Array;
  toSign: ReturnType<typeof bip322ToSign>;
  scriptPubKey: Uint8Array;
};

/** A Taproot key-path spend: one Schnorr signature by the output key, SIGHASH_DEFAULT or ALL. */
function verifyTaproot({ address, key, witness, scriptSig, toSign, scriptPubKey }: Bip322Spend) {
  if (looksEcdsa(witness)) throw fail('SIGNATURE_TYPE_MISMATCH', 'an ECDSA (P2WPKH-style) witness for a Taproot address');
  if (witness.length !== 1) {
    throw fail(
      'MALFORMED_SIGNATURE',
      `a Taproot witness of ${witness.length} items: only key-path spends (one signature) are accepted`,
    );
  }
  if (scriptSig.length !== 0) throw fail('MALFORMED_SIGNATURE', 'a Taproot spend has an empty scriptSig');
  const item = witness[0] as Uint8Array;
  if (item.length !== 64 && item.length !== 65) {
    throw fail('MALFORMED_SIGNATURE', `a Taproot signature of ${item.length} bytes (64, or 65 with a hash type)`);
  }
  // BIP-341: 64 bytes is SIGHASH_DEFAULT; a 65th byte names the type, and may not be 0x00.
  const hashType = item.length === 64 ? SigHash.DEFAULT : (item[64] as number);
  if (item.length === 65 && hashType !== SigHash.ALL) {
    throw fail(
      'UNSUPPORTED_SIGHASH',
      `signature hash type 0x${hashType.toString(16).padStart(2, '0')}: only SIGHASH_DEFAULT (64 bytes) or SIGHASH_ALL (0x01) is accepted${hashType === 0 ? ' (BIP-341 forbids writing 0x00)' : ''}`,
    );
  }
  const sighash = toSign.preimageWitnessV1(0, [scriptPubKey], hashType, [0n]);
  if (!schnorr.verify(item.subarray(0, 64), sighash, key)) {
    throw fail('INVALID_SIGNATURE', `the Taproot signature was not made by ${address}'s key for this message`);
  }
}

/** P2WPKH, or P2SH-P2WPKH: [signature, compressed key], the key hashing to the address. */
function verifySegwitV0(type: 'p2sh' | 'p2wpkh', { address, key: addressHash, form, witness, scriptSig, toSign }: Bip322Spend) {
  if (looksSchnorr(witness))
    throw fail('SIGNATURE_TYPE_MISMATCH', `a Taproot (Schnorr) witness for a ${type === 'p2sh' ? 'P2SH' : 'P2WPKH'} address`);
  if (type === 'p2sh' && witness.length > 2) {
    throw new SiwbError(
      'UNSUPPORTED_ADDRESS_TYPE',
      `a witness of ${witness.length} items for P2SH address ${address}: only P2SH-P2WPKH (a signature and a key) signs in here`,
      { field: 'address', received: address },
    );
  }
  if (witness.length !== 2) {
    throw fail(
      'MALFORMED_SIGNATURE',
      `a ${type === 'p2sh' ? 'P2SH-P2WPKH' : 'P2WPKH'} witness of ${witness.length} items, not 2 (signature, public key)`,
    );
  }
  const key = readCompressedKey(witness[1] as Uint8Array);
  const der = readEcdsa(witness[0] as Uint8Array);
  const keyHash = hash160(key);
  if (type === 'p2sh') {
    const redeemScript = p2wpkh(key).script;
    if (!equalBytes(hash160(redeemScript), addressHash)) {
      throw fail('INVALID_SIGNATURE', `the signing key is not ${address}'s (as P2SH-P2WPKH)`);
    }
    if (form === 'bip322-full' && !equalBytes(scriptSig, Script.encode([redeemScript]))) {
      throw fail('MALFORMED_SIGNATURE', 'a P2SH-P2WPKH to_sign whose scriptSig is not the push of its redeem script');
    }
  } else {
    if (!equalBytes(keyHash, addressHash)) throw fail('INVALID_SIGNATURE', `the signing key is not ${address}'s`);
    if (scriptSig.length !== 0) throw fail('MALFORMED_SIGNATURE', 'a P2WPKH spend has an empty scriptSig');
  }
  const sighash = toSign.preimageWitnessV0(0, p2pkh(key).script, SigHash.ALL, 0n);
  if (!secp256k1.verify(der, sighash, key, { prehash: false, lowS: true, format: 'der' })) {
    throw fail('INVALID_SIGNATURE', `the signature was not made by ${address}'s key for this message`);
  }
}

/** The address type a BIP-137 header names: 27–30 P2PKH (uncompressed key), 31–34 P2PKH, 35–38 P2SH-P2WPKH, 39–42 P2WPKH. */
const headerType = (header: number) => (header < 35 ? 'P2PKH' : header < 39 ? 'P2SH-P2WPKH' : 'P2WPKH');

/**
 * BIP-137 for P2PKH only: the key recovered from (r, s) and the header's recovery id, in the
 * header's compression, must hash to the address. A header naming a segwit type, a signature
 * for a segwit address, or a header whose compression flag is not the address's key's are
 * `SIGNATURE_TYPE_MISMATCH` (a verifier that tries every form would let one key's signature
 * stand for several addresses).
 */
function verifyBip137(
  type: 'p2pkh' | 'p2sh' | 'p2wpkh' | 'p2tr',
  hash: Uint8Array,
  message: SignedMessage,
  sig: Extract<SiwbSignature, { form: 'bip137' }>,
): 'p2pkh' {
  if (type !== 'p2pkh') {
    throw fail(
      'SIGNATURE_TYPE_MISMATCH',
      `a BIP-137 (legacy) signature for a ${type === 'p2sh' ? 'P2SH' : type === 'p2wpkh' ? 'P2WPKH' : 'Taproot'} address: sign with BIP-322 (BIP-137 is accepted for P2PKH addresses only)`,
    );
  }
  if (sig.header >= 35) {
    throw fail('SIGNATURE_TYPE_MISMATCH', `BIP-137 header ${sig.header} names a ${headerType(sig.header)} address, not P2PKH`);
  }
  let parsed: ReturnType<typeof secp256k1.Signature.fromBytes>;
  try {
    parsed = secp256k1.Signature.fromBytes(sig.rs, 'compact');
  } catch (cause) {
    throw new SiwbError('MALFORMED_SIGNATURE', 'the BIP-137 signature’s r or s is not between 1 and n − 1', {
      field: 'signature',
      cause,
    });
  }
  if (parsed.hasHighS()) throw fail('NON_CANONICAL_SIGNATURE', 'the BIP-137 signature has a high S (S ≤ n/2 required)');
  const compressed = sig.header >= 31;
  const digest = bip137MessageHash(message);
  let point: ReturnType<typeof parsed.recoverPublicKey>;
  try {
    point = parsed.addRecoveryBit((sig.header - 27) & 3).recoverPublicKey(digest);
  } catch {
    throw fail('INVALID_SIGNATURE', 'no public key recovers from the BIP-137 signature for this message');
  }
  const key = point.toBytes(compressed);
  if (!equalBytes(hash160(key), hash)) {
    if (equalBytes(hash160(point.toBytes(!compressed)), hash)) {
      throw fail(
        'SIGNATURE_TYPE_MISMATCH',
        `BIP-137 header ${sig.header} says the key is ${compressed ? 'compressed' : 'uncompressed'}, but the address is of the ${compressed ? 'uncompressed' : 'compressed'} key`,
      );
    }
    throw fail('INVALID_SIGNATURE', 'the BIP-137 signature was not made by the address’s key for this message');
  }
  if (!secp256k1.verify(sig.rs, digest, key, { prehash: false, lowS: true, format: 'compact' })) {
    throw fail('INVALID_SIGNATURE', 'the BIP-137 signature does not verify');
  }
  return 'p2pkh';
}
