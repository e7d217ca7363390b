/**
 * Signing in with a Solana wallet (Wallet Standard), loaded only when the person picks one. A
 * wallet with `solana:signIn` is given the Sign In With Solana input built from the interaction
 * details and writes the message itself; the text it signed must be exactly the one those
 * details and its account make. Otherwise `solana:signMessage` signs the text built here. Either
 * way the page posts the message and the 64-byte signature (base64) with its form.
 */

import { createSiwsMessage, type SolanaNetwork } from '@signet/siws/message';
import type { SolanaSignInFeature, SolanaSignMessageFeature } from '@solana/wallet-standard-features';
import type { Wallet, WalletAccount } from '@wallet-standard/base';
import type { StandardConnectFeature } from '@wallet-standard/features';
import type { InteractionDetails } from '../../src/signin/details.ts';
import { solanaSignInInput } from '../../src/signin/solana/contract.ts';

/** A wallet that signed (or would sign) something else than the message this sign-in gave it. */
export class ChangedMessageError extends Error {
  override readonly name = 'ChangedMessageError';
}

type Features = Partial<SolanaSignInFeature & SolanaSignMessageFeature & StandardConnectFeature>;

/** The first allowed network the wallet (or account) says it supports; else the first allowed. */
function networkFor(chains: readonly string[], allowed: readonly SolanaNetwork[]): SolanaNetwork {
  return allowed.find((network) => chains.includes(`solana:${network}`)) ?? (allowed[0] as SolanaNetwork);
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i]);

const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

async function account(wallet: Wallet, features: Features): Promise<WalletAccount> {
  const accounts = features['standard:connect'] ? (await features['standard:connect'].connect()).accounts : wallet.accounts;
  const first = accounts[0];
  if (!first) throw new Error('the wallet returned no account');
  return first;
}

export type SolanaSignature = { message: string; signature: string };

/**
 * Asks the wallet to sign in for these details. `show` receives the text before it is signed
 * (when it is known first). Throws ChangedMessageError when the wallet signed another text.
 */
export async function signWithSolana(
  wallet: Wallet,
  details: InteractionDetails,
  options: { now: number; show(text: string): void },
): Promise<SolanaSignature> {
  const allowed = details.solanaNetworks ?? [];
  const features = wallet.features as Features;
  const signIn = features['solana:signIn'];
  if (signIn) {
    const input = solanaSignInInput(details, { network: networkFor(wallet.chains, allowed), now: options.now });
    const [output] = await signIn.signIn(input);
    if (!output) throw new Error('the wallet returned no signature');
    const expected = createSiwsMessage({ ...input, address: output.account.address });
    if (new TextDecoder().decode(output.signedMessage) !== expected || (output.signatureType ?? 'ed25519') !== 'ed25519') {
      throw new ChangedMessageError('the wallet signed another message');
    }
    options.show(expected);
    return { message: expected, signature: base64(output.signature) };
  }
  const signMessage = features['solana:signMessage'];
  if (!signMessage) throw new Error('the wallet can neither sign in nor sign a message');
  const signer = await account(wallet, features);
  const text = createSiwsMessage({
    ...solanaSignInInput(details, { network: networkFor(signer.chains, allowed), now: options.now }),
    address: signer.address,
  });
  options.show(text);
  const bytes = new TextEncoder().encode(text);
  const [output] = await signMessage.signMessage({ account: signer, message: bytes });
  if (!output) throw new Error('the wallet returned no signature');
  // A wallet may sign other bytes than it was given (a prefix, an envelope): such a signature is not of this text.
  if (!sameBytes(output.signedMessage, bytes) || (output.signatureType ?? 'ed25519') !== 'ed25519') {
    throw new ChangedMessageError('the wallet signed another message');
  }
  return { message: text, signature: base64(output.signature) };
}
