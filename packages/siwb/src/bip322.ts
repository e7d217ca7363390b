/**
 * BIP-322's two virtual transactions, built with @scure/btc-signer (its serialization, txids
 * and signature hashes): `to_spend` commits to the message and the address's scriptPubKey,
 * `to_sign` spends it to a single OP_RETURN output.
 */
import { Script, Transaction } from '@scure/btc-signer';
import { tagSchnorr } from '@scure/btc-signer/utils.js';

/** A message as signed: text (its UTF-8 bytes) or bytes. */
export type SignedMessage = string | Uint8Array;

const encoder = new TextEncoder();
const bytesOf = (message: SignedMessage) => (typeof message === 'string' ? encoder.encode(message) : message);

/** The BIP-340 tagged hash of the message under the tag `BIP0322-signed-message` (BIP-322's `message_hash`). */
export function bip322MessageHash(message: SignedMessage): Uint8Array {
  return tagSchnorr('BIP0322-signed-message', bytesOf(message));
}

/** Version 0, nonstandard scripts (an OP_RETURN output, a to_spend input of no real coin): the options both transactions need. */
const TX_OPTIONS = {
  version: 0,
  lockTime: 0,
  allowUnknownVersion: true,
  allowUnknownOutputs: true,
  allowUnknownInputs: true,
  disableScriptCheck: true,
} as const;

/** The single OP_RETURN output script of `to_sign`. */
export const OP_RETURN_SCRIPT: Uint8Array = Script.encode(['RETURN']);

/**
 * `to_spend`: version 0, lock time 0, one input spending 000…000:0xFFFFFFFF with sequence 0
 * and scriptSig `OP_0 PUSH32[message_hash]`, one output of value 0 paying `scriptPubKey`.
 */
export function bip322ToSpend(message: SignedMessage, scriptPubKey: Uint8Array): Transaction {
  const tx = new Transaction(TX_OPTIONS);
  tx.addOutput({ script: scriptPubKey, amount: 0n });
  tx.addInput({
    txid: new Uint8Array(32),
    index: 0xffffffff,
    sequence: 0,
    finalScriptSig: Script.encode(['OP_0', bip322MessageHash(message)]),
  });
  return tx;
}

/**
 * `to_sign` as the single-input template: version 0, lock time 0, one input spending
 * `to_spend`:0 with sequence 0, one OP_RETURN output of value 0; with the witness and
 * scriptSig given, when given (for comparing a full signature with the template, byte for byte).
 */
export function bip322ToSign(
  toSpend: Transaction,
  scriptPubKey: Uint8Array,
  satisfaction: { witness?: Uint8Array[]; scriptSig?: Uint8Array } = {},
): Transaction {
  const tx = new Transaction(TX_OPTIONS);
  tx.addOutput({ script: OP_RETURN_SCRIPT, amount: 0n });
  tx.addInput({
    txid: toSpend.id,
    index: 0,
    sequence: 0,
    witnessUtxo: { script: scriptPubKey, amount: 0n },
    // btc-signer takes an absent field, not an empty one, for "none".
    ...(satisfaction.witness?.length ? { finalScriptWitness: satisfaction.witness } : {}),
    ...(satisfaction.scriptSig?.length ? { finalScriptSig: satisfaction.scriptSig } : {}),
  });
  return tx;
}
