/**
 * A Sign in with Bitcoin submission at `POST /interaction/<uid>`: the message checked against the
 * interaction's details (the same binding rules as an Ethereum message: domain, URI, nonce =
 * hex(uid), network allow-list, times, the redirect URI as the first resource), then held to the
 * fields the details give, then the signature, offline (no node, no name): BIP-322 simple or full
 * for P2WPKH, P2SH-P2WPKH and Taproot addresses, BIP-137 for P2PKH ones, each refusal typed by
 * `@signet/siwb`.
 */
import {
  type BitcoinAccountId,
  type BitcoinNetwork,
  bitcoinAccountId,
  bitcoinNetworkOf,
  parseSiwbMessage,
  type SignatureMethod,
  validateSiwbMessage,
  verifyBitcoinSignature,
} from '@signet/siwb';
import { HttpError } from '../../errors.ts';
import type { InteractionDetails } from '../details.ts';
import { SIGN_IN_FORMS } from '../given-fields.ts';
import { bitcoinExpectationsFor, bitcoinNotAsGiven } from './contract.ts';

export type BitcoinSignIn = {
  accountId: BitcoinAccountId;
  namespace: 'bip122';
  /** The address as the message writes it (bech32 in lower case). */
  address: string;
  network: BitcoinNetwork;
  message: string;
  /** base64, as posted: what the relying party can check against the message itself. */
  signature: string;
  method: SignatureMethod;
};

const show = (value: unknown) => (value === undefined ? 'no such line' : JSON.stringify(value));

/**
 * Verifies a Bitcoin sign-in for these details. Throws the SIWB library's typed error
 * (`DOMAIN_MISMATCH`, `NONCE_MISMATCH`, `NETWORK_MISMATCH`, `SIGNATURE_TYPE_MISMATCH`,
 * `INVALID_SIGNATURE`, …) or `MESSAGE_MISMATCH` when the message changes a field the details give.
 * The signature is checked last: every cheaper check runs first.
 */
export function verifyBitcoinSignIn(
  body: { message: string; signature: string },
  details: InteractionDetails,
  options: { now: number; clockSkewMs: number },
): BitcoinSignIn {
  const message = validateSiwbMessage(parseSiwbMessage(body.message, SIGN_IN_FORMS), bitcoinExpectationsFor(details, options));
  const changed = bitcoinNotAsGiven(details, message);
  if (changed) {
    throw new HttpError(
      'MESSAGE_MISMATCH',
      `the message is not the one this sign-in gives: its ${changed.field} is ${show(changed.received)}, not ${show(changed.expected)}`,
    );
  }
  const { method } = verifyBitcoinSignature(message.address, body.message, body.signature);
  // The expectations allowed only the provider's networks: the Chain ID names one of them.
  const network = bitcoinNetworkOf(message.chainId) as BitcoinNetwork;
  return {
    accountId: bitcoinAccountId(network, message.address),
    namespace: 'bip122',
    address: message.address,
    network,
    message: body.message,
    signature: body.signature,
    method,
  };
}
