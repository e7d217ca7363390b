/**
 * A Sign In With Solana submission at `POST /interaction/<uid>`: the message checked against the
 * interaction's details (the same binding rules as an Ethereum message: domain, URI, nonce =
 * hex(uid), network allow-list, times, the redirect URI as the first resource), then held to
 * what the wallet was given, then the Ed25519 signature, offline (no RPC, no name lookup).
 */
import { base58 } from '@scure/base';
import {
  decodeSiwsSignature,
  parseSiwsMessage,
  type SolanaAccountId,
  type SolanaNetwork,
  solanaAccountId,
  validateSiwsMessage,
  verifySiwsSignature,
} from '@signet/siws';
import { HttpError } from '../../errors.ts';
import type { InteractionDetails } from '../details.ts';
import { SIGN_IN_FORMS } from '../given-fields.ts';
import { notAsGiven, solanaExpectationsFor } from './contract.ts';

export type SolanaSignIn = {
  accountId: SolanaAccountId;
  namespace: 'solana';
  /** base58: the Ed25519 public key that signed. */
  address: string;
  network: SolanaNetwork;
  message: string;
  /** The 64-byte signature in base58 (however it was posted: base58 or base64). */
  signature: string;
  method: 'ed25519';
};

const show = (value: unknown) => (value === undefined ? 'no such line' : JSON.stringify(value));

/**
 * Verifies a Solana sign-in for these details. Throws the SIWS library's typed error
 * (`DOMAIN_MISMATCH`, `NONCE_MISMATCH`, `INVALID_ADDRESS`, `INVALID_SIGNATURE`, …) or
 * `MESSAGE_MISMATCH` when the wallet signed another message than the one it was given.
 */
export function verifySolanaSignIn(
  body: { message: string; signature: string },
  details: InteractionDetails,
  options: { now: number; clockSkewMs: number },
): SolanaSignIn {
  const message = validateSiwsMessage(parseSiwsMessage(body.message, SIGN_IN_FORMS), solanaExpectationsFor(details, options));
  const changed = notAsGiven(details, message);
  if (changed) {
    throw new HttpError(
      'MESSAGE_MISMATCH',
      `the wallet signed another message than the one this sign-in gave it: its ${changed.field} is ${show(changed.received)}, not ${show(changed.expected)}`,
    );
  }
  const verified = verifySiwsSignature({ message: body.message, signature: body.signature, parse: SIGN_IN_FORMS });
  // The expectations allowed only the provider's networks (never localnet): the cluster has a CAIP-2 reference.
  const network = verified.network as SolanaNetwork;
  return {
    accountId: solanaAccountId(network, verified.address),
    namespace: 'solana',
    address: verified.address,
    network,
    message: body.message,
    signature: base58.encode(decodeSiwsSignature(body.signature)),
    method: 'ed25519',
  };
}
