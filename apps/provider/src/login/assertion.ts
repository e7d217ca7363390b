/**
 * An agent's assertion (RFC 7523), signed by the program's own key, for the JWT bearer grant
 * (docs/relying-parties.md, "Agents"): `iss` = `sub` = the key's CAIP-10 account, `aud` the issuer,
 * `iat`, `exp` (60 s later), a fresh `jti`. An Ethereum key signs `ES256K`: its `signDigest` signs
 * the SHA-256 of the JWS signing input, and the signature's r‖s is the JWS signature (RFC 8812; a
 * recovery byte, when the signer adds one, is dropped). A Solana key signs `EdDSA`: its `signMessage`
 * over the signing input's bytes is exactly the JWS signature.
 */
import { randomUUID } from 'node:crypto';
import { SOLANA_CHAIN_REFERENCES, type SolanaNetwork } from '@signet/siws/message';
import { type Hex, hexToBytes, sha256 } from 'viem';
import { LoginError } from './errors.ts';
import type { LoginSigner } from './keys.ts';

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export type AssertionOptions = {
  /** The issuer, exactly as discovery names it (or the token endpoint's URL). */
  audience: string;
  /** Ethereum: the chain named in `sub` (default 1). */
  chainId?: number;
  /** Solana: the cluster named in `sub` (default mainnet). */
  solanaNetwork?: SolanaNetwork;
  /** Seconds from `iat` to `exp` (default 60; the provider takes at most 300). */
  lifetimeSeconds?: number;
};

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The key's account id, as the assertion's `iss` and `sub` name it. */
export function assertionSubject(signer: LoginSigner, options: Pick<AssertionOptions, 'chainId' | 'solanaNetwork'>): string {
  if (signer.kind === 'solana') return `solana:${SOLANA_CHAIN_REFERENCES[options.solanaNetwork ?? 'mainnet']}:${signer.address}`;
  return `eip155:${options.chainId ?? 1}:${signer.address}`;
}

/** The 64-byte r‖s of what an Ethereum signer returned for a digest (64 or 65 bytes). */
function rs(signature: Hex): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = hexToBytes(signature);
  } catch {
    throw new LoginError('INVALID_SIGNATURE', 'the signer’s digest signature is not hex');
  }
  if (bytes.length !== 64 && bytes.length !== 65) {
    throw new LoginError(
      'INVALID_SIGNATURE',
      `the signer’s digest signature is ${bytes.length} bytes; r‖s (64) or r‖s‖v (65) is expected`,
    );
  }
  return bytes.subarray(0, 64);
}

/** A signed assertion for the JWT bearer grant. Throws LoginError when the signer cannot sign one. */
export async function signAssertion(signer: LoginSigner, options: AssertionOptions): Promise<string> {
  const sub = assertionSubject(signer, options);
  const iat = Math.floor(Date.now() / 1000);
  const claims = { iss: sub, sub, aud: options.audience, iat, exp: iat + (options.lifetimeSeconds ?? 60), jti: randomUUID() };
  if (signer.kind === 'solana') {
    const input = `${b64({ alg: 'EdDSA', typ: 'JWT' })}.${b64(claims)}`;
    return `${input}.${Buffer.from(await signer.signMessage(input)).toString('base64url')}`;
  }
  if (!signer.signDigest) {
    throw new LoginError(
      'SIGNER_CANNOT_SIGN_ASSERTION',
      'this Ethereum signer has no signDigest (a raw secp256k1 signature of a 32-byte digest): use the interactive sign-in (a redirect URI), or give it one',
    );
  }
  const input = `${b64({ alg: 'ES256K', typ: 'JWT' })}.${b64(claims)}`;
  const signature = rs(await signer.signDigest(sha256(new TextEncoder().encode(input))));
  return `${input}.${Buffer.from(signature).toString('base64url')}`;
}
