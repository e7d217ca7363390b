/**
 * The keys a program signs in with: an Ethereum private key (32 bytes, hex) or a Solana key (a
 * 32-byte Ed25519 seed, or the 64-byte secret key Solana tools keep: hex, base58, or
 * solana-keygen's JSON array). Read from text (a file, an environment variable), never from the
 * command line; an error never repeats the text.
 */
import { createPrivateKey, type KeyObject, sign as signEd25519 } from 'node:crypto';
import { base58 } from '@scure/base';
import type { Hex } from 'viem';
import { privateKeyToAccount, sign } from 'viem/accounts';
import { LoginError } from './errors.ts';

/**
 * An Ethereum account that signs EIP-191 personal messages (a viem account, a hardware signer, …),
 * for the interactive sign-in; and, for the JWT bearer grant (assertion.ts), a 32-byte digest with
 * the raw key (`signDigest`: r‖s, or r‖s‖v, in hex: viem's `sign({ hash, privateKey, to: 'hex' })`,
 * a KMS's ECDSA_SHA_256 over a digest converted from DER). A signer without `signDigest` signs in
 * interactively only.
 */
export type EthereumSigner = {
  kind: 'ethereum';
  address: `0x${string}`;
  signMessage(message: string): Promise<string>;
  signDigest?(digest: Hex): Promise<Hex>;
};

/** A Solana account: its base58 address and an Ed25519 signature of a message's UTF-8 bytes. */
export type SolanaSigner = { kind: 'solana'; address: string; signMessage(message: string): Promise<Uint8Array> };

export type LoginSigner = EthereumSigner | SolanaSigner;

const HEX = /^(?:0x)?([0-9a-fA-F]*)$/;

/** An Ethereum signer from a private key's hex text (64 hex digits, `0x` optional, surrounding blanks ignored). */
export function ethereumKey(text: string): EthereumSigner {
  const digits = HEX.exec(text.trim())?.[1];
  if (digits?.length !== 64) {
    throw new LoginError('INVALID_KEY', 'an Ethereum key must be a 32-byte private key in hex (64 hex digits, 0x optional)');
  }
  let account: ReturnType<typeof privateKeyToAccount>;
  try {
    account = privateKeyToAccount(`0x${digits}` as Hex);
  } catch {
    throw new LoginError('INVALID_KEY', 'the Ethereum key is not a valid secp256k1 private key');
  }
  const privateKey = `0x${digits}` as Hex;
  return {
    kind: 'ethereum',
    address: account.address,
    signMessage: (message) => account.signMessage({ message }),
    signDigest: (hash) => sign({ hash, privateKey, to: 'hex' }),
  };
}

/** The bytes of a Solana key's text: hex, a JSON array of numbers, or base58. */
function solanaKeyBytes(text: string): Uint8Array | undefined {
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) {
    try {
      const numbers = JSON.parse(trimmed) as unknown;
      if (Array.isArray(numbers) && numbers.every((n) => Number.isInteger(n) && n >= 0 && n <= 255)) {
        return Uint8Array.from(numbers as number[]);
      }
    } catch {
      return undefined;
    }
    return undefined;
  }
  const digits = HEX.exec(trimmed)?.[1];
  if (digits !== undefined && (digits.length === 64 || digits.length === 128)) return Uint8Array.from(Buffer.from(digits, 'hex'));
  try {
    return base58.decode(trimmed);
  } catch {
    return undefined;
  }
}

/** PKCS#8 header of an Ed25519 private key (RFC 8410), before its 32-byte seed. */
const ED25519_PKCS8 = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * A Solana signer from a key's text: a 32-byte seed, or a 64-byte secret key (seed, then the
 * public key, as solana-keygen and wallets export it: its public half must match the seed's).
 */
export function solanaKey(text: string): SolanaSigner {
  const bytes = solanaKeyBytes(text);
  if (!bytes || (bytes.length !== 32 && bytes.length !== 64)) {
    throw new LoginError(
      'INVALID_KEY',
      'a Solana key must be a 32-byte seed or a 64-byte secret key, in hex, base58 or as a JSON array of numbers (solana-keygen)',
    );
  }
  const privateKey: KeyObject = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8, bytes.subarray(0, 32)]),
    format: 'der',
    type: 'pkcs8',
  });
  const publicKey = Buffer.from((privateKey.export({ format: 'jwk' }) as { x: string }).x, 'base64url');
  if (bytes.length === 64 && !publicKey.equals(bytes.subarray(32))) {
    throw new LoginError('INVALID_KEY', 'the Solana secret key is inconsistent: its public half is not the seed’s');
  }
  return {
    kind: 'solana',
    address: base58.encode(publicKey),
    signMessage: async (message) => new Uint8Array(signEd25519(null, Buffer.from(message, 'utf8'), privateKey)),
  };
}
