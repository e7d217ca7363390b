/**
 * A Solana wallet for tests: an Ed25519 key pair (Node's own, node:crypto) with its base58
 * address, and a sign-in through the provider's interaction contract over real HTTP with a Sign
 * In With Solana message built from the details, as the wallet page builds it.
 */
import { createPrivateKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { base58, base64 } from '@scure/base';
import { type InteractionDetails, solanaSignInInput } from '@signet/provider';
import { type CreateSiwsMessageParameters, createSiwsMessage, type SolanaNetwork } from '@signet/siws';
import { CookieJar } from './cookies.ts';
import { followToClient, getDetails, postSignature, startInteraction } from './wallet.ts';

export type SolanaKeypair = {
  /** base58 of the 32-byte public key. */
  address: string;
  publicKey: Uint8Array;
  privateKey: KeyObject;
  /** The 64-byte Ed25519 signature of the text's UTF-8 bytes (or of the bytes). */
  sign(message: string | Uint8Array): Uint8Array;
};

/** A fresh key pair, or the one of a 32-byte seed (the same seed, the same address). */
export function solanaKeypair(seed?: Uint8Array): SolanaKeypair {
  const privateKey = seed
    ? createPrivateKey({
        // PKCS#8 header of an Ed25519 private key (RFC 8410), then the 32-byte seed.
        key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
        format: 'der',
        type: 'pkcs8',
      })
    : generateKeyPairSync('ed25519').privateKey;
  const jwk = privateKey.export({ format: 'jwk' }) as { x: string };
  const publicKey = new Uint8Array(Buffer.from(jwk.x, 'base64url'));
  return {
    address: base58.encode(publicKey),
    publicKey,
    privateKey,
    sign: (message) =>
      new Uint8Array(sign(null, typeof message === 'string' ? Buffer.from(message, 'utf8') : message, privateKey)),
  };
}

/** The message the wallet page would have a Solana wallet sign for these details; `overrides` tamper with it. */
export function solanaMessageFor(
  details: InteractionDetails,
  address: string,
  overrides: Partial<CreateSiwsMessageParameters> & { network?: SolanaNetwork } = {},
): string {
  const { network = details.solanaNetworks?.[0] ?? 'mainnet', ...fields } = overrides;
  return createSiwsMessage({ ...solanaSignInInput(details, { network }), address, ...fields });
}

export type SolanaSignInOptions = {
  authorizationUrl: URL | string;
  keypair: SolanaKeypair;
  network?: SolanaNetwork;
  jar?: CookieJar;
  overrides?: Partial<CreateSiwsMessageParameters>;
  /** How the signature is posted (the provider takes both). Default base58. */
  encoding?: 'base58' | 'base64';
};

/** The whole Solana sign-in; returns the URL the provider sent the browser to at the client. */
export async function solanaSignIn(
  options: SolanaSignInOptions,
): Promise<{ callbackUrl: URL; details: InteractionDetails; jar: CookieJar; message: string; signature: string }> {
  const jar = options.jar ?? new CookieJar();
  const interactionUrl = await startInteraction(jar, options.authorizationUrl);
  const details = await getDetails(jar, interactionUrl);
  const message = solanaMessageFor(details, options.keypair.address, { network: options.network, ...options.overrides });
  const bytes = options.keypair.sign(message);
  const signature = options.encoding === 'base64' ? base64.encode(bytes) : base58.encode(bytes);
  const response = await postSignature(jar, interactionUrl, { message, signature });
  if (response.status !== 303) throw new Error(`sign-in refused (${response.status}): ${await response.text()}`);
  const callbackUrl = await followToClient(jar, interactionUrl, response.headers.get('location') as string);
  return { callbackUrl, details, jar, message, signature };
}
